"""People and places the NER models read in chat typed in lower case, once its names are written capitalised.

The NER models read names by their capitals (spaCy's small English model misses lower-cased names anyway), and
``ner`` only runs them around capitalised words: a text typed in lower case ("maman: dis à claude de rappeler
mamie", "montgeron c'était trop bien") never reaches them, and the rules find a given name or a town there only beside
a cue or a family name. Here such a text is shown to the models as a reader would write it:

- each word that is a common given name (names-dataset's) and no ordinary word of English, French, Spanish, German,
  Italian, Portuguese, Dutch or Polish (spaCy's stop words, Faker's per-locale word lists, the English model's
  dictionary, a month's or weekday's name or abbreviation: "sept", "thu") is capitalised, and so is a known family
  name right after one. In text typed in lower case, a given name that is a frequent word (``frequent_words``) of the
  text's language (the language whose spaCy stop words the text holds most) is capitalised only beside a title, a cue
  word or a family name ("que graça esse vídeo", Portuguese "how funny"; "de roos in de tuin", Dutch "the rose";
  "sra. graça", "graça ferreira" are names). wordfreq folds case, so its lists hold names frequent as names too
  ("claude" in French): such a name alone is left to the name rules and their cues. The English dictionary is a
  lower-case lemma index: a noun WordNet writes only capitalised ("fatima", "esther") is a name there, not a word
  (``_proper_names``), and in a text whose stop words are another language's, an English word no other language
  writes is the name ("qui vient samedi marguerite"). A known family name after a title is capitalised too ("mrs
  matthews"). A middle initial between a given name and a known family name is capitalised with them
  ("dillon g moore"), and such a run is a person whatever the models read in it;
- each run of up to four words that is the name of a place of ``places.SMALL_TOWN_POPULATION`` (15,000) people or
  more (the gazetteer's, ``places.gazetteer``) is capitalised, one word only where it is no such ordinary word nor a
  frequent word (``common_nouns.ordinary_words``) and has four letters or more.

The models read the capitalised words in their sentence ("dis à Claude de rappeler", "Montgeron c'était trop bien"),
and a person they call exactly a run of the capitalised given names, or a place they call exactly a capitalised
place's name, is kept ("Claude", "Mirko"; "Montgeron", "Mogi Mirim"); their other people and places are not (a
lower-case word they capitalise in their head is no evidence of a name), and the rules' findings go first: a person
they read in full ("juliana pinto") stays theirs. A place they call exactly a capitalised given name that is no
place's name nor a frequent word is a person ("my daughter Aaliyah" read as a place). Only a text typed in lower case is
read so: one with no capital letter, or whose capitals stand only in codes, acronyms and the values the pattern
detectors found ("id Y2200694E", "dob August 14, 1938"), its lower-case words the candidates; one with a capitalised
word of its own is read by NER as typed. A text with no candidate word costs one pass over its words.

Capitalising keeps every offset: a word is capitalised only where its first letter's capital is one character.

Lines written in capitals in a text ("ESTHER RING MIG DIREKT", "HAS ANYONE MOVED FROM TURIN TO TUNISIA?", a subject
line, an SMS typed in capitals) tell a name no better than lower case does, and the models read every word of them as
a name or none: such a line (``MIN_SHOUTED_LETTERS`` letters or more, all of them capitals) is shown to the models in
lower case, its candidate names capitalised as above (and a common given name the ordinary-word filter holds, where it
is no stop word of those languages nor of Danish, Norwegian or Swedish, no month's or weekday's name and no frequent
word of the line's language: "ESTHER RING MIG"; not Scandinavian "MED"), and what the models find on it is kept on
the same terms; the rest of the text is read as typed, and the models' findings there as usual
(``LowerCaseView.split``). A letter whose lower case is more than one character ("İ") stays as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from spacy.lang.da.stop_words import STOP_WORDS as DANISH_STOP_WORDS
from spacy.lang.nb.stop_words import STOP_WORDS as NORWEGIAN_STOP_WORDS
from spacy.lang.sv.stop_words import STOP_WORDS as SWEDISH_STOP_WORDS

from gateway.guardrails.common_nouns import chat_stop_words, european_words, language_stop_words, ordinary_words
from gateway.guardrails.dates import SHORTEST_ABBREVIATION, calendar_words, is_month_word, weekday_names
from gateway.guardrails.findings import Finding
from gateway.guardrails.frequent_words import frequent_in_any, frequent_words
from gateway.guardrails.name_cues import CUE_WORDS, TITLE_WORDS
from gateway.guardrails.people import typed_in_lower_case
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import (
    MAX_NAME_WORDS,
    SMALL_TOWN_POPULATION,
    english_and_stop_words,
    english_words,
    gazetteer,
)
from gateway.guardrails.proper_nouns import proper_nouns

SOURCE = "lower_case_ner"
MIN_LETTERS = 3  # shorter given names ("al", "jo", "ed") are as often words or abbreviations
# Past this many candidate words a text is not chat but a dump (a lower-case list of names, a log): NER would read
# a window around each, so such a text is left to the name rules.
MAX_CANDIDATES = 40
MIN_PLACE_LETTERS = 4
MAX_PLACE_WORDS = 4
MIN_PROPER_NAME_LETTERS = 4
# A given name, a middle initial and a known family name: the shape of a person, below the models' own score.
INITIALLED_SCORE = 0.8
# A line of fewer letters in capitals is an acronym, a code or a heading's word ("NYC", "OK", "FAQ"), not a message.
MIN_SHOUTED_LETTERS = 8
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")


@cache
def _words() -> frozenset[str]:
    """Ordinary words of the eight languages, the given names among them too ("rosa", "luz", "will": words first),
    and the English model's dictionary and the calendar's names."""
    return european_words() | english_and_stop_words() | calendar_words()


@cache
def _proper_names() -> frozenset[str]:
    """The English dictionary's nouns of four letters or more that WordNet writes capitalised in every sense
    ("fatima", "esther", "mayer": its lemma index is lower case; shorter ones are acronyms as often: "sha"), that
    are no verb, adjective or adverb, no ordinary word of the eight languages, no stop word, no month's or
    weekday's name and no town's name: names, not words, in a person's place in lower-case text."""
    english = english_words()
    places = gazetteer()
    return frozenset(word for word in proper_nouns() - english.verbs - english.modifiers - european_words()
                     - calendar_words() if len(word) >= MIN_PROPER_NAME_LETTERS and word not in _stop_words()
                     and not is_month_word(word) and places.get(word, 0) < SMALL_TOWN_POPULATION)  # fmt: skip


