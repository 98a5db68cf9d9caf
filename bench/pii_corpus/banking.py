"""IBANs of every country in python-stdnum's IBAN registry, with correct check digits (and national checks)."""

from __future__ import annotations

import random
import re
import string
from functools import cache
from importlib import resources

from stdnum import iban as stdnum_iban

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split

_STRUCTURE = re.compile(r"(\d+)!([nac])")
_ALPHABETS = {"n": string.digits, "a": string.ascii_uppercase, "c": string.ascii_uppercase + string.digits}


@cache
def bban_structures() -> dict[str, str]:
    """Country code -> BBAN structure (SWIFT registry notation, e.g. ``8!n10!n``) from stdnum's iban.dat."""
    structures = {}
    for line in resources.files("stdnum").joinpath("iban.dat").read_text(encoding="utf-8").splitlines():
        match = re.match(r'^([A-Z]{2}) .*bban="([^"]+)"', line)
        if match:
            structures[match.group(1)] = match.group(2)
    return structures


def _random_iban(country: str, rng: random.Random) -> str:
    bban = "".join(rng.choice(_ALPHABETS[kind]) for count, kind in _STRUCTURE.findall(bban_structures()[country])
                   for _ in range(int(count)))  # fmt: skip
    numeric = int("".join(str(int(char, 36)) for char in bban + country + "00"))
    return f"{country}{98 - numeric % 97:02d}{bban}"


def valid_iban(country: str, rng: random.Random) -> str:
    """A random IBAN that stdnum accepts, national check digits included (Belgium, Spain, Norway, ... retry)."""
    for _ in range(5_000):
        number = _random_iban(country, rng)
        if stdnum_iban.is_valid(number):
            return number
    raise RuntimeError(f"no valid IBAN for {country}")


def iban(rng: random.Random, split: str) -> Pii:
    country = rng.choice(sorted(bban_structures()))
    number = draw_in_split(lambda: valid_iban(country, rng), split)
    if rng.random() < 0.5:
        return Pii("IBAN_CODE", stdnum_iban.format(number), f"iban:{country}:print")
    return Pii("IBAN_CODE", number, f"iban:{country}:electronic")
