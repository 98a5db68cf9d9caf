"""NATIONAL_ID: every personal identity number python-stdnum validates (``personal_id_schemes``: a Romanian CNP, a
Bulgarian EGN, an Estonian isikukood, a Chilean RUT, a Greek AMKA, a Canadian SIN and some fifty more), when a label
next to it names it.

Most of these numbers are ten to thirteen digits with one check digit or none: one random number in ten passes a
scheme's check, and with sixty schemes nearly every run of digits passes one. A number is read as an identity number
only where text names it, within ``REACH`` characters before it or ``REACH_AFTER`` after it on its line: the scheme's
own name (its acronym, "CNP", "AMKA", "RUT", matched as written; its local name, "isikukood", "asmens kodas", in any
case), after which only that scheme's validator is asked; or an identity-number label or record key shared by all
("personal code", "national id", "social insurance number", "personal_code"), after which any scheme's validator
is. A candidate is digits grouped as the schemes print them (spaces, dots, dashes, slashes: "12.345.678-5",
"046 454 286", "750101-1234") and an optional letter or two of a check ("-K", a PPS number's "W").

Records put a label where no reach finds it, and a few are read as well (``_far_label_zones``), for a candidate with no
label in its reach: the column's header cell in a table when the candidate fills its cell (``columns.header_cell``, the
reader every recognizer's column names come from: a fixed-width report's header above its rule of dashes, a CSV, TSV,
semicolon- or pipe-separated block's header row, a Markdown, org-mode or psql table's), the line above when that line
ends with a label ("Personal code:" and the number under it), a Redis ``SETEX key seconds value`` (the key names the
value past the seconds) and two record segments whose qualifier says the value is a person's identity number: an EDIFACT
``DOC`` segment of an identity card ("DOC+ID:110:111+1800101221144'", PAXLST's document type "I"/"ID") and an ANSI X12
``REF`` segment of a subscriber's, a member's or a social security number ("REF*0F*67070231899~", qualifiers 0F, 1W, SY,
as 834 enrolments and 837 claims write them). The shared labels hold other languages' names of an identity number or
card as well (data/identity_labels.json: "kitambulisho", "شماره شناسایی", "kimlik numarası").
"""

from __future__ import annotations

import bisect
import importlib
import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from stdnum.exceptions import InvalidLength, ValidationError
from stdnum.us import ssn

from gateway.guardrails.columns import header_cell
from gateway.guardrails.findings import Finding
from gateway.guardrails.identifiers import NationalIdRecognizer
from gateway.guardrails.personal_id_schemes import checked_schemes, personal_id_schemes
from gateway.guardrails.prefilters import FOLDS_APART, any_word

RECOGNIZER_NAME = "PersonalIdRecognizer"
REACH = 48  # "Cod Numeric Personal (CNP) al titularului: 1800101221144"
REACH_AFTER = 24  # "1800101221144 (CNP)"
OWN_NAME_SCORE = 0.9
LABEL_SCORE = 0.85  # both above a phone's (0.75 at most): the same digits under an identity label are the identity

# Identity-number labels shared by every scheme: NationalIdRecognizer's context words but those that name a tax or
# document number, or are short enough to stand in other words and keys ("id ", "nir", "pan"), and the kinds of
# personal number the stdnum schemes describe themselves as.
_SHARED_EXCLUDED = ("tax", "steuer", "fiscal", "numéro", "document", "doc", "ausweis", "tin", "id:", "id=")
SHARED_LABELS: tuple[str, ...] = (
    *(word.strip() for word in NationalIdRecognizer.CONTEXT
      if len(word.strip()) >= 5 and not any(part in word.casefold() for part in _SHARED_EXCLUDED)),
    "personal code", "personal id", "personal identity", "personalcode", "personal_code", "personal-code",
    "social security", "social insurance", "sozialversicherung", "citizen", "birth number", "resident registration",
    "national number", "identity", "identification",
    *(label for labels in json.loads((Path(__file__).parent / "data" / "identity_labels.json").read_text(
        encoding="utf-8"))["labels"].values() for label in labels),
)  # fmt: skip
_DIGITS = "[0-9]"
_CANDIDATE_BODY = (rf"(?:[ ./-]?{_DIGITS}){{5,16}}"
                   rf"(?:(?P<letters>-?[A-Za-z]{{1,2}})(?![\w]|[./-]\w)|(?![\w]|[./-]\w))")  # fmt: skip