@cache
def _weekdays() -> tuple[str, ...]:
    return tuple(name.casefold() for name in weekday_names())


def _is_word(folded: str) -> bool:
    """An ordinary word, or a month's or weekday's name or abbreviation ("sept", "thu")."""
    if folded in _words() or is_month_word(folded):
        return True
    return len(folded) >= SHORTEST_ABBREVIATION and any(day.startswith(folded) for day in _weekdays())


@dataclass(frozen=True)
class LowerCaseView:
    """A text typed in lower case with its candidate names capitalised (`text`), and the [start, end) spans of its
    given and family names (`names`: one a word) and of its places' names (`places`: one a name)."""

    text: str
    names: tuple[tuple[int, int], ...]
    places: tuple[tuple[int, int], ...] = ()
    # The [start, end) spans of the lines shown in lower case; None: the whole text.
    lines: tuple[tuple[int, int], ...] | None = None

    def recased(self) -> tuple[tuple[int, int], ...]:
        """The [start, end) spans of the text shown with capitals written in: its lines in capitals, or all of it."""
        return self.lines if self.lines is not None else ((0, len(self.text)),)

    def split(self, found: Sequence[Finding]) -> tuple[list[Finding], list[Finding]]:
        """The NER findings on the lines shown in lower case (``read`` keeps those), and the others (read as typed)."""
        if self.lines is None:
            return list(found), []
        inside: list[Finding] = []
        outside: list[Finding] = []
        for finding in found:
            on_line = any(start < finding.end and finding.start < end for start, end in self.lines)
            (inside if on_line else outside).append(finding)
        return inside, outside

    def read(self, found: Iterable[Finding], taken: Sequence[Finding]) -> list[Finding]:
        """NER's people in `found` (read on `text`) that are exactly a run of the capitalised names, one space
        apart, and its places that are exactly a capitalised place's name, that overlap none of `taken` scoring 0.5
        or more; as this module's findings. A place the models read exactly on a run of capitalised names that is
        no capitalised place's name nor a frequent word (``frequent_words``), of four letters or more, is a person:
        the models know a proper noun there but not which ("wir haben Yasin und Emilija getroffen", "my daughter
        Aaliyah" read as places), and the view capitalised it as a common given name that no gazetteer place of
        ``places.SMALL_TOWN_POPULATION`` people bears. Likewise a person the models read on a capitalised place's
        name that is no given name is the place (``_place_read_as_person``)."""
        places = set(self.places)
        kept = self._initialled(taken)
        for finding in found:
            if finding.score < 0.5 or finding.entity_type not in ("PERSON", "LOCATION"):
                continue
            entity_type = finding.entity_type
            if entity_type == "LOCATION" and (finding.start, finding.end) not in places:
                name = self.text[finding.start : finding.end].casefold()
                if name in frequent_in_any() or len(name) < MIN_PROPER_NAME_LETTERS:
                    continue  # a word too ("rappeler Mamie", French "granny") or a code ("sha"): no evidence
                entity_type = "PERSON"
            start, end = finding.start, finding.end
            if entity_type == "PERSON" and not self._names_run(start, end):
                place = self._place_read_as_person(start, end)
                if place is None:
                    continue
                entity_type, (start, end) = "LOCATION", place
            read = Finding(entity_type, start, end, finding.score, SOURCE)
            if any(other.score >= 0.5 and other.overlaps(read) for other in (*taken, *kept)):
                continue
            kept.append(read)
        return kept

    def _place_read_as_person(self, start: int, end: int) -> tuple[int, int] | None:
        """The capitalised place's name a person the models read at [start, end) is, or None: the span is exactly
        the place's, or the place's after lower-case words ("à Le Creusot", "van Blerick", "de Frontignan" read as
        people), and no capitalised given name starts there."""
        names = {name_start for name_start, _ in self.names}
        for place_start, place_end in self.places:
            if place_end != end or not start <= place_start or place_start in names:
                continue
            if all(word.islower() for word in self.text[start:place_start].split()):
                return place_start, place_end
        return None

    def _initialled(self, taken: Sequence[Finding]) -> list[Finding]:
        """The runs of capitalised names with a middle initial inside ("Dillon G Moore", "Mila B. Reitsma"): a given
        name, an initial and a known family name are a person's shape whatever the models read there (they read
        "Carrara" of "Elisabetta F Carrara" as the town). A place found inside such a run is a word of it
        (the analyzer drops places inside a person that opens with a first name); any other finding goes first."""
        runs: list[list[tuple[int, int]]] = []
        for start, end in self.names:
            if runs and runs[-1][-1][1] + 1 == start and self.text[start - 1] == " ":
                runs[-1].append((start, end))
            else:
                runs.append([(start, end)])
        people = []
        for run in runs:
            if not any(self.text[start:end].rstrip(".").isalpha() and len(self.text[start:end].rstrip(".")) == 1
                       for start, end in run[1:-1]):  # fmt: skip
                continue
            person = Finding("PERSON", run[0][0], run[-1][1], INITIALLED_SCORE, SOURCE)
            if not any(other.score >= 0.5 and other.overlaps(person) and not _inside_place(other, person)
                       for other in taken):  # fmt: skip
                people.append(person)
        return people

    def _names_run(self, start: int, end: int) -> bool:
        """Whether [start, end) is exactly a run of the capitalised names, one space apart."""
        starts = {name_start: name_end for name_start, name_end in self.names}
        at = starts.get(start)
        while at is not None and at < end and self.text[at : at + 1] == " " and at + 1 in starts:
            at = starts[at + 1]
        return at == end


