"""PERSON from the endings that form family names and patronymics, for names no list holds.

names-dataset knows few romanised Armenian, Ukrainian, Bulgarian, Russian, Greek or Georgian names (it holds no
Armenian or Ukrainian country at all), yet their family names and patronymics are built with a handful of endings
that mark a word as a person's name in any text: "-yan" and "-yants" (Tadevosyan), "-ov", "-ova", "-ev", "-eva"
(Petrova, Zhukov), "-enko" and "-chuk" (Andrusenko), "-sky" and "-ska", "-opoulos" and "-idou" (Emmanouilidou),
"-shvili" and "-dze", "-ović", "-auskas" and "-ienė", "-zade" and "-oğlu", Iceland's "-sson" and "-dóttir", and the
patronymics "-ovich", "-evna", "-ivna". ``suffixed_names`` finds:

- in text with capitals, a run of two to four capitalised words on one line, or across one line break as extracted
  PDF text breaks a name ("Ruben\\nTadevosyan"), one word of which (past its first three letters) ends so: "Avetik
  Azanyan will cover", "Kornilov Nifont Arkhipovich". No word of the run may be a stop word, an English dictionary,
  calendar or field word, and the run must be no place the gazetteer knows ("Rostov Veliky"); a word of it that is
  a place alone ("Taras") must be a known first name;
- in a line typed in lower case (a call transcript, a chat), two or three such lower-case words when one of them is a
  known first name or a patronymic ("the account is under pestov leonid bronislavovich", "my name is halyna
  savenko"): with no capital to mark a name, the list or the patronymic must.
"""

from __future__ import annotations

import bisect
import itertools
import operator
import re
from collections.abc import Callable, Container, Iterable

from gateway.guardrails.dates import calendar_words
from gateway.guardrails.findings import Finding
from gateway.guardrails.ner import LOWER_LETTERS, UPPER_LETTERS
from gateway.guardrails.person_names import KnownNames, known_names
from gateway.guardrails.places import gazetteer

SCORE = 0.6
MAX_LOWER_CASE_WORDS = 3
MIN_STEM_LETTERS = 3  # the ending follows a stem of three letters or more: "Rogov", not "Nova" or "Kiev"
PATRONYMIC_ENDINGS = ("ovich", "evich", "ovych", "evych", "ovna", "evna", "ivna", "ichna")
SURNAME_ENDINGS = (
    *PATRONYMIC_ENDINGS,
    "yan", "ian", "yants", "iants", "unts",  # Armenian
    "ov", "ova", "ev", "eva", "yov", "yova", "iev", "ieva",  # Russian, Bulgarian, Azerbaijani, Czech, Slovak
    "enko", "chuk", "czuk", "yuk", "iuk",  # Ukrainian
    "sky", "ski", "ska", "skiy", "skyi", "skaya", "cki", "cka",  # Slavic adjectival
    "opoulos", "opoulou", "idis", "idou", "iadis", "iadou", "akis", "akou",  # Greek
    "shvili", "dze",  # Georgian
    "ović", "ević", "ovic", "evic",  # South Slavic
    "auskas", "iauskas", "evičius", "ienė", "aitė", "ytė",  # Lithuanian
    "zade", "zadeh", "zadə", "oğlu", "oglu",  # Azerbaijani, Persian, Turkish
    # Icelandic patronymics and matronymics (Personal Names Act No. 45/1996, art. 8: a parent's name in the genitive
    # and -son or -dóttir: Arnaldsson, Álfgeirsdóttir), and the Swedish and Icelandic genitive -sson (Karlsson)
    "dóttir", "dottir", "sson",
)  # fmt: skip
_ENDING = re.compile(rf"(?:{'|'.join(sorted(SURNAME_ENDINGS, key=len, reverse=True))})\Z", re.IGNORECASE)
_PATRONYMIC = re.compile(rf"(?:{'|'.join(PATRONYMIC_ENDINGS)})\Z", re.IGNORECASE)
_CAPITALISED = rf"[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:-[{UPPER_LETTERS}][{LOWER_LETTERS}]+)?"
# A name's words: spaces between them, or one line break (no blank line) where a PDF's line ends inside the name.
_CAPITALISED_RUN = re.compile(
    rf"(?<![\w@.'’/-]){_CAPITALISED}(?:(?:[ \t]+|[ \t]*\r?\n[ \t]*){_CAPITALISED}){{1,3}}(?![\w@'’/-])"
)
_LOWER_RUN = re.compile(rf"(?<![\w@.'’/-])[{LOWER_LETTERS}]+(?:[ \t]+[{LOWER_LETTERS}]+)+(?![\w@'’/-])")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")
_TITLE_WORD = re.compile(rf"(?<![\w'’-])[{UPPER_LETTERS}][{LOWER_LETTERS}]")
# A name's word that ends so holds a maximal run of lower-case letters (the word, or a capitalised word's or part's
# letters after its capital) as long as the shortest ending and all of the stem but its capital: the text is asked for
# one (one findall, the endings tested in C) before it is read run by run. The ending pattern is case-blind, and
# Python's re equates "ı" with "i" and "ſ" with "s": a text holding either is read.
_LONG_LOWER_WORD = re.compile(rf"[{LOWER_LETTERS}]{{{MIN_STEM_LETTERS - 1 + min(map(len, SURNAME_ENDINGS))},}}")
_ENDS_AS_SURNAME = operator.methodcaller("endswith", SURNAME_ENDINGS)
_CASE_PARTNERS = ("ı", "ſ")
_CALENDAR_WORDS = calendar_words()
_FIELD_WORDS = frozenset({"id", "ip", "iban", "token", "url", "uuid", "sku", "ssn", "dob", "api", "vat", "email"})


