"""Place names that are a stop word of some language ("vara", Swedish for "be" and Romanian for "summer"; "lima",
Indonesian and Tagalog for "five"; "como"): written in lower case, such a word is that word far more often than the
place, in whatever language the text is, so the gazetteer does not read it as a place in lower case.

The stop words are every language's that spaCy ships (``spacy.lang.*.stop_words``: some seventy languages, Tagalog,
Romanian, Latvian, Swedish and Indonesian among them), kept where they are a one-word gazetteer name. Importing every
language's module takes half a minute, so ``python -m gateway.guardrails.place_stop_words`` reads them once and writes
gateway/guardrails/data/place_stop_words.json (read at run time by ``place_stop_words``).

The same snapshot keeps the one-word gazetteer names that are a common given name where English is written
(``place_given_names``: among the ``person_names.FIRST_NAMES_PER_GENDER`` most frequent first names of each gender
that names-dataset gives for the English-speaking countries, ``person_names.ENGLISH_SPEAKING``): "jordan", "chad",
"georgia", "paris", "austin", not "florida", "nebraska" or "ethiopia". Typed in lower case with no location word
("k jordan", "ok georgia then"), such a name is a person as often as the place; a country's or a large city's name
that is some other country's first name only now and then ("Nebraska" in Ecuador, "Ethiopia" in Lebanon) is the
place. Reading names-dataset takes a dozen seconds and 2 GB, so the snapshot keeps the few hundred names.

It also keeps, for each such stop word and each one-word location word of ``places._CUES``, the languages whose stop
word it is (``stop_word_languages``): right after a location word of no language the name is a stop word of ("to
bari", "in como": Turkish "at least", Spanish "as"), the name is no word of the sentence's language and is the place.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from functools import cache
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "place_stop_words.json"


@cache
def place_stop_words() -> frozenset[str]:
    """The one-word gazetteer names (case-folded) that are a stop word of some language (the snapshot's)."""
    return frozenset(json.loads(SNAPSHOT.read_text(encoding="utf-8"))["words"])


@cache
def place_given_names() -> frozenset[str]:
    """The one-word gazetteer names (case-folded) that are a common given name of the English-speaking countries
    (the snapshot's)."""
    return frozenset(json.loads(SNAPSHOT.read_text(encoding="utf-8"))["given_names"])


@cache
def stop_word_languages() -> dict[str, frozenset[str]]:
    """The languages (spaCy's codes) whose stop word each place stop word and each location word is (the
    snapshot's)."""
    languages = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["languages"]
    return {word: frozenset(codes) for word, codes in languages.items()}


def english_given_names() -> frozenset[str]:
    """names-dataset's most frequent first names of each gender of the English-speaking countries, case-folded."""
    from names_dataset import NameDataset

    from gateway.guardrails.person_names import ENGLISH_SPEAKING, FIRST_NAMES_PER_GENDER

    dataset = NameDataset()
    return frozenset(name.casefold() for country in ENGLISH_SPEAKING
                     for by_gender in dataset.get_top_names(n=FIRST_NAMES_PER_GENDER, use_first_names=True,
                                                            country_alpha2=country).values()
                     for names in by_gender.values() for name in names)  # fmt: skip


def every_stop_word() -> dict[str, set[str]]:
    """Every language's stop words that spaCy ships -> the languages whose stop word each is."""
    import spacy.lang

    languages: dict[str, set[str]] = {}
    for module in pkgutil.iter_modules(spacy.lang.__path__):
        if not module.ispkg:
            continue
        try:
            stop_words = importlib.import_module(f"spacy.lang.{module.name}.stop_words").STOP_WORDS
        except (ImportError, AttributeError):  # a language without a stop-word list, or one needing a tokenizer
            continue
        for word in stop_words:
            languages.setdefault(word.casefold(), set()).add(module.name)
    return languages


def build_snapshot() -> dict[str, object]:
    from gateway.guardrails.places import _CUES, cued_towns, gazetteer

    names = {key for key in (*gazetteer(), *cued_towns()) if " " not in key}
    stop_words = every_stop_word()
    words = sorted(word for word in stop_words if word in names)
    given = english_given_names()
    return {"source": "spaCy stop words of every language it ships, that are a one-word gazetteer name",
            "words": words,
            "given_names_source": "names-dataset's top first names of each gender of the English-speaking countries "
                                  "(person_names.ENGLISH_SPEAKING), that are a one-word gazetteer name",
            "given_names": sorted(name for name in given if name in names),
            "languages_source": "the spaCy languages whose stop word each of those words and each one-word location "
                                "word (places._CUES) is",
            "languages": {word: sorted(stop_words[word])
                          for word in sorted({*words, *_CUES}) if word in stop_words}}  # fmt: skip


if __name__ == "__main__":
    SNAPSHOT.write_text(json.dumps(build_snapshot(), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT} ({len(place_stop_words())} words, {len(place_given_names())} given names)")
