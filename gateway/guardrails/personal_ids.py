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
from gateway.guardrails.identifiers import NationalIdRecognizer, x12_ref_values
from gateway.guardrails.personal_id_schemes import checked_schemes, personal_id_schemes
from gateway.guardrails.prefilters import FOLDS_APART
from gateway.guardrails.word_trie import alternation

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
    "personal code", "personal id", "personal identity", "personalcode", "personal_code", "personal-code", "id code",
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
# no candidate of ``_CANDIDATE`` (a phone number's "+"): "DOC+ID:110:111+1800101221144'"; and of an X12 REF segment
# (``identifiers.x12_ref_values``, the one reader of them) of a subscriber's (0F), a member's (1W) or a social security
# number (SY): "REF*0F*996214/5314~"
_CANDIDATE_AT = re.compile(rf"{_DIGITS}(?:{_CENTURY_SIGNED}|{_CANDIDATE_BODY})")
_DOC_ID_VALUE = re.compile(rf"DOC\+ID?(?::[^+':]*)*\+(?P<value>{_DIGITS}(?:{_CENTURY_SIGNED}|{_CANDIDATE_BODY}))")
_X12_PERSON_QUALIFIERS = frozenset({"0F", "1W", "SY"})
# what a text holds where a record's identity number may stand (substring tests first): the DOC segment's, and the
# REF segments' with any element separator X12 allows
_RECORD_ID_MARKS = ("DOC+I", *(f"REF{sep}{code}{sep}" for sep in "*|^" for code in sorted(_X12_PERSON_QUALIFIERS)))
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


