"""Names in the fixed formats of records: HL7 v2 patient segments and airline tickets.

Records print a name in a shape of their own, in capitals, with no words around it that NER could read:

* HL7 v2: the extended person name (XPN) of a PID segment's fields 5 (patient name), 6 (mother's maiden name) and
  9 (alias), and of an NK1 segment's field 2 (next of kin): ``FAMILY^GIVEN^MIDDLE^SUFFIX^PREFIX^...``, repetitions
  split by ``~``. The segment says what the field is, so every name with a letter in it counts; the components
  after the prefix (degree, name type code "L") are codes and are left out.
* A ticket or booking record (IATA form): ``FAMILY/GIVEN`` with an optional title after it (``ROMA/HASSIN MR``).
  Capitals around a slash are also pairs of codes and words ("VAT/ID", "DNI/NIE", "READ/WRITE"): a pair counts
  when one side has four letters or more and a title follows it, or its given side holds a known first name
  (names-dataset). The title is not part of the name.
"""

from __future__ import annotations

import re

from presidio_analyzer import AnalysisExplanation, EntityRecognizer, RecognizerResult

from gateway.guardrails.person_names import known_names

HL7_SCORE = 0.85  # the segment's own field: as sure as NER's people
TICKET_SCORE = 0.7
# Fields holding an XPN, per segment (1-based field numbers as HL7 counts them after the segment id).
_XPN_FIELDS = {"PID": (5, 6, 9), "NK1": (2,)}
_SEGMENT = re.compile(r"(?:^|(?<=[\r\n]))(PID|NK1)\|[^\r\n]*")  # segments end in "\r" (or a line break)
_NAME_COMPONENTS = 5  # family, given, middle, suffix, prefix
_LETTER = re.compile(r"[^\W\d_]")

_CAPITAL = "A-ZÀ-ÖØ-Þ"
# FAMILY/GIVEN, each side capitals with inner hyphens or apostrophes, the given name up to three words (a title
# is one of them until it is cut off); no word or slash glued on either side (paths, "A/B/C" lists, dates).
_TICKET = re.compile(
    rf"(?<![\w/])(?P<family>[{_CAPITAL}]+(?:[-'’][{_CAPITAL}]+)*)/(?P<given>[{_CAPITAL}]+(?:[-'’][{_CAPITAL}]+)*"
    rf"(?:[ ][{_CAPITAL}]+(?:[-'’][{_CAPITAL}]+)*){{0,2}})(?![\w/])"
)
_TITLES = frozenset({"MR", "MRS", "MS", "MSTR", "MISS", "DR", "PROF", "CHD", "INF", "MME", "MLLE", "SR", "SRA", "HR",
                     "FR"})  # fmt: skip
_MIN_SIDE_LETTERS = 4
_WORD = re.compile(r"[^\W\d_]+")


def has_record_name_anchor(text: str) -> bool:
    """The pre-filter: an HL7 name segment, or a capital on each side of a slash."""
    return "PID|" in text or "NK1|" in text or _SLASH_BETWEEN_CAPITALS.search(text) is not None


_SLASH_BETWEEN_CAPITALS = re.compile(rf"/(?<=[{_CAPITAL}]/)[{_CAPITAL}]")


def hl7_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each person name in an XPN field of a PID or NK1 segment."""
    spans = []
    for segment in _SEGMENT.finditer(text):
        fields = segment.group().split("|")
        offsets = [segment.start()]
        for field in fields[:-1]:
            offsets.append(offsets[-1] + len(field) + 1)
        for number in _XPN_FIELDS[segment.group(1)]:
            if number >= len(fields):
                continue
            start = offsets[number]
            for repetition in fields[number].split("~"):
                components = repetition.split("^")[:_NAME_COMPONENTS]
                while components and not components[-1]:
                    components.pop()
                if components and _LETTER.search(components[0]):  # a family name: not "^^^" nor an id
                    spans.append((start, start + len("^".join(components))))
                start += len(repetition) + 1
    return spans


def ticket_names(text: str) -> list[tuple[int, int]]:
    """[start, end) of each ``FAMILY/GIVEN`` name, its title left out: with a title after it, any pair with a side
    of four letters or more; without one, such a pair whose given side holds a known first name and whose other
    side is no code (pairs of words: "LONG/SHORT", "READ/WRITE" hold last names, not first names after the slash)."""
    names = known_names()
    spans = []
    for match in _TICKET.finditer(text):
        given_words = match.group("given").split(" ")
        titled = len(given_words) > 1 and given_words[-1] in _TITLES
        while len(given_words) > 1 and given_words[-1] in _TITLES:
            given_words.pop()
        given = " ".join(given_words)
        if max(len(match.group("family")), len(given)) < _MIN_SIDE_LETTERS:
            continue
        if titled or any(len(word) > 1 and names.is_first(word) for word in _WORD.findall(given)):
            spans.append((match.start(), match.start("given") + len(given)))
    return spans


class RecordNameRecognizer(EntityRecognizer):
    """PERSON: names in HL7 v2 name fields and in airline tickets' ``FAMILY/GIVEN`` form."""

    def __init__(self) -> None:
        super().__init__(supported_entities=["PERSON"], name="RecordNameRecognizer")

    def load(self) -> None:
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        results = [self._result(start, end, HL7_SCORE, "hl7 person name") for start, end in hl7_names(text)]
        results += [self._result(start, end, TICKET_SCORE, "ticket name") for start, end in ticket_names(text)]
        return results

    def _result(self, start: int, end: int, score: float, name: str) -> RecognizerResult:
        return RecognizerResult("PERSON", start, end, score, AnalysisExplanation(self.name, score, pattern_name=name))