def _inside_place(finding: Finding, person: Finding) -> bool:
    return finding.entity_type == "LOCATION" and person.start <= finding.start and finding.end <= person.end


def lower_case_view(text: str, values: Sequence[tuple[int, int]] = ()) -> LowerCaseView | None:
    """The text with its given names and places capitalised (the module's docstring), or None: a text with
    capitalised words and no line in capitals, or with no candidate, or with more than ``MAX_CANDIDATES``. A text
    typed in lower case but for codes, acronyms and the values at the [start, end) spans of `values` (the pattern
    detectors' findings: "id Y2200694E", "dob August 14, 1938"; ``people.typed_in_lower_case``) is read as one with
    no capital, its lower-case words the candidates."""
    if text.islower():
        words = list(_WORD.finditer(text))
    elif not typed_in_lower_case(text, values) or _shouted_lines(text):
        return _shouted_view(text)
    else:
        words = [match for match in _WORD.finditer(text) if match.group().islower()]
    return _view(text, _names(text, words), _places(text, words))


def _shouted_view(text: str) -> LowerCaseView | None:
    """The text with its lines in capitals in lower case and their candidate names capitalised, or None: no such
    line, or no candidate on them."""
    lines = _shouted_lines(text)
    if not lines:
        return None
    parts, at = [], 0
    for start, end in lines:
        line = text[start:end]
        lower = line.lower()
        if len(lower) != len(line):  # a letter of a longer lower case ("İ") stays as written
            lower = "".join(char.lower() if len(char.lower()) == 1 else char for char in line)
        parts += [text[at:start], lower]
        at = end
    lowered = "".join([*parts, text[at:]])
    names: list[tuple[int, int]] = []
    places: list[tuple[int, int]] = []
    for start, end in lines:
        words = list(_WORD.finditer(lowered, start, end))
        names += _names(lowered, words, shouted=True)
        places += _places(lowered, words)
    return _view(lowered, names, places, tuple(lines))