# How a record's key joins a label's words ("personal_number", "national-id", "personalNumber"): a label's space or
# hyphen matches a space, an underscore, a hyphen or nothing.
_JOINERS = re.compile(r"[ _-]")
_JOINER = "[ _-]?"
# The letters that case-blind matching pairs with an ASCII letter (``prefilters.FOLDS_APART``): dotless i, long s,
# the Kelvin sign. A label holding one ("kimlik numarası") is looked for in an ASCII text with the ASCII letter.
_TO_ASCII = str.maketrans({"\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _joined(label: str) -> str:
    """A label's key with its words' joiners left out: "personal_code", "Personal code" and "personalCode" are one."""
    return _JOINERS.sub("", label.casefold())


@cache
def _labels() -> tuple[re.Pattern[str], dict[str, frozenset[str] | None]]:
    """The pattern of every label, and what each (case-folded, and with its joiners left out: ``_joined``) names: its
    schemes, or None for a shared label."""
    named: dict[str, set[str]] = {}
    for module, labels in personal_id_schemes():
        for label in labels:
            named.setdefault(label if _is_acronym(label) else label.casefold(), set()).add(module)
    meaning: dict[str, frozenset[str] | None] = {key: frozenset(modules) for key, modules in named.items()}
    meaning.update((label.casefold(), None) for label in SHARED_LABELS)
    for key, names in list(meaning.items()):
        if not _is_acronym(key):  # two labels joined alike name what both do; a shared one, every scheme
            held = meaning.get(_joined(key), names)
            meaning[_joined(key)] = None if held is None or names is None else held | names
    acronyms = [key for key in named if _is_acronym(key)]
    return _pattern(acronyms, [key for key in meaning if key not in named or not _is_acronym(key)]), meaning


def _words_trie(words: list[str]) -> str:
    """The words (lower case) as one trie-shaped alternation (``word_trie``), each joiner of their words matching any
    (``_JOINER``)."""
    spaced = frozenset(_JOINERS.sub(" ", word) for word in words)
    return alternation(spaced, fold=False).replace(re.escape(" "), _JOINER)


def _pattern(acronyms: list[str], words: list[str]) -> re.Pattern[str]:
    """The words first: a word that opens with an acronym is read whole ("CPR-NUMMER", not "CPR"); no word is a
    shorter reading of an acronym (``tests/guardrails/test_personal_id_records.py``)."""
    return re.compile(
        rf"(?i:(?<!\w)(?:{_words_trie(words)}))"
        rf"|(?<![A-Za-z])(?:{'|'.join(map(re.escape, sorted(acronyms, key=len, reverse=True)))})(?![A-Za-z])"
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
    return _pattern(acronyms, words)


def _pattern_for(text: str) -> re.Pattern[str]:
    return _ascii_pattern() if text.isascii() else _labels()[0]


def _meaning_of(label: str) -> tuple[bool, frozenset[str] | None]:
    """Whether a match of a label pattern is a label, and what it names (``_labels``)."""
    meaning = _labels()[1]
    for key in (label, label.casefold(), _joined(label)):
        if key in meaning:
            return True, meaning[key]
    return False, None  # a letter whose case-folding differs from re's case-blind match is no label


@cache
def _label_scans() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The label pre-filter's searches, each one trie-shaped alternation the regex engine reads in one pass (instead
    of a substring test a word): the acronyms and the record segments' marks as written (``_RECORD_ID_MARKS``), as
    the label pattern matches them; every other label in lower case, in an ASCII text's lower case (the words an
    ASCII text may hold), in any other text case-folded, and case-blind (a text with a letter that folds apart)."""
    acronyms = {label for label in _labels()[1] if _is_acronym(label)}
    words = sorted({label.lower() for label in _labels()[1] if not _is_acronym(label)})
    as_ascii = [word.translate(_TO_ASCII) for word in words]
    return (
        re.compile(alternation(frozenset({*acronyms, *_RECORD_ID_MARKS}), fold=False)),
        re.compile(_words_trie([word for word in as_ascii if word.isascii()])),
        re.compile(_words_trie(words)),
        re.compile(_words_trie(words), re.IGNORECASE),
    )


def _holds_label(text: str) -> bool:
    """Whether any label, or a record segment's mark, occurs in ``text`` (anywhere, the pattern's boundaries left
    out: a superset of ``_pattern_for``'s matches)."""
    marks, in_ascii, in_lower, case_blind = _label_scans()
    if marks.search(text) is not None:
        return True
    if text.isascii():
        return in_ascii.search(text.lower()) is not None
    if not FOLDS_APART.isdisjoint(text):
        return case_blind.search(text) is not None
    return in_lower.search(text.casefold()) is not None  # as the labels' keys are ("ΑΣΦΆΛΙΣΗΣ": "ασφάλισησ")


def may_hold_personal_id(text: str) -> bool:
    """Whether ``text`` holds a candidate and a label: the digits searched first (the regex engine skips to them),
    the labels (``_holds_label``) only then."""
    return (_CANDIDATE.search(text) is not None or "DOC+I" in text) and _holds_label(text)


def _holds_record_id(text: str) -> bool:
    return any(mark in text for mark in _RECORD_ID_MARKS)


def _record_ids(text: str) -> set[int]:
    """Where the identity numbers of ``text``'s record segments start (the module doc: EDIFACT DOC, X12 REF)."""
    found = {match.start("value") for match in _DOC_ID_VALUE.finditer(text)} if "DOC+I" in text else set()
    found.update(start for start, _, code in x12_ref_values(text) if code in _X12_PERSON_QUALIFIERS)
    return found


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
    spans = []
    for window_start, window_end in windows:
        for match in pattern.finditer(text, window_start, window_end):
            is_label, named = _meaning_of(match.group())
            if is_label:
                spans.append((match.start(), match.end(), named))
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
# A jq (or yq) command and the path its filter reads, whose last key names what it prints on the lines below
# ("jq -r '.personal_number' record.json", "yq '.holder.id_code' f.yaml"): the key, up to its filter's end.
_JQ_PATH = re.compile(r"\b[jy]q(?:[ \t]+-[-\w]+)*[ \t]+['\"]?[^'\"\s]*\.(?P<key>[^\W\d][\w-]*)['\"]?(?=[ \t\r]|\Z)")
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
    cell (``columns.header_cell``), the line above when the candidate opens its line, and the last key of a jq filter
    on it when the candidate is alone on its line (the command's output). (An EDIFACT identity card
    segment's value is found apart, ``_record_ids``.)"""
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
            query = _JQ_PATH.search(text, *above) if _holds_jq(text, *above) else None
            if query is not None and not text[end : line[1]].strip():
                zones.append((*query.span("key"), True))  # the value alone on its line, as jq prints it
    return zones


def _holds_jq(text: str, start: int, end: int) -> bool:
    return text.find("jq ", start, end) >= 0 or text.find("yq ", start, end) >= 0


def _far_label(text: str, start: int, end: int, pattern: re.Pattern[str]) -> frozenset[str] | None:
    """What a label of ``_far_label_zones`` names: None if one is shared, else its schemes (empty: none)."""
    schemes: set[str] = set()
    for zone_start, zone_end, at_end in _far_label_zones(text, start, end):
        for match in pattern.finditer(text, zone_start, zone_end):
            is_label, named = _meaning_of(match.group())
            if not is_label or (at_end and not _LABEL_ENDS_LINE.fullmatch(text, match.end(), zone_end)):
                continue
            if named is None:
                return None
            schemes.update(named)
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
        record_ids = _record_ids(text) if _holds_record_id(text) else set()
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
