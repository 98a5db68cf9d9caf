"""English nouns whose most frequent WordNet sense is a place ("oakland", "abilene", "tuscaloosa", "area"): with
``proper_nouns`` (written capitalised in every sense), a lower-case word that English writes only as a place's name.

WordNet sorts every noun sense into a lexicographer file; ``noun.location`` holds places (cities, regions, rivers) and
the nouns of space ("area", "region"). The snapshot keeps the one-word lower-case nouns whose most frequent sense (the
first of WordNet's index, ordered by its tagged-text counts) is in that file: "oakland" and "yakima" are there, "plato"
and "gillette" (people) and "cognac" (a drink) are not.

WordNet 3.0's database ships in Debian's ``wordnet-base`` package (/usr/share/wordnet); ``python -m
gateway.guardrails.location_nouns [DIR]`` reads its index.noun and data.noun once (``wordnet_nouns``) and writes
gateway/guardrails/data/location_nouns.json.gz (read at run time by ``location_nouns``). WordNet 3.0 Copyright 2006 by
Princeton University, all rights reserved; its licence allows use, copy and distribution with this notice.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from gateway.guardrails.wordnet_nouns import WORDNET_DIR, read_snapshot, snapshot_of, write_snapshot

SNAPSHOT = Path(__file__).parent / "data" / "location_nouns.json.gz"
LOCATION_FILE = "noun.location"


@cache
def location_nouns() -> frozenset[str]:
    """The one-word English nouns (lower case) whose most frequent WordNet sense is a place (the snapshot's)."""
    return read_snapshot(SNAPSHOT)


def build_snapshot(wordnet_dir: Path = WORDNET_DIR) -> dict[str, object]:
    return snapshot_of(wordnet_dir, (LOCATION_FILE,))


if __name__ == "__main__":
    write_snapshot(SNAPSHOT, build_snapshot(Path(sys.argv[1]) if len(sys.argv) > 1 else WORDNET_DIR))
