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
"""

from __future__ import annotations

import bisect
import importlib
import re
from collections.abc import Callable
from functools import cache

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult
from stdnum.exceptions import InvalidLength, ValidationError
from stdnum.us import ssn

from gateway.guardrails.findings import Finding
from gateway.guardrails.identifiers import NationalIdRecognizer
from gateway.guardrails.personal_id_schemes import checked_schemes, personal_id_schemes
from gateway.guardrails.prefilters import any_word

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
)  # fmt: skip
_DIGITS = "[0-9]"
_CANDIDATE = re.compile(rf"{_DIGITS}(?<![\w+.,/-]{_DIGITS})(?:[ ./-]?{_DIGITS}){{5,16}}"
                        rf"(?:(?P<letters>-?[A-Za-z]{{1,2}})(?![\w]|[./-]\w)|(?![\w]|[./-]\w))")  # fmt: skip
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


# (scheme, letters and digits) a scheme's validator rejected for its length: stdnum checks a compacted number's length
# before anything else, so under a shared label most of the sixty schemes are passed over by a set look-up, not asked
# again. A Czech or Slovak birth number's length is judged with its year (nine digits only before 1954): those two
# are always asked.
_WRONG_LENGTH: set[tuple[str, int]] = set()
_LENGTH_BY_VALUE = frozenset({"cz.rc", "sk.rc"})


def _is_valid(module: str, value: str) -> bool:
    """What the scheme's ``is_valid`` says of ``value``, remembering the lengths it rejects (``_WRONG_LENGTH``)."""
    size = sum(char.isalnum() for char in value)
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
    pattern = re.compile(
        rf"(?<![A-Za-z])(?:{'|'.join(map(re.escape, acronyms))})(?![A-Za-z])"
        rf"|(?i:(?<!\w)(?:{'|'.join(map(re.escape, words))}))"
    )
    return pattern, meaning


def label_words() -> list[str]:
    """Every label in lower case: a text holding none of them (``prefilters.any_word``) holds no labelled number."""
    return sorted({label.lower() for label in _labels()[1]})


@cache
def _label_test() -> Callable[[str], bool]:
    return any_word(label_words())


def _holds_label(text: str) -> bool:
    """Whether any label occurs in ``text`` (substring tests, before any regex)."""
    return _label_test()(text)


def may_hold_personal_id(text: str) -> bool:
    """Whether ``text`` holds a candidate and a label: the digits searched first (the regex engine skips to them),
    the labels by substring tests only then."""
    return _CANDIDATE.search(text) is not None and _holds_label(text)


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


def _label_spans(text: str, windows: list[tuple[int, int]]) -> list[tuple[int, int, frozenset[str] | None]]:
    """Each label in ``text``'s ``windows`` (``_label_windows``: the one alternation of every label costs ~1 us a
    character, so a long text is read only around its candidates): its span and what it names (its schemes; None for
    a shared label)."""
    pattern, meaning = _labels()
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
        spans = _label_spans(text, _label_windows(text, candidates))
        if not spans:
            return results
        starts = [label_start for label_start, _, _ in spans]
        for candidate in candidates:
            start, end = candidate.span()
            if candidate.group("letters") and not any(_is_valid(module, candidate.group()) for module in _validators()):
                end = candidate.start("letters")  # "1234567-ab": the digits alone
            before, after = _reach(text, start, end)
            named = _named_schemes(text, spans, starts, before, start, start, start)
            named_after = _named_schemes(text, spans, starts, end, end, end, after)
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
