"""First and last names of the twenty-fifth dev-side corpus (``dev_twentyfifth``): names-dataset's most frequent
names of the countries whose people write English, French, Spanish, German, Italian, Portuguese and Dutch, and of a
dozen countries whose people live among them (North and West Africa, Turkey, Central Europe, Sweden, India, the
Philippines), in Latin letters.

names-dataset takes seconds and gigabytes to load, so ``python -m bench.pii_corpus.twentyfifth_names`` reads it once
and keeps the `dev` half of those names (``partition``), in rank order, in bench/data/pii_names_twentyfifth.json.gz;
nothing of the `test` half is kept.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from bench.pii_corpus.person_names import in_split, is_written_name
from bench.pii_corpus.world_names import extract_names, read_snapshot, write_snapshot

SNAPSHOT = Path(__file__).parent.parent / "data" / "pii_names_twentyfifth.json.gz"
MAX_RANK = 1200
# Countries by the language their people write (``elsewhere``: people who live among them and write theirs).
COUNTRIES = {
    "en": ("US", "GB", "IE", "CA"),
    "fr": ("FR", "BE", "CH"),
    "es": ("ES", "MX", "AR", "CO", "CL", "PE"),
    "de": ("DE", "AT"),
    "it": ("IT",),
    "pt": ("PT", "BR"),
    "nl": ("NL",),
    "elsewhere": ("MA", "DZ", "TN", "NG", "TR", "PL", "HU", "HR", "IN", "PH", "SE"),
}


def _usable(name: str) -> bool:
    # One name in Latin letters (Latin Extended Additional's marked letters too), three letters or more, of `dev`.
    latin = all(ord(char) < 0x0250 or 0x1E00 <= ord(char) <= 0x1EFF for char in name)
    return len(name) >= 3 and " " not in name and latin and is_written_name(name) and in_split(name, "dev")


def extract() -> dict[str, dict[str, list[str]]]:
    return extract_names(COUNTRIES, _usable, MAX_RANK)


@cache
def twentyfifth_names() -> dict[str, dict[str, list[str]]]:
    """The snapshot's names by kind ("first_female", "first_male", "last"), then by country, in rank order."""
    return read_snapshot(SNAPSHOT)


def main() -> None:
    write_snapshot(SNAPSHOT, extract())


if __name__ == "__main__":
    main()