# A birth date's six digits, a century sign, three digits and a check character: the Finnish HETU's "040801A138R"
# (its signs for births from 2000 on are letters, A to F, and for the 1900s also U to Y) and a Swedish personnummer
# past its holder's hundredth year ("811228+9874"); the first digit is the candidate's own.
_CENTURY_SIGNED = r"[0-9]{5}[+A-FU-Y][0-9]{3}[0-9A-Z](?![\w])"
# no digit after a word's letter, a sign or a separator ("+40 721", "v1.2", "1,234,567"); after a comma of a CSV row
_CANDIDATE = re.compile(rf"{_DIGITS}(?<![\w+./-]{_DIGITS})(?<![0-9],{_DIGITS})(?:{_CENTURY_SIGNED}|{_CANDIDATE_BODY})")
# the value of an EDIFACT DOC segment of an identity card (PAXLST's document type "I"/"ID"), after a "+" that opens
# no candidate of ``_CANDIDATE`` (a phone number's "+"): "DOC+ID:110:111+1800101221144'"; of an X12 REF segment of a
# subscriber's (0F), a member's (1W) or a social security number (SY): "REF*0F*996214/5314~"
_CANDIDATE_AT = re.compile(rf"{_DIGITS}(?:{_CENTURY_SIGNED}|{_CANDIDATE_BODY})")
_RECORD_ID_VALUE = re.compile(
    rf"(?:DOC\+ID?(?::[^+':]*)*\+|(?<![A-Za-z])REF\*(?:0F|1W|SY)\*)(?P<value>{_DIGITS}(?:{_CENTURY_SIGNED}|{_CANDIDATE_BODY}))"
)
# what a text holds where ``_RECORD_ID_VALUE`` may match (substring tests first)
_RECORD_ID_MARKS = ("DOC+I", "REF*0F*", "REF*1W*", "REF*SY*")
_STOP = re.compile(r"[\r\n0-9]")  # a label's reach ends at a line break or another number
_WORD = re.compile(r"[^\W\d_]+")
MAX_WORDS_BETWEEN = 3
_SPACES = re.compile(r"\s")
_SSN_SHAPE = re.compile(r"[0-9]{3}[ .-]?[0-9]{2}[ .-]?[0-9]{4}")


def _is_acronym(label: str) -> bool:
    return label.isascii() and label.upper() == label


@cache
def _checked() -> tuple[str, ...]:
    return tuple(module for module in _validators() if module in checked_schemes())


@cache
def _validators() -> dict[str, Callable[[str], object]]:
    """Each scheme's ``validate``, by module name (imported once, on first use)."""
    return {module: importlib.import_module(f"stdnum.{module}").validate for module, _ in personal_id_schemes()}


# (scheme, shape of a value) a scheme's validator rejected for its length: stdnum checks a compacted number's length
# before anything else, so under a shared label most of the sixty schemes are passed over by a set look-up, not asked
# again. A Czech or Slovak birth number's length is judged with its year (nine digits only before 1954): those two
# are always asked.
_WRONG_LENGTH: set[tuple[str, str]] = set()
_SHAPE = str.maketrans("0123456789", "9999999999")
_LENGTH_BY_VALUE = frozenset({"cz.rc", "sk.rc"})


def _is_valid(module: str, value: str) -> bool:
    """What the scheme's ``is_valid`` says of ``value``, remembering the lengths it rejects (``_WRONG_LENGTH``)."""
    # the value's shape (its digits as 9s, its separators as written): a scheme strips its own separators before
    # it measures ("12.345.678-5" is nine digits to a RUT, ten characters to a SIN), so one shape is one length
    size = value.translate(_SHAPE)
    if (module, size) in _WRONG_LENGTH:
        return False
    try:
        _validators()[module](value)
    except InvalidLength:
        if module not in _LENGTH_BY_VALUE:
            _WRONG_LENGTH.add((module, size))
        return False
    except ValidationError:
        return False
    return True


