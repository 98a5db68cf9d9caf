"""GEDCOM family trees (GEDCOM 5.5.1, and 7.0's same line grammar): people's names, birth dates, places, addresses.

A GEDCOM file is a list of lines ``level [@xref@] TAG [value]``; a line's level says which line above it belongs to:
``0 @I1@ INDI`` opens an individual's record, ``1 NAME Given /Surname/`` (the surname between slashes) is its name,
``2 GIVN`` and ``2 SURN`` (``NICK``) the name's pieces, ``1 BIRT`` its birth event with ``2 DATE 12 MAR 1961`` and
``2 PLAC Town, County, Country`` (a place's jurisdictions, smallest first). An ``ADDR`` line is an address's first
line (``CONT`` continues it; ``ADR1``-``ADR3`` are its lines, ``CITY``, ``STAE``, ``CTRY`` its town, state and
country). A NAME is a person only in an individual's (``INDI``) or a submitter's (``SUBM``) record: a repository's or
a source's NAME is an organisation's or a product's. A DATE is a birth date only under a birth (``BIRT``).

The tags, levels and cross-references are the file's structure, never a value: ``0 @I1@ INDI`` holds no place,
``1 NOTE follow`` no street. ``without_gedcom_syntax`` drops the other detectors' findings that reach into them.

Lines are read as GEDCOM only in a run of at least two consecutive lines of the grammar, and only in a text that
holds a level-0 record line or a level-1 NAME line with a slash (``has_gedcom``: a search for an "@" and a "/", most
texts' only cost).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache

from presidio_analyzer import EntityRecognizer, RecognizerResult

from gateway.guardrails.findings import Finding

GEDCOM_SCORE = 0.85  # the standard says what the line holds, as for the other record standards' slots
GEDCOM_ENTITIES = ("PERSON", "DATE_OF_BIRTH", "LOCATION", "STREET_ADDRESS")
# A line: its level, an optional cross-reference id, its tag (an underscore opens a vendor's own tag), its value.
_LINE = re.compile(r"[ \t]*(?P<level>\d{1,2})[ \t]+(?:@[^@\s]+@[ \t]+)?(?P<tag>_?[A-Za-z0-9]{1,31})"
                   r"(?:[ \t](?P<value>[^\r\n]*))?\r?")  # fmt: skip
_PERSON_RECORDS = frozenset({"INDI", "SUBM", "?"})  # "?": a record cut from its head
# The pieces of a personal name (GEDCOM 5.5.1 PERSONAL_NAME_PIECES): given names, surname, nickname; vendors' married
# and also-known-as names. Name prefixes and suffixes ("Dr.", "Jr.") and surname prefixes ("van") are no names.
_NAME_PIECES = frozenset({"GIVN", "SURN", "NICK", "_MARNM", "_AKA", "_MARN", "_BIRN"})
_NAME_TAGS = frozenset({"NAME", "ROMN", "FONE", "TRAN"})  # a name, and its romanised, phonetic, translated forms
_ADDRESS_LINES = frozenset({"ADDR", "ADR1", "ADR2", "ADR3"})
_ADDRESS_PLACES = frozenset({"CITY", "STAE", "CTRY"})
# A date's modifiers and calendar escape (5.5.1 DATE_VALUE: "ABT 1961", "BET 1960 AND 1962", "@#DJULIAN@ 3 MAR 1701")
_DATE_HEAD = re.compile(r"(?:(?:ABT|CAL|EST|BEF|AFT|FROM|TO|BET|INT|@#D[A-Z ]+@)[ \t]+)+")
# A generational or academic suffix written after the surname ("Robert /Williams/ Jr."): no part of the name.
_SUFFIX = re.compile(r"(?i)(?:jr|sr|[ivx]{1,4}|esq|phd|md)\.?")
_SURNAME = re.compile(r"(/[^/\n]*/)")


@lru_cache(maxsize=2)  # asked once per entity type of a text in turn, and by the analyzer's filter
def has_gedcom(text: str) -> bool:
    """The pre-filter: a record's line (level 0 and a cross-reference), or a name's line with its surname's slashes.
    Each one-character search ("@", "/") runs at memory speed; the longer one only where it holds."""
    return ("@" in text and "0 @" in text) or ("/" in text and "1 NAME " in text)


def _lines(text: str) -> Iterator[re.Match[str]]:
    """Each line of the grammar in a run of two or more, as its match (a run's first line held until a second one
    follows it)."""
    held: re.Match[str] | None = None
    in_run = False
    position = 0
    while position <= len(text):
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        match = _LINE.fullmatch(text, position, end)
        if match is None:
            held, in_run = None, False
        elif in_run:
            yield match
        elif held is None:
            held = match
        else:
            yield held
            yield match
            held, in_run = None, True
        position = end + 1


@lru_cache(maxsize=2)  # asked once per entity type of a text in turn, and by the analyzer's filter: read once
def gedcom_lines(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[str, int, int], ...]]:
    """The structure of each GEDCOM line in ``text`` (the span of its level, cross-reference and tag), and each value
    the standard says is personal: its entity type and span."""
    structure: list[tuple[int, int]] = []
    values: list[tuple[str, int, int]] = []
    path: list[str] = []  # the tags of the lines above, by level
    for match in _lines(text):
        level, tag = int(match.group("level")), match.group("tag").upper()
        if not path and level:  # a record's lines cut from their record: "?" stands for the record's tag
            path = ["?"] * level
        if level > len(path):  # a level that skips one: not this file's structure
            path = []
            continue
        del path[level:]
        path.append(tag)
        structure.append((match.start(), match.end("tag")))
        value_start = match.start("value")
        if value_start < 0:
            continue
        entity = _entity_of(path)
        if entity is not None:
            values.extend(_values(text, entity, tag, value_start, match.end("value")))
    return tuple(structure), tuple(values)


def _entity_of(path: list[str]) -> str | None:
    """What the value of the line whose tags from level 0 are `path` holds, if it is personal."""
    tag, parents = path[-1], path[:-1]
    if tag == "PLAC" or tag in _ADDRESS_PLACES:
        return "LOCATION"
    if tag in _ADDRESS_LINES or (tag == "CONT" and parents and parents[-1] == "ADDR"):
        return "STREET_ADDRESS"
    in_person = path[0] in _PERSON_RECORDS or (len(path) > 1 and path[1] == "ASSO")
    if in_person and (tag in _NAME_TAGS or (tag in _NAME_PIECES and "NAME" in parents)):
        return "PERSON"
    if tag == "DATE" and parents and parents[-1] == "BIRT" and path[0] in ("INDI", "?"):
        return "DATE_OF_BIRTH"
    return None


def _values(text: str, entity: str, tag: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    value = text[start:end]
    if entity == "DATE_OF_BIRTH":
        head = _DATE_HEAD.match(value)
        offset = head.end() if head else 0
        if any(char.isdigit() for char in value[offset:]):
            yield from _trimmed(entity, text, start + offset, end)
        return
    if entity == "PERSON" and tag != "NICK" and "/" in value:
        # "Given /Surname/ Suffix": the surname between the slashes, the words outside them each a part
        inner = start
        for piece in _SURNAME.split(value):
            if _SURNAME.fullmatch(piece):
                yield from _trimmed(entity, text, inner + 1, inner + len(piece) - 1)
            elif not _SUFFIX.fullmatch(piece.strip(" \t,")):
                yield from _trimmed(entity, text, inner, inner + len(piece))
            inner += len(piece)
        return
    yield from _trimmed(entity, text, start, end)


def _trimmed(entity: str, text: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    while start < end and text[start] in " \t,/":
        start += 1
    while end > start and text[end - 1] in " \t,/":
        end -= 1
    if end > start and any(char.isalnum() for char in text[start:end]):
        yield entity, start, end


def without_gedcom_syntax(text: str, findings: list[Finding]) -> list[Finding]:
    """The findings less those that reach into a GEDCOM line's level, cross-reference or tag (``0 @I1@ INDI`` is no
    place, ``1 NOTE follow`` no street), but for this module's own."""
    if not findings or not has_gedcom(text):
        return findings
    structure = gedcom_lines(text)[0]
    if not structure:
        return findings
    starts = [start for start, _ in structure]
    return [
        finding for finding in findings if finding.source == _NAME or not _reaches_structure(structure, starts, finding)
    ]


def _reaches_structure(structure: tuple[tuple[int, int], ...], starts: list[int], finding: Finding) -> bool:
    """Whether the finding overlaps a line's structure: the spans are in text order and apart, so only the last one
    that starts before the finding's end can (the one before it ends before that one starts)."""
    index = bisect_right(starts, finding.end - 1) - 1
    return index >= 0 and structure[index][1] > finding.start


_NAME = "GedcomRecognizer"


class GedcomRecognizer(EntityRecognizer):
    """The people's names, birth dates, places and addresses of a GEDCOM family tree, by the tags of their lines."""

    def __init__(self) -> None:
        super().__init__(supported_entities=list(GEDCOM_ENTITIES), name=_NAME)

    def load(self) -> None:  # nothing to load: one regex
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [RecognizerResult(entity, start, end, GEDCOM_SCORE) for entity, start, end in gedcom_lines(text)[1]
                if entity in entities]  # fmt: skip
