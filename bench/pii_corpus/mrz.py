"""The machine-readable zone of a passport (ICAO Doc 9303, TD3: two lines of 44 characters): names as the zone
spells them (capitals A-Z, ``<`` for spaces, ``<<`` between surname and given names) and its check digits."""

from __future__ import annotations

import datetime as dt
import unicodedata

LINE = 44
NAME_FIELD = 39
# Doc 9303's transliterations of letters that do not simply lose a diacritic (the others do).
_TRANSLITERATIONS = {"Ä": "AE", "Ö": "OE", "Ü": "UE", "ß": "SS", "Å": "AA", "Æ": "AE", "Ø": "OE", "Þ": "TH",
                     "Ð": "D", "Ł": "L", "Œ": "OE", "Ĳ": "IJ"}  # fmt: skip
_WEIGHTS = (7, 3, 1)


def transliterated(name: str) -> str | None:
    """`name` in the zone's letters (spaces and hyphens become ``<``, apostrophes go), or None if a letter has none
    (a name in another script)."""
    out = []
    for char in name.upper():
        if char in _TRANSLITERATIONS:
            out.append(_TRANSLITERATIONS[char])
        elif char in " -":
            out.append("<")
        elif char in "'’":
            continue
        else:
            base = unicodedata.normalize("NFD", char)[0]
            if not ("A" <= base <= "Z"):
                return None
            out.append(base)
    return "".join(out)


def name_field(surname: str, given: str) -> str | None:
    """``SURNAME<<GIVEN<NAMES`` (unpadded), or None if it cannot be written or does not fit the 39 places."""
    last, first = transliterated(surname), transliterated(given)
    if not last or not first:
        return None
    field = f"{last}<<{first}"
    return field if len(field) <= NAME_FIELD else None


def check_digit(field: str) -> str:
    """Doc 9303's check digit: digits as themselves, A-Z as 10-35, ``<`` as 0, weighted 7, 3, 1 in turn, mod 10."""
    total = 0
    for index, char in enumerate(field):
        value = int(char) if char.isdigit() else (ord(char) - 55 if "A" <= char <= "Z" else 0)
        total += value * _WEIGHTS[index % 3]
    return str(total % 10)


def yymmdd(date: dt.date) -> str:
    return f"{date.year % 100:02d}{date.month:02d}{date.day:02d}"


def second_line(number: str, nationality: str, birth: str, sex: str, expiry: str, optional: str) -> str:
    """Line 2: document number, nationality, birth date, sex, expiry date and optional data, each with its check
    digit where the standard gives one, and the composite check digit."""
    number, optional = number.ljust(9, "<"), optional.ljust(14, "<")
    parts = [number + check_digit(number), nationality, birth + check_digit(birth), sex,
             expiry + check_digit(expiry), optional + check_digit(optional)]  # fmt: skip
    line = "".join(parts)
    composite = line[0:10] + line[13:20] + line[21:43]
    return line + check_digit(composite)