@cache
def _labels() -> tuple[re.Pattern[str], dict[str, frozenset[str] | None]]:
    """The pattern of every label, and what each (case-folded) names: its schemes, or None for a shared label."""
    named: dict[str, set[str]] = {}
    for module, labels in personal_id_schemes():
        for label in labels:
            named.setdefault(label if _is_acronym(label) else label.casefold(), set()).add(module)
    meaning: dict[str, frozenset[str] | None] = {key: frozenset(modules) for key, modules in named.items()}
    meaning.update((label.casefold(), None) for label in SHARED_LABELS)
    # longest first, so a label is read whole ("personal code" before "personal")
    acronyms = sorted((key for key in named if _is_acronym(key)), key=len, reverse=True)
    words = sorted((key for key in meaning if key not in acronyms), key=len, reverse=True)
    return _pattern(acronyms, words), meaning


def _pattern(acronyms: list[str], words: list[str]) -> re.Pattern[str]:
    return re.compile(
        rf"(?<![A-Za-z])(?:{'|'.join(map(re.escape, acronyms))})(?![A-Za-z])"
        rf"|(?i:(?<!\w)(?:{'|'.join(map(re.escape, words))}))"
    )


def _in_ascii(label: str) -> bool:
    """Whether ``label`` may match an ASCII text: its letters ASCII, or case-blind partners of ASCII ones."""
    return all(char.isascii() or char in FOLDS_APART for char in label)


@cache
def _ascii_pattern() -> re.Pattern[str]:
    """``_labels``' pattern less the labels no ASCII text holds (two of three are in other scripts): an ASCII text's
    labels are matched by a shorter alternation."""
    _, meaning = _labels()
    acronyms = [key for key in meaning if _is_acronym(key) and _in_ascii(key)]
    words = [key for key in meaning if not _is_acronym(key) and _in_ascii(key)]
    return _pattern(sorted(acronyms, key=len, reverse=True), sorted(words, key=len, reverse=True))


def _pattern_for(text: str) -> re.Pattern[str]:
    return _ascii_pattern() if text.isascii() else _labels()[0]


def label_words() -> list[str]:
    """Every label in lower case: a text holding none of them (``prefilters.any_word``) holds no labelled number."""
    return sorted({label.lower() for label in _labels()[1]})


# the marks of a record label that holds no label word, lower-cased (``_RECORD_ID_MARKS``)
RECORD_MARKS = tuple(mark.lower() for mark in _RECORD_ID_MARKS)


@cache
def _label_tests() -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """The label tests of a text in ASCII (the ASCII words only: ``any_word`` tells an ASCII text by substrings of its
    lower case, which no other word is) and of any other text."""
    words = [*label_words(), *RECORD_MARKS]
    return any_word([word for word in words if word.isascii()]), any_word(words)


def _holds_label(text: str) -> bool:
    """Whether any label occurs in ``text`` (substring tests, before any regex)."""
    in_ascii, in_any = _label_tests()
    return (in_ascii if text.isascii() else in_any)(text)


def may_hold_personal_id(text: str) -> bool:
    """Whether ``text`` holds a candidate and a label: the digits searched first (the regex engine skips to them),
    the labels by substring tests only then."""
    return (_CANDIDATE.search(text) is not None or "DOC+I" in text) and _holds_label(text)


def _holds_record_id(text: str) -> bool:
    return any(mark in text for mark in _RECORD_ID_MARKS)


@cache
def _longest_label() -> int:
    return max(map(len, _labels()[1]))


def _label_windows(text: str, candidates: list[re.Match[str]]) -> list[tuple[int, int]]:
    """The stretches of ``text`` a label naming one of ``candidates`` can stand in or overlap: each candidate's reach
    (``REACH`` before, ``REACH_AFTER`` after) widened by the longest label on both sides, so a label the reach holds
    or starts in is matched whole, as a scan of the whole text would; overlapping stretches merged."""
    pad = _longest_label() + 1
    windows: list[tuple[int, int]] = []
    for candidate in candidates:
        start = max(0, candidate.start() - REACH - pad)
        end = min(len(text), candidate.end() + REACH_AFTER + pad)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    return windows


