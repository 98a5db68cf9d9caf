"""First and last names that Warden's name gazetteer does not hold, for the fifth dev-side corpus (``dev_fifth``).

The gazetteer (``gateway.guardrails.person_names``) keeps names-dataset's ``FIRST_NAMES_PER_GENDER`` most frequent
first names per country and gender and its ``LAST_NAMES`` most frequent last names. The names kept here are those of
ranks past that cut, up to ``MAX_RANK``, that are in no country's kept list: real names a detector can only find
from the words and the shape around them, never from its list. names-dataset takes seconds and gigabytes to load,
so ``python -m bench.pii_corpus.rare_names`` reads it once and keeps the `dev` half of those names (``partition``),
in rank order, in bench/data/pii_names_rare.json.gz; nothing of the `test` half is kept.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.pii_corpus.person_names import in_split, is_written_name
from bench.pii_corpus.world_names import read_snapshot, write_snapshot
from gateway.guardrails.person_names import FIRST_NAMES_PER_GENDER, LAST_NAMES, known_names

SNAPSHOT = Path(__file__).parent.parent / "data" / "pii_names_rare.json.gz"
MAX_RANK = 3000
MIN_COUNTRIES = 2
# Countries of every continent whose names are written in Latin script, the big-list ones (US, GB) included:
# what is rare there is as unseen as anywhere.
COUNTRIES = ("US", "GB", "IE", "CA", "NL", "BE", "PL", "CZ", "IT", "PT", "BR", "TR", "SE", "NO", "DK", "FI", "PH",
             "IN", "MX", "AR", "CL", "PE", "HU", "ID", "MY", "NG", "GH", "ZA", "FR", "DE", "ES", "AT",
             "CH")  # fmt: skip


def _usable(name: str) -> bool:
    latin = all(ord(char) < 0x0250 or 0x1E00 <= ord(char) <= 0x1EFF for char in name)
    return len(name) >= 3 and " " not in name and latin and is_written_name(name) and in_split(name, "dev")


def _countries_listing(by_country: dict) -> Counter[str]:
    """How many countries list each name (a country's list: its names, or its names by gender)."""
    counts: Counter[str] = Counter()
    for names in by_country.values():
        lists = names.values() if isinstance(names, dict) else [names]
        counts.update({name for listed in lists for name in listed})
    return counts


def extract() -> dict[str, dict[str, list[str]]]:
    from names_dataset import NameDataset

    dataset = NameDataset()
    first = dataset.get_top_names(n=MAX_RANK, use_first_names=True)
    last = dataset.get_top_names(n=MAX_RANK, use_first_names=False)
    listed = known_names()
    spread = _countries_listing(first) + _countries_listing(last)

    def rare(names: list[str], cut: int, is_listed) -> list[str]:
        return [n for n in names[cut:] if _usable(n) and not is_listed(n) and spread[n] >= MIN_COUNTRIES]

    return {
        "first_female": {c: rare(first.get(c, {}).get("F", []), FIRST_NAMES_PER_GENDER, listed.is_name)
                         for c in COUNTRIES},
        "first_male": {c: rare(first.get(c, {}).get("M", []), FIRST_NAMES_PER_GENDER, listed.is_name)
                       for c in COUNTRIES},
        "last": {c: rare(last.get(c, []), LAST_NAMES, listed.is_name) for c in COUNTRIES},
    }  # fmt: skip


@dataclass(frozen=True)
class RareNames:
    """The snapshot's names by kind ("first_female", "first_male", "last"), then by country."""

    names: dict[str, dict[str, list[str]]]

    def person(self, rng: random.Random) -> tuple[str, str, str]:
        """(country, first name, last name), both off the gazetteer, of one country and one gender."""
        country = rng.choice([c for c in COUNTRIES if self.names["last"].get(c) and self.names["first_male"].get(c)
                              and self.names["first_female"].get(c)])  # fmt: skip
        first = rng.choice(self.names[rng.choice(["first_female", "first_male"])][country])
        return country, first, rng.choice(self.names["last"][country])


@cache
def rare_names() -> RareNames:
    return RareNames(read_snapshot(SNAPSHOT))


def main() -> None:
    write_snapshot(SNAPSHOT, extract())


if __name__ == "__main__":
    main()
