"""UN/EDIFACT interchanges (ISO 9735): people's names, birth dates and places, by the segment and qualifier that hold
them.

A segment is a tag and its data elements (``NAD+CN+++Surname:Given+Street+City++Postcode+CC'``): elements apart by
``+``, an element's components by ``:``, the segment ended by ``'``; the release character ``?`` makes the next
character a plain one (``O?'Brien``, ``?+44 20 ...``). A service string advice (``UNA:+.? '``) at the head of an
interchange names other characters for the four roles; they are read from it where it stands.

- NAD (name and address): the party name (C080, the fourth element) holds up to five name components
  (``Surname:Given:Middle``), the street (C059, the fifth) up to four street lines, the city name (3164, the sixth)
  and the country subdivision's name (C819's fourth component, the seventh element) are places. A party name that
  ends in a company's legal form (``legal_forms``) is an organisation, no person.
- DTM (date/time/period) whose qualifier (2005) is 329, birth date/time: the date is the second component.
- LOC (place/location identification) whose qualifier (3227) is 180, place of birth: the location's name, C517's
  fourth component (``LOC+180+USA:::NEW YORK'``).
- COM (communication contact): C076's communication address (3148) by its qualifier (3155), EM an e-mail address,
  TE, FX, AL, AJ and AM a telephone (telephone, telefax, cellular, alternate, international direct line):
  ``COM+?+44 20 7946 0958:TE'``, ``COM+ann?+news@example.org:EM'``. The released characters a value holds hide it
  from the e-mail and phone patterns (``?+44``; tldextract reads a "?" in a local part as a URL's query), so the
  slot reports it, where it is an e-mail's or a phone number's shape once the release characters are taken out.

Read only where a segment of these stands with the default separators, or where a service string advice opens the
text (``has_edifact``: a search for a "+", most texts' only cost). The spans are the raw text's, release characters
included.

ASC X12's N4 segment (geographic location, in the 834, 837 and 270/271 transactions) holds a party's city name in
its first element (``N4*ROCKVILLE*MD*20850~``): a place, read here. X12's other person slots (NM1 names, DMG birth
dates, N3 address lines) are read by ``standard_names``, ``date_traditions`` and ``address_slots``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from presidio_analyzer import EntityRecognizer, RecognizerResult

from gateway.guardrails.legal_forms import ends_in_legal_form

EDIFACT_SCORE = 0.85  # the standard says what the slot holds, as for the other record standards' slots
EDIFACT_ENTITIES = ("PERSON", "DATE_OF_BIRTH", "LOCATION", "STREET_ADDRESS", "EMAIL_ADDRESS", "PHONE_NUMBER")
_DEFAULT_SEPARATORS = (":", "+", "?", "'")  # component, element, release, segment terminator (ISO 9735 level A/B)
_BIRTH_DATE = "329"  # UNTDID 2005: birth date/time
_PLACE_OF_BIRTH = "180"  # UNTDID 3227: place of birth
_EMAIL = "EM"  # UNTDID 3155: electronic mail
_TELEPHONES = frozenset({"TE", "FX", "AL", "AJ", "AM"})  # telephone, telefax, cellular, alternate, international
# The values once released: an e-mail address (a local part, a domain with a dot), a phone number (digits and the
# characters that group them, six digits or more).
_EMAIL_SHAPE = re.compile(r"[^@\s]+@[^\W_](?:[\w-]*[^\W_])?(?:\.[^\W_](?:[\w-]*[^\W_])?)+")
_PHONE_SHAPE = re.compile(r"\+?[\d ()./-]*")
_PHONE_MIN_DIGITS = 6
# A span: (start, end) in the raw text; an element: its components' spans.
Span = tuple[int, int]


@lru_cache(maxsize=2)  # asked once per entity type of a text in turn
def has_edifact(text: str) -> bool:
    """The pre-filter: a segment this module reads, with the default element separator, or a service string advice
    that opens the text, or an X12 N4 segment's tag. A "+" is looked for first, alone: a one-character search runs at
    memory speed, and most texts hold none."""
    return (
        ("+" in text and ("NAD+" in text or "DTM+" in text or "LOC+" in text or "COM+" in text))
        or _ADVICE_FIRST.match(text) is not None
        or has_x12_place(text)
    )


_ADVICE_FIRST = re.compile(r"\s*UNA")


def _separators(text: str) -> tuple[str, str, str, str]:
    """The component, element, release and terminator characters: the service string advice's where one stands
    ("UNA" and six characters: component, element, decimal mark, release, reserved, terminator), else the default."""
    head = text.find("UNA")
    if head >= 0 and head + 9 <= len(text):
        advice = text[head + 3 : head + 9]
        if len(set(advice[:2] + advice[3] + advice[5])) == 4 and not any(char.isalnum() for char in advice):
            return advice[0], advice[1], advice[3], advice[5]
    return _DEFAULT_SEPARATORS


_TAGS = ("NAD", "DTM", "LOC", "COM")
_ELEMENTS_READ = 7  # NAD's country subdivision is its seventh data element, the last read here


@lru_cache(maxsize=8)
def _component_pattern(separators: tuple[str, str, str, str]) -> re.Pattern[str]:
    """A component's text: any character but the separators, the release character and a line break, or a released
    character."""
    component, element, release, terminator = separators
    stops = re.escape(component + element + release + terminator)
    return re.compile(rf"(?:[^{stops}\n]|{re.escape(release)}[\s\S])*")


def _segments(text: str, separators: tuple[str, str, str, str]) -> Iterator[tuple[str, list[list[Span]]]]:
    """Each segment of the tags read here, its tag and its elements (the tag left out), each a list of its
    components' spans. A segment opens the text, a line or follows the previous one's terminator, and ends at its
    terminator or the end of its line."""
    component, element, _release, terminator = separators
    pattern = _component_pattern(separators)
    length = len(text)
    for tag in _TAGS:
        head = tag + element
        position = text.find(head)
        while position >= 0:
            before = text[position - 1] if position else "\n"
            index = position + len(head)
            if before in (terminator, "\n", "\r", " ", "\t"):
                elements: list[list[Span]] = []
                components: list[Span] = []
                while True:
                    end = pattern.match(text, index).end()  # type: ignore[union-attr]  # the pattern matches ""
                    if len(elements) < _ELEMENTS_READ:  # the rest is only walked through to the segment's end
                        components.append((index, end))
                    index = end + 1
                    char = text[end] if end < length else terminator
                    if char != component:
                        if len(elements) < _ELEMENTS_READ:
                            elements.append(components)
                            components = []
                        if char != element:
                            break
                yield tag, elements
            # the next segment of the tag past this one's end: a tag inside a segment is its text (and each stretch of
            # the text is read once a tag, whatever it holds)
            position = text.find(head, max(position + 1, index))


def _component(elements: list[list[Span]], element: int, component: int) -> Span | None:
    if element < len(elements) and component < len(elements[element]):
        start, end = elements[element][component]
        return (start, end) if end > start else None
    return None


@lru_cache(maxsize=2)  # asked once per entity type of a text in turn: the text is read once
def edifact_values(text: str) -> tuple[tuple[str, int, int], ...]:
    """Each personal value the segments of an EDIFACT interchange in ``text`` hold (and each X12 N4 city name): its
    entity type and span."""
    found: list[tuple[str, int, int]] = list(x12_places(text)) if has_x12_place(text) else []
    separators = _separators(text)
    for tag, elements in _segments(text, separators):
        # elements[0] is the segment's first data element (its qualifier, for these three)
        qualifier = _component(elements, 0, 0)
        code = text[qualifier[0] : qualifier[1]].strip() if qualifier else ""
        if tag == "NAD":
            found.extend(_party(text, elements))
        elif tag == "DTM" and code == _BIRTH_DATE:
            found.extend(_kept("DATE_OF_BIRTH", text, _component(elements, 0, 1)))
        elif tag == "LOC" and code == _PLACE_OF_BIRTH:
            for index in (1, 2, 3):  # the location, and its first and second related locations: each name is 4th
                found.extend(_kept("LOCATION", text, _component(elements, index, 3)))
        elif tag == "COM":
            found.extend(_contact(text, elements, separators[2]))
    return tuple(found)


def _contact(text: str, elements: list[list[Span]], release: str) -> Iterator[tuple[str, int, int]]:
    """A COM segment's e-mail address or telephone number (C076: the address, then its qualifier)."""
    address, qualifier = _component(elements, 0, 0), _component(elements, 0, 1)
    if address is None or qualifier is None:
        return
    code = text[qualifier[0] : qualifier[1]].strip()
    start, end = _trimmed(text, address)
    value = _released(text[start:end], release)
    if code == _EMAIL and _EMAIL_SHAPE.fullmatch(value):
        yield "EMAIL_ADDRESS", start, end
    elif (code in _TELEPHONES and _PHONE_SHAPE.fullmatch(value)
          and sum(char.isdigit() for char in value) >= _PHONE_MIN_DIGITS):  # fmt: skip
        yield "PHONE_NUMBER", start, end