def _label_spans(
    text: str, windows: list[tuple[int, int]], pattern: re.Pattern[str]
) -> list[tuple[int, int, frozenset[str] | None]]:
    """Each label in ``text``'s ``windows`` (``_label_windows``: the one alternation of every label costs ~1 us a
    character, so a long text is read only around its candidates): its span and what it names (its schemes; None for
    a shared label; ``pattern``: ``_pattern_for`` the text)."""
    meaning = _labels()[1]
    spans = []
    for window_start, window_end in windows:
        for match in pattern.finditer(text, window_start, window_end):
            label = match.group()
            key = label if label in meaning else label.casefold()
            if key in meaning:  # a letter whose case-folding differs from re's case-blind match is no label
                spans.append((match.start(), match.end(), meaning[key]))
    return spans


def _named_schemes(text: str, spans: list[tuple[int, int, frozenset[str] | None]], starts: list[int], before: int,
                   start: int, end: int, after: int) -> frozenset[str] | None:  # fmt: skip
    """What the labels ending in text[before:start] or starting in text[end:after] name: None if one is shared, else
    the schemes they name (empty: no label). A label counts with no more than ``MAX_WORDS_BETWEEN`` words between it
    and the value ("CNP al titularului: ..."; not "identification number we have card number: ...")."""
    schemes: set[str] = set()
    first, last = bisect.bisect_left(starts, before), bisect.bisect_left(starts, after)
    for label_start, label_end, named in spans[first:last]:
        between = (label_end, start) if label_end <= start else (end, label_start) if end <= label_start else None
        if between is not None and len(_WORD.findall(text, *between)) <= MAX_WORDS_BETWEEN:
            if named is None:
                return None
            schemes.update(named)
    return frozenset(schemes)


def _reach(text: str, start: int, end: int) -> tuple[int, int]:
    """The stretch around text[start:end] a label may stand in: ``REACH`` before, ``REACH_AFTER`` after, on its line
    and with no other digit between (a label names the value next to it: "personal_id='Y1223203P' cc_number='..."
    names no card number)."""
    before = max(0, start - REACH)
    stops = list(_STOP.finditer(text, before, start))
    if stops:
        before = stops[-1].end()
    after = _STOP.search(text, end, min(len(text), end + REACH_AFTER))
    return before, after.start() if after else min(len(text), end + REACH_AFTER)


_DIGIT = re.compile(r"[0-9]")
MAX_HEADER_CELL = 48
_REDIS_SETEX = re.compile(r"(?i:p?setex)[ \t]+(\S+)[ \t]+[0-9]+[ \t]+[\"']?\Z")
_LABEL_ENDS_LINE = re.compile(r"[\s:=#*>\-\u2013\u2014]*")


def _line_at(text: str, position: int) -> tuple[int, int]:
    """The start and end of the line holding ``position``."""
    end = text.find("\n", position)
    return text.rfind("\n", 0, position) + 1, len(text) if end < 0 else end


def _line_above(text: str, line_start: int) -> tuple[int, int] | None:
    if line_start == 0:
        return None
    end = line_start - 1
    if end and text[end - 1] == "\r":
        end -= 1
    return text.rfind("\n", 0, end) + 1, end


