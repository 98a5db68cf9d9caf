"""First and last names of many countries (names-dataset), for confirming and extending NER's PERSON spans.

`names_dataset.NameDataset()` reads two pickles of several million names (about 12 s and 2 GB of memory): too much
for a gateway's start. ``python -m gateway.guardrails.person_names`` reads it once and keeps, per country, the
``FIRST_NAMES_PER_GENDER`` most frequent first names of each gender and the ``LAST_NAMES`` most frequent last names
written in a cased script (Latin with any diacritics, Greek, Cyrillic), in gateway/guardrails/data/person_names.json.gz
(read at run time by ``known_names``), and which of those first names are common given names: among the
``GIVEN_NAMES_PER_GENDER`` most frequent of a gender in some country, and among the ``ENGLISH_GIVEN_NAMES_PER_GENDER``
of the English-speaking countries (``chat_names`` reads a lower-case word alone as a name only then).

A country's top first names hold the words its records mistype or misfile as names ("The", "All", "Main", "Per",
"Best", "Welcome"): in English text those open sentences, headings and labels ("The ID card shows ...", "Main
Street"), so a first name that is an English stop word, or an English adjective or adverb of four letters or more
(the model's lemmatizer index), is left out unless the English-speaking countries' own top first names hold it
("Will", "May", "Grace", "Mark" stay). Shorter ones stay too: they are romanised East-Asian given names ("Won",
"Xi", "Gu") as often as words. Those left out that are common given names of some country (among its
``GIVEN_NAMES_PER_GENDER`` most frequent of a gender: Scandinavian "Per") are kept apart, as ``stop_given``: a name
in capitals before a family name ("PER HANSEN"), where the case says nothing.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).parent / "data" / "person_names.json.gz"
FIRST_NAMES_PER_GENDER = 1000
LAST_NAMES = 1000
# A common given name: among a country's most frequent first names of a gender (``chat_names`` reads a lower-case
# word as a name by itself only then), and those of the English-speaking countries (where an English noun may be one:
# "karen", "shannon").
GIVEN_NAMES_PER_GENDER = 200
ENGLISH_GIVEN_NAMES_PER_GENDER = 100
# Countries whose first names may be English words: where an English word is a given name, these lists show it.
ENGLISH_SPEAKING = ("US", "GB", "CA", "AU", "IE", "NZ")
MIN_WORD_LETTERS = 4  # shorter adjectives stay first names (see the module's docstring)
# A name as written in running text: a capital, then lower-case letters of a cased script, optionally joined by one
# apostrophe or hyphen (O'Brien, Jean-Pierre). Initials, all-caps and romanisation placeholders fail it.
_NAME = re.compile(r"^[^\W\d_][^\W\d_]+(?:['\-][^\W\d_][^\W\d_]+)?$")


def _cased_name(name: str) -> bool:
    name = unicodedata.normalize("NFC", name)
    return (len(name) >= 2 and bool(_NAME.match(name)) and name[0].isupper() and not name.isupper()
            and all(ord(char) < 0x0530 for char in name))  # fmt: skip


@dataclass(frozen=True)
class KnownNames:
    """Case-folded first and last names, and the common given names among the first (``GIVEN_NAMES_PER_GENDER``,
    ``ENGLISH_GIVEN_NAMES_PER_GENDER``)."""

    first: frozenset[str]
    last: frozenset[str]
    given: frozenset[str] = frozenset()
    given_english: frozenset[str] = frozenset()
    stop_given: frozenset[str] = frozenset()

    def is_first(self, word: str) -> bool:
        return word.casefold() in self.first

    def is_last(self, word: str) -> bool:
        return word.casefold() in self.last

    def is_name(self, word: str) -> bool:
        folded = word.casefold()
        return folded in self.first or folded in self.last


@cache
def known_names() -> KnownNames:
    data = json.loads(gzip.decompress(SNAPSHOT.read_bytes()).decode("utf-8"))
    keys = ("first", "last", "given", "given_english", "stop_given")
    return KnownNames(*(frozenset(name.casefold() for name in data.get(key, [])) for key in keys))


def _english_words() -> frozenset[str]:
    """English stop words, and the adjectives and adverbs of four letters or more that the NER model's lemmatizer
    indexes (``ner.SPACY_MODEL``), lower case."""
    import spacy
    from spacy.lang.en.stop_words import STOP_WORDS

    from gateway.guardrails.ner import SPACY_MODEL

    lemmatizer: Any = spacy.load(SPACY_MODEL).get_pipe("lemmatizer")  # get_pipe is typed as any callable
    index = lemmatizer.lookups.get_table("lemma_index")
    modifiers = {word for pos in ("adj", "adv") for word in index.get(pos, [])
                 if "_" not in word and len(word) >= MIN_WORD_LETTERS}  # fmt: skip
    return frozenset(STOP_WORDS) | frozenset(modifiers)


def extract() -> dict[str, list[str]]:
    from names_dataset import NameDataset

    dataset = NameDataset()
    first = dataset.get_top_names(n=FIRST_NAMES_PER_GENDER, use_first_names=True)
    common_given = {n.casefold() for by_gender in first.values() for names in by_gender.values()
                    for n in names[:GIVEN_NAMES_PER_GENDER]}  # fmt: skip
    english_common_given = {n.casefold() for country in ENGLISH_SPEAKING
                            for by_gender in dataset.get_top_names(n=ENGLISH_GIVEN_NAMES_PER_GENDER,
                                                                   use_first_names=True,
                                                                   country_alpha2=country).values()
                            for names in by_gender.values() for n in names}  # fmt: skip
    last = dataset.get_top_names(n=LAST_NAMES, use_first_names=False)
    english_given = {n.casefold() for country in ENGLISH_SPEAKING
                     for by_gender in dataset.get_top_names(n=FIRST_NAMES_PER_GENDER, use_first_names=True,
                                                            country_alpha2=country).values()
                     for names in by_gender.values() for n in names}  # fmt: skip
    english_words = _english_words()
    first_names = {n for by_gender in first.values() for names in by_gender.values() for n in names
                   if _cased_name(n) and (n.casefold() not in english_words or n.casefold() in english_given)}
    last_names = {n for names in last.values() for n in names if _cased_name(n)}
    given = {n for n in first_names if n.casefold() in common_given}
    given_english = {n for n in given if n.casefold() in english_common_given}
    stop_given = {n for by_gender in first.values() for names in by_gender.values()
                  for n in names[:GIVEN_NAMES_PER_GENDER]
                  if _cased_name(n) and n.casefold() in english_words
                  and n.casefold() not in english_given}  # fmt: skip
    return {"first": sorted(first_names), "last": sorted(last_names), "given": sorted(given),
            "given_english": sorted(given_english), "stop_given": sorted(stop_given)}  # fmt: skip


def main() -> None:
    names = extract()
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    body = json.dumps(names, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    SNAPSHOT.write_bytes(gzip.compress(body, mtime=0))
    first, given, last = (len(names[key]) for key in ("first", "given", "last"))
    print(f"wrote {SNAPSHOT}: {first} first names ({given} common given names), {last} last names")


if __name__ == "__main__":
    main()