def _shouted_lines(text: str) -> list[tuple[int, int]]:
    """The [start, end) spans of the lines of `text` written in capitals, ``MIN_SHOUTED_LETTERS`` letters or more."""
    spans, start = [], 0
    for line in text.split("\n"):
        if line.isupper() and sum(char.isalpha() for char in line) >= MIN_SHOUTED_LETTERS:
            spans.append((start, start + len(line)))
        start += len(line) + 1
    return spans


def _view(text: str, names: list[tuple[int, int]], places: list[tuple[int, int]],
          lines: tuple[tuple[int, int], ...] | None = None) -> LowerCaseView | None:  # fmt: skip
    """`text` with `names` and each word of `places` capitalised, or None where there is no candidate or too many."""
    if (not names and not places) or len(names) + len(places) > MAX_CANDIDATES:
        return None
    chars = list(text)
    for start, _ in (*names, *places):
        chars[start] = chars[start].upper()
    for start, end in places:  # each word of a place's name ("Mogi Mirim")
        for match in _WORD.finditer(text, start, end):
            chars[match.start()] = chars[match.start()].upper()
    return LowerCaseView("".join(chars), tuple(names), tuple(places), lines)


def _capital(word: str) -> bool:
    return len(word[0].upper()) == 1


@cache
def _stop_words() -> frozenset[str]:
    """The stop words of the eight languages and of Danish, Norwegian and Swedish (spaCy's): the function words a
    line in capitals holds ("MED", Scandinavian "with", is a given name too)."""
    scandinavian = DANISH_STOP_WORDS | NORWEGIAN_STOP_WORDS | SWEDISH_STOP_WORDS
    return chat_stop_words() | frozenset(word.casefold() for word in scandinavian)


@cache
def _cue_words() -> frozenset[str]:
    """Titles, and the cue words before a name that are no stop word ("ciao", "dear"; not "a", "de")."""
    stop = chat_stop_words()
    return TITLE_WORDS | (CUE_WORDS - stop)


def _text_languages(words: list[re.Match[str]]) -> frozenset[str]:
    """The languages whose stop words (spaCy's) the text's words hold most (ties all kept), none without one."""
    counts = {language: 0 for language in language_stop_words()}
    for match in words:
        folded = match.group().casefold()
        for language, stop in language_stop_words().items():
            counts[language] += folded in stop
    top = max(counts.values())
    return frozenset(language for language, count in counts.items() if count == top and top > 0)


def _named_around(text: str, words: list[re.Match[str]], index: int) -> bool:
    """Whether a title or a cue word stands right before the word at `index`, or a known family name that is no
    ordinary word right after it ("sra. graça", "ciao bella", "graça ferreira")."""
    if index > 0 and words[index - 1].group().casefold() in _cue_words():
        return True
    if index + 1 == len(words):
        return False
    after, following = words[index].end(), words[index + 1]
    folded = following.group().casefold()
    return (following.start() == after + 1 and text[after] == " " and known_names().is_last(folded)
            and not _is_word(folded))  # fmt: skip


def _shouted_given(folded: str, words: list[re.Match[str]]) -> bool:
    """Whether a word of a line in capitals that the ordinary-word filter holds is a common given name there: no stop
    word, no month's or weekday's name, and no frequent word of the line's language ("ESTHER", "MARCO")."""
    if folded not in known_names().given or folded in _stop_words() or is_month_word(folded):
        return False
    if any(day.startswith(folded) for day in _weekdays()):
        return False
    return not any(folded in frequent_words(language) for language in _text_languages(words))


@cache
def _english_only_words() -> frozenset[str]:
    """The English dictionary's words that are no ordinary word of the other seven languages, no month's or
    weekday's name and no town's, state's or country's ("marguerite", "glen", "henry"; not "virginia"): in a text
    whose stop words are another language's, such a word that is a common given name is the name, not an English
    word ("qui vient samedi marguerite", "hi henry, ich bin ..."); it is still held to that language's frequent
    words and their cues."""
    places = gazetteer()
    return frozenset(word for word in english_and_stop_words() - european_words() - calendar_words()
                     if not is_month_word(word) and places.get(word, 0) < SMALL_TOWN_POPULATION)  # fmt: skip


