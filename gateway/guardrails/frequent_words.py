"""The frequent words of the languages chat is mostly written in, from wordfreq's word lists, kept as a snapshot.

A word in lower case is a name only when it is rare as a word: "abilene" after "moving to" is the town, "reading"
is not; "via pomponio, 41" is a street, "conjunto de datos 3 veces" (Spanish "data set, 3 times") is not. What is a
rare word is a question of frequency in the language, which a lexicon (WordNet, a stop-word list) does not answer:
WordNet lists "bordeaux" and "boise" as nouns, and no stop-word list holds Spanish "datos" or Portuguese "velha".

wordfreq (Robyn Speer et al., https://github.com/rspeer/wordfreq) estimates each word's frequency in a language from
several corpora (Wikipedia, subtitles, news, books, web text, Reddit, Twitter). Its package is 57 MB, too heavy to be
a run-time dependency, so ``python -m gateway.guardrails.frequent_words`` (wordfreq 3.1.1 installed, at build time
only) writes the words of each of ``LANGUAGES`` whose Zipf frequency is ``MIN_ZIPF`` or more (once in 100,000 words
or more: some 7,000 words a language) to data/frequent_words.json.gz, which ``frequent_words`` reads. Only words of
lower-case letters are kept. The snapshot's data is wordfreq's: CC BY-SA 4.0 (its README names the sources' own
licences); the snapshot says so.
"""

from __future__ import annotations

import gzip
import json
import math
from functools import cache
from pathlib import Path

SNAPSHOT = Path(__file__).parent / "data" / "frequent_words.json.gz"
# English, and the languages of the street addresses and places chat writes beside it most.
LANGUAGES = ("en", "es", "pt", "it", "fr", "de", "pl", "nl")
MIN_ZIPF = 4.0  # log10 of a word's frequency per billion words
WORDFREQ_VERSION = "3.1.1"


@cache
def _snapshot() -> dict[str, frozenset[str]]:
    with gzip.open(SNAPSHOT, "rt", encoding="utf-8") as snapshot:
        words = json.load(snapshot)["words"]
    return {language: frozenset(words[language]) for language in LANGUAGES}


def frequent_words(language: str) -> frozenset[str]:
    """The words of `language` (one of ``LANGUAGES``) of Zipf frequency ``MIN_ZIPF`` or more, lower case."""
    return _snapshot()[language]


@cache
def frequent_in_any() -> frozenset[str]:
    """The words frequent in one of ``LANGUAGES`` at least."""
    return frozenset().union(*_snapshot().values())


def build_snapshot() -> dict[str, object]:
    """The snapshot, from the installed wordfreq's "large" lists (ImportError without it)."""
    import wordfreq

    words = {}
    for language in LANGUAGES:
        frequencies = wordfreq.get_frequency_dict(language, wordlist="large")
        words[language] = sorted(word for word, frequency in frequencies.items()
                                 if round(math.log10(frequency) + 9, 2) >= MIN_ZIPF
                                 and word.isalpha() and word == word.lower())  # fmt: skip
    return {"source": f"wordfreq {WORDFREQ_VERSION} (https://github.com/rspeer/wordfreq), 'large' word lists: the "
                      f"lower-case words of Zipf frequency {MIN_ZIPF} or more. Data CC BY-SA 4.0, from wordfreq's "
                      "sources (Wikipedia, OpenSubtitles, SUBTLEX, NewsCrawl, GlobalVoices, Google Books, OSCAR, "
                      "Reddit, Twitter).",
            "min_zipf": MIN_ZIPF,
            "words": words}  # fmt: skip


def write_snapshot(snapshot: dict[str, object], path: Path = SNAPSHOT) -> None:
    """`snapshot` as gzipped JSON, byte for byte the same for the same words (no time stamp, no file name)."""
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        out.write((json.dumps(snapshot, ensure_ascii=False, indent=0) + "\n").encode("utf-8"))


if __name__ == "__main__":
    built = build_snapshot()
    write_snapshot(built)
    counts = {language: len(words) for language, words in built["words"].items()}  # type: ignore[attr-defined]
    print(f"wrote {SNAPSHOT}: {counts}")
