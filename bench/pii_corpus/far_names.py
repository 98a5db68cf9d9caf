"""First and last names of countries no other split names (Israel and Iran as their people write their names in
Latin letters, Korea, mainland China, Hong Kong and Taiwan, Lithuania and Estonia, Albania, Malta, Jamaica, Haiti
and Fiji), for the eighth dev-side corpus (``dev_eighth``).

They come from names-dataset, like ``world_names``' (the countries differ), up to rank ``MAX_RANK``; only names in
Latin letters are kept (the dataset holds these countries' names in Hebrew, Persian, Hangul and Han script too, which
the corpus does not write). names-dataset takes seconds and gigabytes to load, so
``python -m bench.pii_corpus.far_names`` reads it once and keeps the `dev` half of those names (``partition``), in
rank order, in bench/data/pii_names_far.json.gz; nothing of the `test` half is kept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.pii_corpus.person_names import in_split, is_written_name
from bench.pii_corpus.world_names import extract_names, read_snapshot, write_snapshot

SNAPSHOT = Path(__file__).parent.parent / "data" / "pii_names_far.json.gz"
# The dataset's lists are noisier further down (nicknames, words, other countries' names): a tighter cut than
# world_names'.
MAX_RANK = 800
COUNTRIES = {
    "hebrew-romanised": ("IL",),
    "persian-romanised": ("IR",),
    "korean": ("KR",),
    "chinese": ("CN", "HK", "TW"),
    "baltic": ("LT", "EE"),
    "balkan-mediterranean": ("AL", "MT"),
    "caribbean-pacific": ("JM", "HT", "FJ"),
}
# Countries whose names are also written family name first ("Kim Minjun", "Chan Siu Ming").
FAMILY_FIRST = ("KR", "CN", "HK", "TW")


def usable_latin(name: str) -> bool:
    """Latin letters only (with their diacritics), one word of three letters or more, of the dev half."""
    latin = all(ord(char) < 0x0250 or 0x1E00 <= ord(char) <= 0x1EFF for char in name)
    return len(name) >= 3 and " " not in name and latin and is_written_name(name) and in_split(name, "dev")


def extract() -> dict[str, dict[str, list[str]]]:
    return extract_names(COUNTRIES, usable_latin, MAX_RANK)


@dataclass(frozen=True)
class FarNames:
    """The snapshot's names by kind ("first_female", "first_male", "last"), then by country."""

    names: dict[str, dict[str, list[str]]]

    def person(self, rng: random.Random) -> tuple[str, str, str]:
        """(country, first name, last name) of a country drawn by group, then by country, of one gender."""
        group = rng.choice(sorted(COUNTRIES))
        country = rng.choice(COUNTRIES[group])
        # Korea's male first names are all in Hangul in the dataset: none kept, so its people drawn are women.
        kinds = [kind for kind in ("first_female", "first_male") if self.names[kind][country]]
        first = rng.choice(self.names[rng.choice(kinds)][country])
        return country, first, rng.choice(self.names["last"][country])


@cache
def far_names() -> FarNames:
    return FarNames(read_snapshot(SNAPSHOT))


def main() -> None:
    write_snapshot(SNAPSHOT, extract())


if __name__ == "__main__":
    main()
