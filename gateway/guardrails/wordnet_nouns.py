"""English nouns by the WordNet lexicographer file of their most frequent sense, kept as shipped snapshots.

WordNet sorts every noun sense into a lexicographer file (lexnames(5WN): ``noun.person``, ``noun.artifact``,
``noun.communication``...), and its index lists a lemma's senses most frequent first (ordered by their counts in
WordNet's tagged texts). A detector that asks what a word usually names ("customers" are people, "sprouts" food)
reads a snapshot of the one-word lower-case nouns whose first sense is in the files it cares about
(``record_nouns``, ``person_nouns``), written here from WordNet's own database files.

WordNet 3.0's database ships in Debian's ``wordnet-base`` package (/usr/share/wordnet): ``first_sense_nouns`` reads
its index.noun and data.noun once. WordNet 3.0 Copyright 2006 by Princeton University, all rights reserved; its
licence allows use, copy and distribution with this notice.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path

WORDNET_DIR = Path("/usr/share/wordnet")
# lexnames(5WN): the file numbers of the noun files, in order.
_NOUN_FILES = {3: "noun.Tops", 4: "noun.act", 5: "noun.animal", 6: "noun.artifact", 7: "noun.attribute",
               8: "noun.body", 9: "noun.cognition", 10: "noun.communication", 11: "noun.event", 12: "noun.feeling",
               13: "noun.food", 14: "noun.group", 15: "noun.location", 16: "noun.motive", 17: "noun.object",
               18: "noun.person", 19: "noun.phenomenon", 20: "noun.plant", 21: "noun.possession",
               22: "noun.process", 23: "noun.quantity", 24: "noun.relation", 25: "noun.shape", 26: "noun.state",
               27: "noun.substance", 28: "noun.time"}  # fmt: skip


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


def snapshot_of(wordnet_dir: Path, files: Sequence[str]) -> dict[str, object]:
    """The one-word lower-case nouns (ASCII letters) whose first sense is in one of the lexicographer `files`,
    sorted, with their source."""
    first = first_sense_files(wordnet_dir)
    nouns = sorted(lemma for lemma, file in first.items()
                   if file in files and lemma.isascii() and lemma.isalpha() and lemma.islower())  # fmt: skip
    return {"source": "WordNet 3.0 (Debian wordnet-base's /usr/share/wordnet): one-word nouns whose first sense is in "
                      f"{', '.join(files)}. WordNet 3.0 Copyright 2006 by Princeton University.",
            "nouns": nouns}  # fmt: skip


def read_snapshot(path: Path) -> frozenset[str]:
    """A snapshot's nouns."""
    with gzip.open(path, "rt", encoding="utf-8") as snapshot:
        return frozenset(json.load(snapshot)["nouns"])


def write_snapshot(path: Path, snapshot: dict[str, object]) -> None:
    """`snapshot` as gzipped JSON at `path`, byte for byte the same for the same nouns (no time stamp)."""
    with gzip.GzipFile(path, "wb", mtime=0) as out:
        out.write((json.dumps(snapshot, indent=0) + "\n").encode("utf-8"))
    print(f"wrote {path} ({len(snapshot['nouns'])} nouns)")  # type: ignore[arg-type]
