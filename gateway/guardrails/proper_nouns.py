"""English nouns that WordNet writes capitalised in every sense ("samuel", "tristan", "esther", "berit"), kept as a
shipped snapshot.

The English dictionary the name rules read (the NER model's lemma index, WordNet's noun index) is lower case: it
holds "samuel" and "coffee" alike, though WordNet lists Samuel as a person (the prophet) and no sense of "samuel" is
a common noun. A lower-case word English writes only as a proper noun is no ordinary English word: where a name
list holds it as a given name, chat typed in lower case writes the name ("tell samuel happy birthday"), not a word of
the dictionary. WordNet's data.noun writes each lemma of a synset with its case ("Samuel", "coffee", "Mark" and
"mark"), so a lemma none of whose senses is written in lower case is a proper noun only.

WordNet 3.0's database ships in Debian's ``wordnet-base`` package (/usr/share/wordnet); ``python -m
gateway.guardrails.proper_nouns [DIR]`` reads its data.noun once and writes gateway/guardrails/data/proper_nouns.json.gz
(read at run time by ``proper_nouns``): the one-word lemmas of ASCII letters, case-folded. WordNet 3.0 Copyright 2006
by Princeton University, all rights reserved; its licence allows use, copy and distribution with this notice.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

from gateway.guardrails.wordnet_nouns import WORDNET_DIR, read_snapshot, write_snapshot

SNAPSHOT = Path(__file__).parent / "data" / "proper_nouns.json.gz"
_LEMMA = re.compile(r"[A-Za-z]+")  # one word of letters: no collocation ("New_York"), hyphen or period


@cache
def proper_nouns() -> frozenset[str]:
    """The one-word English nouns (case-folded) that WordNet writes capitalised in all their senses (the
    snapshot's)."""
    return read_snapshot(SNAPSHOT)


def _lemmas_as_written(wordnet_dir: Path) -> dict[str, set[str]]:
    """Each one-word noun lemma of data.noun, case-folded -> the forms it is written in across its synsets."""
    written: defaultdict[str, set[str]] = defaultdict(set)
    with (wordnet_dir / "data.noun").open(encoding="utf-8") as data:
        for line in data:
            if line.startswith(" "):
                continue  # the licence header
            fields = line.split(" ")
            count = int(fields[3], 16)  # w_cnt, two hexadecimal digits; then a word and its lex_id per word
            for word in fields[4 : 4 + 2 * count : 2]:
                if _LEMMA.fullmatch(word):
                    written[word.casefold()].add(word)
    return written


def build_snapshot(wordnet_dir: Path = WORDNET_DIR) -> dict[str, object]:
    nouns = sorted(lemma for lemma, forms in _lemmas_as_written(wordnet_dir).items()
                   if all(form[0].isupper() for form in forms))  # fmt: skip
    return {"source": "WordNet 3.0 (Debian wordnet-base's /usr/share/wordnet): one-word nouns of data.noun written "
                      "capitalised in every synset, case-folded. WordNet 3.0 Copyright 2006 by Princeton University.",
            "nouns": nouns}  # fmt: skip


if __name__ == "__main__":
    write_snapshot(SNAPSHOT, build_snapshot(Path(sys.argv[1]) if len(sys.argv) > 1 else WORDNET_DIR))
