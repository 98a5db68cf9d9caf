"""First and last names of countries no other split names (Colombia, El Salvador and Puerto Rico; Luxembourg and
Mauritius; Russia, Georgia and Japan as their people write their names in Latin letters; Cambodia and Macau;
Bahrain and Djibouti), for the tenth dev-side corpus (``dev_tenth``).
They come from names-dataset, like ``far_names``' and ``ninth_names``' (the countries differ), up to rank
``MAX_RANK``, Latin letters only. names-dataset takes seconds and gigabytes to load, so
``python -m bench.pii_corpus.tenth_names`` reads it once and keeps the `dev` half of those names (``partition``), in
rank order, in bench/data/pii_names_tenth.json.gz; nothing of the `test` half is kept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.pii_corpus.far_names import MAX_RANK, usable_latin
from bench.pii_corpus.world_names import extract_names, read_snapshot, write_snapshot

SNAPSHOT = Path(__file__).parent.parent / "data" / "pii_names_tenth.json.gz"
COUNTRIES = {
    "caribbean-hispanic": ("CO", "SV", "PR"),
    "luxembourg-mauritius": ("LU", "MU"),
    "russian-romanised": ("RU",),
    "georgian-romanised": ("GE",),
    "japanese-romanised": ("JP",),
    "khmer-macanese": ("KH", "MO"),
    "gulf-horn": ("BH", "DJ"),
}


def extract() -> dict[str, dict[str, list[str]]]:
    return extract_names(COUNTRIES, usable_latin, MAX_RANK)


@dataclass(frozen=True)
class TenthNames:
    """The snapshot's names by kind ("first_female", "first_male", "last"), then by country."""

    names: dict[str, dict[str, list[str]]]

    def person(self, rng: random.Random) -> tuple[str, str, str, str]:
        """(country, first name, last name, another first name) of a country drawn by group, then by country, of one
        gender (the other first name is a father's, of men: "bin" names take one)."""
        group = rng.choice(sorted(COUNTRIES))
        country = rng.choice(COUNTRIES[group])
        kinds = [kind for kind in ("first_female", "first_male") if self.names[kind][country]]
        first = rng.choice(self.names[rng.choice(kinds)][country])
        fathers = self.names["first_male"][country] or self.names["last"][country]
        return country, first, rng.choice(self.names["last"][country]), rng.choice(fathers)


@cache
def tenth_names() -> TenthNames:
    return TenthNames(read_snapshot(SNAPSHOT))


def main() -> None:
    write_snapshot(SNAPSHOT, extract())


if __name__ == "__main__":
    main()
