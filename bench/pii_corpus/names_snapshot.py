"""The first and last names the corpus draws PERSON values from: a small snapshot of `names-dataset`.

`names_dataset.NameDataset()` reads two pickles of several million names (about 12 s and 2 GB of memory), too much
for a generator that must run in seconds; this module reads it once, keeps each country's most frequent names
written in Latin script (diacritics included: Małgorzata, Wójcik, Müller, Jiménez), and writes them to
``bench/data/pii_names.json`` (about 150 KB), which the generator reads.

    python -m bench.pii_corpus.names_snapshot    # rewrite bench/data/pii_names.json from names-dataset
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

SNAPSHOT = Path(__file__).resolve().parent.parent / "data" / "pii_names.json"
FIRST_NAMES_PER_GENDER = 60
LAST_NAMES = 100
# A name as it is written in running text: a capital, then letters (Latin script, any diacritics), optionally
# joined by one apostrophe or hyphen (O'Brien, Jean-Pierre). Romanised placeholders and initials fail it.
_LATIN_NAME = re.compile(r"^[A-Z\u00C0-\u024F][a-z\u00DF-\u024F]+(?:['\-][A-Z\u00C0-\u024F][a-z\u00DF-\u024F]+)?$")


def is_latin_name(name: str) -> bool:
    """True for a name of at least three letters in Latin script, capitalised as a name is."""
    name = unicodedata.normalize("NFC", name)
    return len(name) >= 3 and bool(_LATIN_NAME.match(name)) and not name.isupper()


def extract() -> dict[str, dict[str, list[str]]]:
    """Per country (ISO alpha-2): its most frequent Latin-script first names (both genders) and last names."""
    from names_dataset import NameDataset

    dataset = NameDataset()
    first = dataset.get_top_names(n=FIRST_NAMES_PER_GENDER, use_first_names=True)
    last = dataset.get_top_names(n=LAST_NAMES, use_first_names=False)
    snapshot = {}
    for country in sorted(set(first) & set(last)):
        first_names = [n for gender in sorted(first[country]) for n in first[country][gender] if is_latin_name(n)]
        last_names = [n for n in last[country] if is_latin_name(n)]
        if len(first_names) >= 20 and len(last_names) >= 20:
            snapshot[country] = {"first": sorted(set(first_names)), "last": sorted(set(last_names))}
    return snapshot


def load() -> dict[str, dict[str, list[str]]]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def main() -> None:
    snapshot = extract()
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.write_text(json.dumps(snapshot, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    names = sum(len(v["first"]) + len(v["last"]) for v in snapshot.values())
    print(f"wrote {SNAPSHOT}: {len(snapshot)} countries, {names} names")


if __name__ == "__main__":
    main()