def _after_title(words: list[re.Match[str]], index: int) -> bool:
    """Whether a title stands right before the word at `index` ("mrs matthews", "frau niemann"): a known family name
    there is the person's name as a given name is."""
    return index > 0 and words[index - 1].group().casefold() in TITLE_WORDS


def _proper_name(words: list[re.Match[str]], index: int) -> bool:
    """Whether the word at `index` is one of ``_proper_names`` not after "the": English writes a famous person's
    name there as a noun's modifier ("the schubert concert", "the darwin awards"), never a given name."""
    return words[index].group().casefold() in _proper_names() and (index == 0 or words[index - 1].group() != "the")


def _middle_initial(text: str, words: list[re.Match[str]], index: int) -> bool:
    """Whether the word at `index` is a middle initial: one letter that is no stop word, with or without its period,
    then one space and a known family name that is no ordinary word or one WordNet writes only capitalised
    ("dillon g moore", "mila b. reitsma"; not "maria y pablo", "anna b ok")."""
    match = words[index]
    initial = match.group()
    if len(initial) != 1 or not _capital(initial) or initial.casefold() in chat_stop_words():
        return False
    after = match.end() + (text[match.end() : match.end() + 1] == ".")
    if index + 1 == len(words) or words[index + 1].start() != after + 1 or text[after] != " ":
        return False
    family = words[index + 1].group().casefold()
    if len(family) < MIN_LETTERS or not _capital(family) or family in _stop_words():
        return False
    if not known_names().is_last(family):
        return False
    return not _is_word(family) or family in proper_nouns()  # WordNet's "Moore" (the sculptor), never "moore"


def _names(text: str, words: list[re.Match[str]], shouted: bool = False) -> list[tuple[int, int]]:
    """The given names among `words`, and a known family name right after one. In text typed in lower case, a given
    name that is a frequent word of the text's language ("que graça esse vídeo", "de roos in de tuin") is one only
    beside a title, a cue word or a family name (``_named_around``)."""
    known = known_names()
    spans: list[tuple[int, int]] = []
    languages: frozenset[str] | None = None
    family_at = -1  # the index of a family name after a middle initial, taken with the initial
    for index, match in enumerate(words):
        word = match.group()
        folded = word.casefold()
        after_name = bool(spans) and spans[-1][1] + 1 == match.start() and text[spans[-1][1]] == " "
        if index == family_at:
            spans.append(match.span())
            continue
        if after_name and _middle_initial(text, words, index):
            spans.append((match.start(), match.end() + (text[match.end() : match.end() + 1] == ".")))
            family_at = index + 1
            continue
        if len(word) < MIN_LETTERS or not _capital(word):
            continue
        if _is_word(folded) and not _proper_name(words, index) and not (shouted and _shouted_given(folded, words)):
            if shouted or folded not in _english_only_words():
                continue
            languages = _text_languages(words) if languages is None else languages
            if not languages or "en" in languages:
                continue  # an English word where English may be written
        if (after_name or _after_title(words, index)) and known.is_last(folded):
            spans.append(match.span())
        elif folded in known.given:
            if not shouted and folded in frequent_in_any():
                languages = _text_languages(words) if languages is None else languages
                if not _named_around(text, words, index) and any(
                    folded in frequent_words(language) for language in languages
                ):
                    continue
            spans.append(match.span())
    return spans


def _places(text: str, words: list[re.Match[str]]) -> list[tuple[int, int]]:
    """The longest run of up to ``MAX_PLACE_WORDS`` words, one space apart, at each word that names a place of
    ``SMALL_TOWN_POPULATION`` people or more (one word: no ordinary word, ``MIN_PLACE_LETTERS`` letters or more)."""
    places, ordinary = gazetteer(), ordinary_words()
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(words):
        run = 1
        while (run < min(MAX_PLACE_WORDS, MAX_NAME_WORDS) and index + run < len(words)
               and words[index + run].start() == words[index + run - 1].end() + 1
               and text[words[index + run - 1].end()] == " "):  # fmt: skip
            run += 1
        for size in range(run, 0, -1):
            run_words = words[index : index + size]
            key = " ".join(match.group().casefold() for match in run_words)
            if places.get(key, 0) < SMALL_TOWN_POPULATION or not all(_capital(match.group()) for match in run_words):
                continue
            if size == 1 and (len(key) < MIN_PLACE_LETTERS or _is_word(key) or key in ordinary):
                continue
            spans.append((words[index].start(), words[index + size - 1].end()))
            index += size
            break
        else:
            index += 1
    return spans