def _released(value: str, release: str) -> str:
    """The value with each release character taken out (the character after it kept as it is)."""
    if release not in value:
        return value
    out, index = [], 0
    while index < len(value):
        if value[index] == release and index + 1 < len(value):
            index += 1
        out.append(value[index])
        index += 1
    return "".join(out)


def _party(text: str, elements: list[list[Span]]) -> Iterator[tuple[str, int, int]]:
    """A NAD segment's party name components, street lines, city and country subdivision name."""
    names = [span for span in (elements[3] if len(elements) > 3 else [])[:5] if span[1] > span[0]]
    if names and not ends_in_legal_form(" ".join(text[start:end] for start, end in names)):
        for span in names:
            yield from _kept("PERSON", text, span)
    for span in (elements[4] if len(elements) > 4 else [])[:4]:
        yield from _kept("STREET_ADDRESS", text, span)
    yield from _kept("LOCATION", text, _component(elements, 5, 0))
    yield from _kept("LOCATION", text, _component(elements, 6, 3))


def _trimmed(text: str, span: Span) -> Span:
    """The span less its outer spaces."""
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _kept(entity: str, text: str, span: Span | None) -> Iterator[tuple[str, int, int]]:
    """The span less its outer spaces, where it holds a letter (a date: a digit)."""
    if span is None:
        return
    start, end = _trimmed(text, span)
    value = text[start:end]
    if any(char.isdigit() if entity == "DATE_OF_BIRTH" else char.isalpha() for char in value):
        yield entity, start, end


