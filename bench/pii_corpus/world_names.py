"""First and last names of countries the main corpus hardly names (South and South-East Asia, Africa, the Turkic
and Arabic-speaking countries, Slavic countries that write diacritics), for the third dev-side corpus (``dev_third``).

They come from names-dataset, whose top 1,000 names per country and gender are also what Warden's gazetteer keeps
(``gateway.guardrails.person_names``): the ranks drawn here reach past that (up to ``MAX_RANK``), so about a sixth of
the names are ones the gazetteer does not hold. names-dataset takes seconds and gigabytes to load, so
``python -m bench.pii_corpus.world_names`` reads it once and keeps the `dev` half of those names (``partition``),
in rank order, in bench/data/pii_names_world.json.gz; nothing of the `test` half is kept.
"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bench.pii_corpus.person_names import in_split, is_written_name

SNAPSHOT = Path(__file__).parent.parent / "data" / "pii_names_world.json.gz"
MAX_RANK = 1200
COUNTRIES = {
    "south-asia": ("IN", "BD", "AF", "MV"),
    "south-east-asia": ("ID", "MY", "PH", "BN", "SG"),
    "africa": ("NG", "GH", "ET", "ZA", "CM", "BW", "NA", "AO", "BF", "BI"),
    "turkic": ("TR", "AZ", "KZ", "TM"),
    "arabic": ("EG", "MA", "DZ", "TN", "SA", "AE", "JO", "IQ", "KW", "QA", "OM", "LB", "PS", "SY", "YE", "LY", "SD"),
    "slavic": ("CZ", "RS", "HR", "SI", "PL", "MD"),
}


def _usable(name: str) -> bool:
    # One name as running text writes it, in a cased script, of the dev half; three letters at least (the
    # dataset's shortest entries are mostly initials and nicknames: "Dk", "Aj").
    return len(name) >= 3 and " " not in name and is_written_name(name) and in_split(name, "dev")


def extract() -> dict[str, dict[str, list[str]]]:
    return extract_names(COUNTRIES, _usable)


def extract_names(countries_by_group: dict[str, tuple[str, ...]], usable: Callable[[str], bool],
                  max_rank: int = MAX_RANK) -> dict[str, dict[str, list[str]]]:
    """names-dataset's top first (by gender) and last names of these countries that ``usable`` keeps."""
    from names_dataset import NameDataset

    dataset = NameDataset()
    first = dataset.get_top_names(n=max_rank, use_first_names=True)
    last = dataset.get_top_names(n=max_rank, use_first_names=False)
    countries = [country for group in countries_by_group.values() for country in group]
    return {
        "first_female": {c: [n for n in first.get(c, {}).get("F", []) if usable(n)] for c in countries},
        "first_male": {c: [n for n in first.get(c, {}).get("M", []) if usable(n)] for c in countries},
        "last": {c: [n for n in last.get(c, []) if usable(n)] for c in countries},
    }


@dataclass(frozen=True)
class WorldNames:
    """The snapshot's names by kind ("first_female", "first_male", "last"), then by country."""

    names: dict[str, dict[str, list[str]]]

    def person(self, rng: random.Random) -> tuple[str, str, str]:
        """(country, first name, last name) of a country drawn by group, then by country, of one gender."""
        group = rng.choice(sorted(COUNTRIES))
        country = rng.choice([c for c in COUNTRIES[group] if self.names["last"].get(c)])
        first = rng.choice(self.names[rng.choice(["first_female", "first_male"])][country])
        # The dataset holds a country's names in several scripts (Latin and Cyrillic in Kazakhstan); a person's
        # first and last names are written in one.
        lasts = [name for name in self.names["last"][country] if _script(name) == _script(first)]
        return country, first, rng.choice(lasts or self.names["last"][country])


def _script(name: str) -> str:
    return "cyrillic" if any("\u0400" <= char <= "\u04ff" for char in name) else "latin"


@cache
def world_names() -> WorldNames:
    return WorldNames(read_snapshot(SNAPSHOT))


def read_snapshot(path: Path) -> dict[str, dict[str, list[str]]]:
    loaded: dict[str, dict[str, list[str]]] = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    return loaded


def write_snapshot(path: Path, names: dict[str, dict[str, list[str]]]) -> None:
    """Byte-stable (sorted keys, no gzip timestamp), so a regenerated snapshot differs only where the data does."""
    body = json.dumps(names, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
    path.write_bytes(gzip.compress(body, mtime=0))
    print(f"wrote {path}: " + ", ".join(f"{kind} {sum(map(len, by.values()))}" for kind, by in names.items()))


def main() -> None:
    write_snapshot(SNAPSHOT, extract())


if __name__ == "__main__":
    main()
