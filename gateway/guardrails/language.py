"""A cheap language signal for a stretch of text: is it French, Spanish or German prose rather than English?

It counts stop words that only one of the four languages lists (spaCy's stop-word lists, minus every word another
of the four also lists: "de", "la", "a", "in" say nothing). A stretch whose French, Spanish and German words
outnumber its English ones is read as continental prose. Code, JSON, logs and English text carry English or no
stop words, so they stay English and cost one regex pass.
"""

from __future__ import annotations

import re

from spacy.lang.de.stop_words import STOP_WORDS as DE
from spacy.lang.en.stop_words import STOP_WORDS as EN
from spacy.lang.es.stop_words import STOP_WORDS as ES
from spacy.lang.fr.stop_words import STOP_WORDS as FR

_LISTS = {"en": EN, "fr": FR, "es": ES, "de": DE}


def _only_in(language: str) -> frozenset[str]:
    others = set().union(*(words for name, words in _LISTS.items() if name != language))
    return frozenset(word.casefold() for word in _LISTS[language] if word not in others)


_ENGLISH = _only_in("en")
_CONTINENTAL = _only_in("fr") | _only_in("es") | _only_in("de")
_WORD = re.compile(r"[^\W\d_]+")


def is_continental(text: str) -> bool:
    """True when `text` holds more French/Spanish/German-only stop words than English-only ones (at least one)."""
    english = continental = 0
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        if word in _CONTINENTAL:
            continental += 1
        elif word in _ENGLISH:
            english += 1
    return continental > english
