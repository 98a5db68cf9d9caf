"""English nouns that, after a place, name data, people or business about it ("Montana records", "Syria invoices",
"Ohio customers", "Texas sales"), not a thing named after it ("Brussels sprouts", "Boston terrier", "Panama hat").

WordNet sorts every noun sense into a lexicographer file: things named after places are artifacts, foods, plants,
animals and substances (``noun.artifact``, ``noun.food``, ``noun.plant``, ``noun.animal``, ``noun.substance``),
while records, people and dealings are ``noun.communication`` ("record", "invoice", "report"), ``noun.person``
("user", "customer", "employee"), ``noun.group`` ("team", "staff", "data"), ``noun.possession`` ("payment",
"sales") and ``noun.act`` ("transaction", "sale"). The snapshot keeps the one-word lower-case nouns whose most
frequent sense (the first of WordNet's index, ordered by its tagged-text counts) is in one of those five files.

WordNet 3.0's database ships in Debian's ``wordnet-base`` package (/usr/share/wordnet); ``python -m
gateway.guardrails.record_nouns [DIR]`` reads its index.noun and data.noun once and writes
gateway/guardrails/data/record_nouns.json.gz (read at run time by ``record_nouns``). WordNet 3.0 Copyright 2006 by
Princeton University, all rights reserved; its licence allows use, copy and distribution with this notice.
"""

from __future__ import annotations

import gzip
import json
import sys
from functools import cache
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "record_nouns.json.gz"
WORDNET_DIR = Path("/usr/share/wordnet")
# WordNet's lexicographer files (lexnames(5WN)) whose nouns name data, people or business about a place.
RECORD_FILES = ("noun.communication", "noun.person", "noun.group", "noun.possession", "noun.act")
# lexnames(5WN): the file numbers of the noun files, in order.
_NOUN_FILES = {3: "noun.Tops", 4: "noun.act", 5: "noun.animal", 6: "noun.artifact", 7: "noun.attribute",
               8: "noun.body", 9: "noun.cognition", 10: "noun.communication", 11: "noun.event", 12: "noun.feeling",
               13: "noun.food", 14: "noun.group", 15: "noun.location", 16: "noun.motive", 17: "noun.object",
               18: "noun.person", 19: "noun.phenomenon", 20: "noun.plant", 21: "noun.possession",
               22: "noun.process", 23: "noun.quantity", 24: "noun.relation", 25: "noun.shape", 26: "noun.state",
               27: "noun.substance", 28: "noun.time"}  # fmt: skip


@cache
def record_nouns() -> frozenset[str]:
    """The one-word English nouns (lower case) whose most frequent WordNet sense names data, people or business
    (``RECORD_FILES``; the snapshot's)."""
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as snapshot:
        return frozenset(json.load(snapshot)["nouns"])


def is_record_plural(word: str) -> bool:
    """Whether a lower-case word is the plural of a ``record_nouns`` noun ("records", "invoices", "users",
    "companies", "sales"): data or people about a place, many of them."""
    if not word.endswith("s") or len(word) < 4:
        return False
    nouns = record_nouns()
    if word.endswith("ies") and word[:-3] + "y" in nouns:
        return True
    return word[:-1] in nouns or (word.endswith("es") and word[:-2] in nouns)


def first_sense_files(wordnet_dir: Path) -> dict[str, str]:
    """Each noun lemma of WordNet's index.noun -> the lexicographer file of its first (most frequent) sense."""
    files: dict[str, str] = {}
    with (wordnet_dir / "data.noun").open(encoding="utf-8") as data:
        for line in data:
            if not line.startswith(" "):
                offset, file_number = line.split(" ", 2)[:2]
                files[offset] = _NOUN_FILES[int(file_number)]
    first: dict[str, str] = {}
    with (wordnet_dir / "index.noun").open(encoding="utf-8") as index:
        for line in index:
            if line.startswith(" "):
                continue
            fields = line.split()
            pointers = int(fields[3])
            offsets = fields[4 + pointers + 2 :]  # after the pointer symbols: sense_cnt, tagsense_cnt, offsets
            first[fields[0]] = files[offsets[0]]
    return first


def build_snapshot(wordnet_dir: Path = WORDNET_DIR) -> dict[str, object]:
    first = first_sense_files(wordnet_dir)
    nouns = sorted(lemma for lemma, file in first.items()
                   if file in RECORD_FILES and lemma.isascii() and lemma.isalpha() and lemma.islower())  # fmt: skip
    return {"source": "WordNet 3.0 (Debian wordnet-base's /usr/share/wordnet): one-word nouns whose first sense is in "
                      f"{', '.join(RECORD_FILES)}. WordNet 3.0 Copyright 2006 by Princeton University.",
            "nouns": nouns}  # fmt: skip


if __name__ == "__main__":
    snapshot = build_snapshot(Path(sys.argv[1]) if len(sys.argv) > 1 else WORDNET_DIR)
    with gzip.GzipFile(SNAPSHOT, "wb", mtime=0) as out:
        out.write((json.dumps(snapshot, indent=0) + "\n").encode("utf-8"))
    print(f"wrote {SNAPSHOT} ({len(snapshot['nouns'])} nouns)")  # type: ignore[arg-type]
