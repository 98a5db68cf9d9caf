"""English nouns of people ("guest", "customer", "passenger", "assignee", "viewer"): a JSON object under such a key
(``"guest": {"name": "MAJD UBAIDAH"}``) is a person's, so its bare ``name`` is the person's name.

WordNet sorts every noun sense into a lexicographer file; ``noun.person`` holds the nouns of people. The snapshot keeps
the one-word lower-case nouns whose most frequent sense (the first of WordNet's index, ordered by its tagged-text
counts) is in that file: "host" and "user" are there, "contact" (an act), "holder" (an artifact) and "agent" are not.

WordNet 3.0's database ships in Debian's ``wordnet-base`` package (/usr/share/wordnet); ``python -m
gateway.guardrails.person_nouns [DIR]`` reads its index.noun and data.noun once (``wordnet_nouns``)
and writes gateway/guardrails/data/person_nouns.json.gz (read at run time by ``person_nouns``). WordNet 3.0 Copyright
2006 by Princeton University, all rights reserved; its licence allows use, copy and distribution with this notice.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

from gateway.guardrails.wordnet_nouns import WORDNET_DIR, read_snapshot, snapshot_of, write_snapshot

SNAPSHOT = Path(__file__).parent / "data" / "person_nouns.json.gz"
PERSON_FILE = "noun.person"


@cache
def person_nouns() -> frozenset[str]:
    """The one-word English nouns (lower case) whose most frequent WordNet sense is a person (the snapshot's)."""
    return read_snapshot(SNAPSHOT)


def build_snapshot(wordnet_dir: Path = WORDNET_DIR) -> dict[str, object]:
    return snapshot_of(wordnet_dir, (PERSON_FILE,))


if __name__ == "__main__":
    write_snapshot(SNAPSHOT, build_snapshot(Path(sys.argv[1]) if len(sys.argv) > 1 else WORDNET_DIR))
