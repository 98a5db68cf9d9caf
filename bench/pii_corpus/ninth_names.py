"""First and last names of countries no other split names (Peru, Bolivia and Ecuador; Mexico, Guatemala, Honduras,
Costa Rica and Panama; Brazil; Uruguay; Iceland; Greece and Cyprus, and Bulgaria, as their people write their names
in Latin letters), for the ninth dev-side corpus (``dev_ninth``).
They come from names-dataset, like ``far_names``' (the countries differ), up to rank ``MAX_RANK``, Latin letters
only. names-dataset takes seconds and gigabytes to load, so ``python -m bench.pii_corpus.ninth_names`` reads it once
and keeps the `dev` half of those names (``partition``), in rank order, in bench/data/pii_names_ninth.json.gz;
nothing of the `test` half is kept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.pii_corpus.far_names import MAX_RANK, usable_latin
from bench.pii_corpus.world_names import extract_names, read_snapshot, write_snapshot

SNAPSHOT = Path(__file__).parent.parent / "data" / "pii_names_ninth.json.gz"
COUNTRIES = {
    "andean": ("PE", "BO", "EC"),
    "mexican-central-american": ("MX", "GT", "HN", "CR", "PA"),
    "brazilian": ("BR",),
    "rioplatense": ("UY",),
    "icelandic": ("IS",),
    "greek-cypriot": ("GR", "CY"),
    "bulgarian": ("BG",),
}


def extract() -> dict[str, dict[str, list[str]]]:
    return extract_names(COUNTRIES, usable_latin, MAX_RANK)


@dataclass(frozen=True)
class NinthNames:
    """The snapshot's names by kind ("first_female", "first_male", "last"), then by country."""

    names: dict[str, dict[str, list[str]]]

    def person(self, rng: random.Random) -> tuple[str, str, str, str]:
        """(country, first name, last name, a second last name) of a country drawn by group, then by country, of
        one gender."""
        group = rng.choice(sorted(COUNTRIES))
        country = rng.choice(COUNTRIES[group])
        first = rng.choice(self.names[rng.choice(["first_female", "first_male"])][country])
        lasts = self.names["last"][country]
        return country, first, rng.choice(lasts), rng.choice(lasts)


@cache
def ninth_names() -> NinthNames:
    return NinthNames(read_snapshot(SNAPSHOT))


def main() -> None:
    write_snapshot(SNAPSHOT, extract())


if __name__ == "__main__":
    main()