def _holds_setex(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds a Redis SETEX (PSETEX) command as written, in either case: substring tests
    before ``_REDIS_SETEX``'s case-blind search."""
    return text.find("SETEX", start, end) >= 0 or text.find("setex", start, end) >= 0


def _far_label_zones(text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """Stretches of ``text`` outside the reach of a candidate (text[start:end]) that may hold a label naming it (the
    module doc), each with whether its label must end it (the line above): a Redis SETEX's key, the column's header
    cell (``columns.header_cell``), the line above when the candidate opens its line. (An EDIFACT identity card
    segment's value is found apart, ``_RECORD_ID_VALUE``.)"""
    line = _line_at(text, start)
    zones: list[tuple[int, int, bool]] = []
    setex = _REDIS_SETEX.search(text, line[0], start) if _holds_setex(text, line[0], start) else None
    if setex is not None:
        zones.append((*setex.span(1), False))
    if line[0] == 0:
        return zones
    header = header_cell(text, start, end)  # the cell it fills: a number inside a longer cell is another value
    if header is not None and header[1] - header[0] <= MAX_HEADER_CELL and _DIGIT.search(text, *header) is None:
        zones.append((*header, False))  # a header cell holds no number: a row of values is no header
    if not text[line[0] : start].strip(" \t-*>•"):
        above = _line_above(text, line[0])
        if above is not None:
            zones.append((*above, True))
    return zones


def _far_label(text: str, start: int, end: int, pattern: re.Pattern[str]) -> frozenset[str] | None:
    """What a label of ``_far_label_zones`` names: None if one is shared, else its schemes (empty: none)."""
    meaning = _labels()[1]
    schemes: set[str] = set()
    for zone_start, zone_end, at_end in _far_label_zones(text, start, end):
        for match in pattern.finditer(text, zone_start, zone_end):
            label = match.group()
            key = label if label in meaning else label.casefold()
            if key not in meaning or (at_end and not _LABEL_ENDS_LINE.fullmatch(text, match.end(), zone_end)):
                continue
            if meaning[key] is None:
                return None
            schemes.update(meaning[key] or ())
    return frozenset(schemes)


class PersonalIdRecognizer(EntityRecognizer):
    """NATIONAL_ID: a number a stdnum personal-identity scheme validates, next to a label naming it (module doc)."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["NATIONAL_ID"], name=RECOGNIZER_NAME)

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results: list[RecognizerResult] = []
        if not may_hold_personal_id(text):
            return results
        candidates = list(_CANDIDATE.finditer(text))
        record_ids = {m.start("value") for m in _RECORD_ID_VALUE.finditer(text)} if _holds_record_id(text) else set()
        if record_ids:
            held = {match.start() for match in candidates}
            values = [match for at in record_ids - held if (match := _CANDIDATE_AT.match(text, at)) is not None]
            candidates = sorted([*candidates, *values], key=lambda match: match.start())
        pattern = _pattern_for(text)
        spans = _label_spans(text, _label_windows(text, candidates), pattern)
        if not spans and "\n" not in text and not record_ids:
            return results
        starts = [label_start for label_start, _, _ in spans]
        for candidate in candidates:
            start, end = candidate.span()
            if candidate.group("letters") and not any(_is_valid(module, candidate.group()) for module in _validators()):
                end = candidate.start("letters")  # "1234567-ab": the digits alone
            before, after = _reach(text, start, end)
            named = _named_schemes(text, spans, starts, before, start, start, start)
            named_after = _named_schemes(text, spans, starts, end, end, end, after)
            if start in record_ids:
                named = None
            elif named == frozenset() and not named_after:
                named = _far_label(text, start, end, pattern)
            if named is None:  # a shared label before it
                if _SSN_SHAPE.fullmatch(text, start, end) and ssn.is_valid(_SPACES.sub("", text[start:end])):
                    continue  # a US Social Security number as written (3-2-4): US_SSN's, the first "social security"
                schemes, score = _checked(), LABEL_SCORE
            else:
                schemes, score = tuple(named | (named_after or frozenset())), OWN_NAME_SCORE
            found = next((module for module in schemes if _is_valid(module, text[start:end])), None)
            if found is not None:
                explanation = AnalysisExplanation(self.name, score, pattern_name=f"{found} (stdnum, labelled)")
                results.append(RecognizerResult("NATIONAL_ID", start, end, score, explanation))
        return results


def without_phones_in_labelled_ids(findings: list[Finding]) -> list[Finding]:
    """The findings less the phone numbers that overlap a labelled identity number (``PersonalIdRecognizer``'s): a
    number a scheme validates under a label naming it is that identity number, not a phone number as well. Where
    another NATIONAL_ID finding has the labelled number's span (``identifiers``' schemes), one is kept: the higher
    score, the other recognizer's on a tie."""
    ids = [f for f in findings if f.source == RECOGNIZER_NAME]
    if not ids:
        return findings
    best: dict[tuple[int, int], Finding] = {}
    for finding in findings:
        if finding.entity_type == "NATIONAL_ID":
            span = (finding.start, finding.end)
            held = best.get(span)
            if (
                held is None
                or finding.score > held.score
                or (finding.score == held.score and held.source == RECOGNIZER_NAME)
            ):
                best[span] = finding
    return [f for f in findings
            if (f.entity_type != "PHONE_NUMBER" or not any(f.overlaps(i) for i in ids))
            and (f.entity_type != "NATIONAL_ID" or best[(f.start, f.end)] is f)]  # fmt: skip