def has_surname_ending(word: str) -> bool:
    """Whether `word` (or a part of a hyphenated one) ends in a family name's or patronymic's ending after a stem of
    ``MIN_STEM_LETTERS`` letters or more."""
    return any(
        (match := _ENDING.search(part)) is not None and match.start() >= MIN_STEM_LETTERS for part in word.split("-")
    )


def _ordinary(word: str, stop_words: frozenset[str], common_words: frozenset[str]) -> bool:
    """A word no name is made of here: a stop word, an English dictionary word (or its plural), a month or
    weekday, a field's word."""
    folded = word.casefold()
    return (folded in stop_words or folded in common_words or folded in _CALENDAR_WORDS or folded in _FIELD_WORDS
            or (folded.endswith("s") and folded[:-1] in common_words))  # fmt: skip


def _capitalised_runs(text: str, stop_words: frozenset[str], common_words: frozenset[str]) -> Iterable[Finding]:
    names, places = known_names(), gazetteer()
    for run in _CAPITALISED_RUN.finditer(text):
        # The run's stretches of words that may all be a name's: "Approved", "Sent" and "Claims" cut it.
        stretch: list[re.Match[str]] = []
        for word in [*_NAME_WORD.finditer(text, run.start(), run.end()), None]:
            if word is not None and not _ordinary(word.group(), stop_words, common_words):
                stretch.append(word)
                continue
            if len(stretch) >= 2 and _names_a_person([w.group() for w in stretch], names.is_first, places):
                yield Finding("PERSON", stretch[0].start(), stretch[-1].end(), SCORE, "suffixed_names")
            stretch = []


def _names_a_person(words: list[str], is_first: Callable[[str], bool], places: Container[str]) -> bool:
    """A word ends as a surname does, the words are no place, and a word that is a place alone is a first name."""
    if not any(has_surname_ending(word) for word in words):
        return False
    if " ".join(word.casefold() for word in words) in places:
        return False
    return not any(word.casefold() in places and not is_first(word) for word in words)


