"""Machine-readable zones of travel documents (ICAO Doc 9303): the holder's name, document number and birth date.

A passport's data page (TD3: two lines of 44 characters), a visa or older ID card (TD2: two of 36) and an ID card
(TD1: three of 30) print the holder's data again in OCR-B for machines: "P<GEOGRIGOLIA<<TAXIR<<<..." and
"BFC6CTODN1GEO6003070M3410060<<<<<<<<<<<<<<06". Filler '<' stands for spaces, so no word-based detector reads the
name ("GRIGOLIA<<TAXIR"), and the birth date is a bare YYMMDD. Each zone is read by its layout and accepted only
where its check digits (weights 7, 3, 1: Doc 9303 part 3, 4.9) hold: the document number's, the birth date's, the
expiry's and the composite one, so a line of capitals and digits that merely looks like a zone is no finding.

The recognizer reads a document's visual inspection zone too (``inspection_zone``): the data page's labelled fields
above the zone, or alone where the zone is cut off. A page's surname that its zone's name field opens with scores as
the zone does.
"""

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from presidio_analyzer import EntityRecognizer, RecognizerResult

from gateway.guardrails.inspection_zone import has_inspection_zone, page_values

MRZ_SCORE = 0.95
PAGE_SCORE = 0.85  # a data page's field, recognised by its labels alone
MRZ_ENTITIES = ("PERSON", "NATIONAL_ID", "DATE_OF_BIRTH")
_WEIGHTS = (7, 3, 1)
_END = r"[ \t]*\r?$"
# TD3: "P" and a type letter or filler, the issuing state, then the name field; the data line below it.
_TD3 = re.compile(
    r"(?m)^[ \t]*P[A-Z<][A-Z<]{3}(?P<name>[A-Z<]{39})" + _END + r"\n[ \t]*"
    r"(?P<number>[A-Z0-9<]{9})(?P<number_check>\d)[A-Z<]{3}(?P<birth>\d{6})(?P<birth_check>\d)[MFX<]"
    r"(?P<expiry>\d{6})(?P<expiry_check>\d)(?P<personal>[A-Z0-9<]{14})(?P<personal_check>[\d<])(?P<composite>\d)" + _END
)
# TD2: the document code, the issuing state and the name field; then the data line.
_TD2 = re.compile(
    r"(?m)^[ \t]*[ACIV][A-Z<][A-Z<]{3}(?P<name>[A-Z<]{31})" + _END + r"\n[ \t]*"
    r"(?P<number>[A-Z0-9<]{9})(?P<number_check>\d)[A-Z<]{3}(?P<birth>\d{6})(?P<birth_check>\d)[MFX<]"
    r"(?P<expiry>\d{6})(?P<expiry_check>\d)(?P<optional>[A-Z0-9<]{7})(?P<composite>\d)" + _END
)
# TD1: the document code, state, number and optional data; birth, sex, expiry, nationality; the name line.
_TD1 = re.compile(
    r"(?m)^[ \t]*[ACI][A-Z<][A-Z<]{3}(?P<number>[A-Z0-9<]{9})(?P<number_check>\d)(?P<optional>[A-Z0-9<]{15})"
    + _END
    + r"\n[ \t]*(?P<birth>\d{6})(?P<birth_check>\d)[MFX<](?P<expiry>\d{6})(?P<expiry_check>\d)[A-Z<]{3}"
    r"(?P<optional2>[A-Z0-9<]{11})(?P<composite>\d)" + _END + r"\n[ \t]*(?P<name>[A-Z<]{30})" + _END
)

# Each layout, and the fields its composite check digit covers, in order (Doc 9303 parts 4-6).
_DATES = ("birth", "birth_check", "expiry", "expiry_check")
_LAYOUTS = (
    (_TD3, ("number", "number_check", *_DATES, "personal", "personal_check")),
    (_TD2, ("number", "number_check", *_DATES, "optional")),
    (_TD1, ("number", "number_check", "optional", *_DATES, "optional2")),
)


def check_digit(field: str) -> int:
    """Doc 9303's check digit: digits as themselves, letters A-Z as 10-35, the filler as 0, weighted 7, 3, 1."""
    total = 0
    for index, char in enumerate(field):
        value = int(char) if char.isdigit() else 0 if char == "<" else ord(char) - ord("A") + 10
        total += value * _WEIGHTS[index % 3]
    return total % 10


@lru_cache(maxsize=2)  # the zone's three detectors (one per entity type) ask it of the same text in turn
def has_zone(text: str) -> bool:
    """The pre-filter: a name field's double filler, which every zone holds, or a data page's name label."""
    return "<<" in text or has_inspection_zone(text)


@dataclass(frozen=True, slots=True)
class ZoneValue:
    entity_type: str
    start: int
    end: int


def _holds(match: re.Match[str], field: str) -> bool:
    return check_digit(match.group(field)) == int(match.group(f"{field}_check"))


def _trimmed(match: re.Match[str], field: str) -> tuple[int, int] | None:
    """A field's span less its filler at either end; None where it holds no character but the filler."""
    start = match.start(field)
    value = match.group(field)
    stripped = value.strip("<")
    if not stripped:
        return None
    offset = value.index(stripped)
    return start + offset, start + offset + len(stripped)


def zone_values(text: str) -> Iterator[ZoneValue]:
    """The name, document number and birth date of each zone in ``text`` whose check digits hold."""
    for layout, composite_fields in _LAYOUTS:
        for match in layout.finditer(text):
            composite = "".join(match.group(field) for field in composite_fields)
            if not (_holds(match, "number") and _holds(match, "birth") and _holds(match, "expiry")
                    and check_digit(composite) == int(match.group("composite"))):  # fmt: skip
                continue
            for entity_type, field in (("PERSON", "name"), ("NATIONAL_ID", "number")):
                span = _trimmed(match, field)
                if span is not None:
                    yield ZoneValue(entity_type, *span)
            yield ZoneValue("DATE_OF_BIRTH", *match.span("birth"))


@lru_cache(maxsize=2)  # the recognizer is asked once per entity type of a text in turn: the text is read once
def document_values(text: str) -> tuple[tuple[str, int, int, float], ...]:
    """Each value of the travel documents in ``text``: its entity type, span and score."""
    zone = list(zone_values(text)) if "<<" in text else []
    # The surnames the zones print, as the zone writes them: "DE LA CRUZ" is "DE<LA<CRUZ" there.
    zone_surnames = {text[value.start : value.end].split("<<")[0] for value in zone if value.entity_type == "PERSON"}
    found = [(value.entity_type, value.start, value.end, MRZ_SCORE) for value in zone]
    for value in page_values(text):
        printed = re.sub(r"[ '’-]+", "<", text[value.start : value.end].upper())
        score = MRZ_SCORE if value.surname and printed in zone_surnames else PAGE_SCORE
        found.append((value.entity_type, value.start, value.end, score))
    return tuple(found)


class MachineReadableZoneRecognizer(EntityRecognizer):
    """The holder's name, document number and birth date of a travel document's machine-readable zone, and the
    names and document number of its data page."""

    def __init__(self) -> None:
        super().__init__(supported_entities=list(MRZ_ENTITIES), name="MachineReadableZoneRecognizer")

    def load(self) -> None:  # nothing to load: a few regexes
        pass

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None) -> list[RecognizerResult]:
        return [RecognizerResult(entity_type, start, end, score) for entity_type, start, end, score
                in document_values(text) if entity_type in entities]  # fmt: skip