# X12's element separators as the other X12 readers take them; a segment opens a line or follows a terminator ("~").
_X12_N4 = re.compile(r"N4([*|^])([^*|^~\r\n]*)")
_X12_SEGMENT_BEFORE = frozenset("~\n\r \t")


def has_x12_place(text: str) -> bool:
    """An N4 segment's tag, maybe."""
    return "N4" in text


def x12_places(text: str) -> tuple[tuple[str, int, int], ...]:
    """The city name (N401) of each X12 N4 segment in ``text``."""
    found: list[tuple[str, int, int]] = []
    for match in _X12_N4.finditer(text):
        if match.start() and text[match.start() - 1] not in _X12_SEGMENT_BEFORE:
            continue  # inside a word or another segment: no N4 segment
        found.extend(_kept("LOCATION", text, match.span(2)))
    return tuple(found)


class EdifactRecognizer(EntityRecognizer):
    """The people's names, birth dates, places and street lines of UN/EDIFACT segments, by segment and qualifier;
    the city names of X12 N4 segments."""

    def __init__(self) -> None:
        super().__init__(supported_entities=list(EDIFACT_ENTITIES), name="EdifactRecognizer")

    def load(self) -> None:  # nothing to load
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [RecognizerResult(entity, start, end, EDIFACT_SCORE) for entity, start, end in edifact_values(text)
                if entity in entities]  # fmt: skip