def _may_hold_surname(text: str) -> bool:
    """Whether a word of `text` may end as a family name or patronymic does (most texts hold none)."""
    return any(partner in text for partner in _CASE_PARTNERS) or any(
        map(_ENDS_AS_SURNAME, set(_LONG_LOWER_WORD.findall(text)))
    )


def _lower_case_runs(text: str, stop_words: frozenset[str], common_words: frozenset[str]) -> Iterable[Finding]:
    names = known_names()
    position = 0
    for line in text.splitlines(keepends=True):
        if _TITLE_WORD.search(line) is None:
            for run in _LOWER_RUN.finditer(line):
                stretch: list[re.Match[str]] = []
                for word in [*_NAME_WORD.finditer(line, run.start(), run.end()), None]:
                    if word is not None and not _ordinary(word.group(), stop_words, common_words):
                        stretch.append(word)
                        continue
                    if (name := _lower_case_name(stretch, names)) is not None:
                        yield Finding("PERSON", position + name[0], position + name[1], SCORE, "suffixed_names")
                    stretch = []
        position += len(line)


def _lower_case_name(stretch: list[re.Match[str]], names: KnownNames) -> tuple[int, int] | None:
    """The first three words, else two, in a row of the stretch that hold a surname's ending and a known first name
    or a patronymic, each word a known name or one so ending: a name typed in lower case runs on into words no
    dictionary holds ("thats", "pls")."""
    for size in range(MAX_LOWER_CASE_WORDS, 1, -1):
        for index in range(len(stretch) - size + 1):
            words = [match.group() for match in stretch[index : index + size]]
            if not all(has_surname_ending(word) or names.is_name(word) for word in words):
                continue
            if any(has_surname_ending(word) for word in words) and (
                any(_PATRONYMIC.search(word) for word in words) or any(names.is_first(word) for word in words)
            ):
                return stretch[index].start(), stretch[index + size - 1].end()
    return None


def suffixed_names(
    text: str, stop_words: frozenset[str], common_words: frozenset[str], taken: Iterable[Finding]
) -> list[Finding]:
    """Runs of name words one of which ends as family names and patronymics end (see the module's docstring) that
    no finding in `taken` overlaps. A place found inside such a run that opens with a known first name is a word of
    the name ("Ruben" of "Ruben Tadevosyan", "Taras"), as the analyzer reads it too, and does not stand in the way.
    The runs found do not overlap one another (a lower-case line holds no capitalised run)."""
    if not _may_hold_surname(text):
        return []
    taken = list(taken)
    others = _Spans([(f.start, f.end) for f in taken if f.entity_type != "LOCATION"])
    places = _Spans([(f.start, f.end) for f in taken if f.entity_type == "LOCATION"])
    is_first = known_names().is_first
    found = []
    for finding in (*_capitalised_runs(text, stop_words, common_words),
                    *_lower_case_runs(text, stop_words, common_words)):  # fmt: skip
        first_name = (first := _NAME_WORD.match(text, finding.start)) is not None and is_first(first.group())
        if others.overlaps(finding.start, finding.end):
            continue
        if places.overlaps(finding.start, finding.end) and not (
            first_name and not places.overlaps_edge(finding.start, finding.end)
        ):
            continue
        found.append(finding)
    return found


class _Spans:
    """[start, end) spans, asked in logarithmic time whether any overlaps a span (a text may hold thousands)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans.sort()
        self._starts = [start for start, _ in spans]
        self._max_ends = list(itertools.accumulate((end for _, end in spans), max))
        self._spans = spans

    def overlaps(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self._starts, end)  # the spans starting before `end`
        return before > 0 and self._max_ends[before - 1] > start

    def overlaps_edge(self, start: int, end: int) -> bool:
        """Whether a span overlapping [start, end) reaches outside it."""
        before = bisect.bisect_left(self._starts, end)
        if before > 0 and self._max_ends[before - 1] > end:
            return True
        inside = bisect.bisect_left(self._starts, start)  # spans starting before `start` that reach into it
        return inside > 0 and self._max_ends[inside - 1] > start
