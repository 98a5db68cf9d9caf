"""English nouns that, after a place, name data, people or business about it ("Montana records", "Syria invoices",
"Ohio customers", "Texas sales"), not a thing named after it ("Brussels sprouts", "Boston terrier", "Panama hat").

WordNet sorts every noun sense into a lexicographer file: things named after places are artifacts, foods, plants,
animals and substances (``noun.artifact``, ``noun.food``, ``noun.plant``, ``noun.animal``, ``noun.substance``),
while records, people and dealings are ``noun.communication`` ("record", "invoice", "report"), ``noun.person``
("user", "customer", "employee"), ``noun.group`` ("team", "staff", "data"), ``noun.possession`` ("payment",
"sales") and ``noun.act`` ("transaction", "sale"). The snapshot keeps the one-word lower-case nouns whose most
frequent sense (the first of WordNet's index, ordered by its tagged-text counts) is in one of those five files.

WordNet 3.0's database ships in Debian's ``wordnet-base`` package (/usr/share/wordnet); ``python -m
gateway.guardrails.record_nouns [DIR]`` reads its index.noun and data.noun once (``wordnet_nouns``) and writes
gateway/guardrails/data/record_nouns.json.gz (read at run time by ``record_nouns``). WordNet 3.0 Copyright 2006 by
Princeton University, all rights reserved; its licence allows use, copy and distribution with this notice.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from gateway.guardrails.wordnet_nouns import WORDNET_DIR, read_snapshot, snapshot_of, write_snapshot

SNAPSHOT = Path(__file__).parent / "data" / "record_nouns.json.gz"
# WordNet's lexicographer files (lexnames(5WN)) whose nouns name data, people or business about a place.
RECORD_FILES = ("noun.communication", "noun.person", "noun.group", "noun.possession", "noun.act")


@cache
def record_nouns() -> frozenset[str]:
    """The one-word English nouns (lower case) whose most frequent WordNet sense names data, people or business
    (``RECORD_FILES``; the snapshot's)."""
    return read_snapshot(SNAPSHOT)


def is_record_plural(word: str) -> bool:
    """Whether a lower-case word is the plural of a ``record_nouns`` noun ("records", "invoices", "users",
    "companies", "sales"): data or people about a place, many of them."""
    if not word.endswith("s") or len(word) < 4:
        return False
    nouns = record_nouns()
    if word.endswith("ies") and word[:-3] + "y" in nouns:
        return True
    return word[:-1] in nouns or (word.endswith("es") and word[:-2] in nouns)


def build_snapshot(wordnet_dir: Path = WORDNET_DIR) -> dict[str, object]:
    return snapshot_of(wordnet_dir, RECORD_FILES)


if __name__ == "__main__":
    write_snapshot(SNAPSHOT, build_snapshot(Path(sys.argv[1]) if len(sys.argv) > 1 else WORDNET_DIR))
