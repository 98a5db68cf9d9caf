"""Cheap language signals for a stretch of text, from stop words that only one language lists.

- ``is_continental``: is it French, Spanish or German prose rather than English? It counts stop words that only one
  of the four languages lists (spaCy's stop-word lists, minus every word another of the four also lists: "de",
  "la", "a", "in" say nothing). A stretch whose French, Spanish and German words outnumber its English ones is read
  as continental prose. Code, JSON, logs and English text carry English or no stop words, so they stay English and
  cost one regex pass.
- ``GERMAN_ONLY_STOP_WORDS``: spaCy's German stop words that no English, French, Spanish, Italian, Portuguese or
  Dutch list holds ("und", "nicht", "auch"; not "da", Italian "from", nor "was", nor "das" and "um", Portuguese),
  written as listed and casefolded ("groß", "gross"): ``places.german_around`` looks for one of them among a place's
  neighbours, where one word must say German alone. ``is_german`` reads a window as German by a vote: German's stop
  words against English, French, Spanish, Italian and Dutch ones (there "das" and "um" vote German). German
  capitalises every noun: in German text a capital is no sign of a name.
- ``is_european``: is it prose of a European language spaCy lists stop words for (French, Spanish, German, Italian,
  Portuguese, Dutch, Polish) rather than English? The same vote as ``is_continental`` over the seven lists: their
  stop words that English does not list against English's that none of them lists. The NER models were trained on
  English, French, Spanish and German; in Italian, Portuguese, Dutch and Polish text too a sentence's capital is no
  sign of a name (``ner``).
"""

from __future__ import annotations

import re

from spacy.lang.de.stop_words import STOP_WORDS as DE
from spacy.lang.en.stop_words import STOP_WORDS as EN
from spacy.lang.es.stop_words import STOP_WORDS as ES
from spacy.lang.fr.stop_words import STOP_WORDS as FR
from spacy.lang.it.stop_words import STOP_WORDS as IT
from spacy.lang.nl.stop_words import STOP_WORDS as NL
from spacy.lang.pl.stop_words import STOP_WORDS as PL
from spacy.lang.pt.stop_words import STOP_WORDS as PT

_LISTS = {"en": EN, "fr": FR, "es": ES, "de": DE}


def _only_in(language: str) -> frozenset[str]:
    others = set().union(*(words for name, words in _LISTS.items() if name != language))
    return frozenset(word.casefold() for word in _LISTS[language] if word not in others)


_ENGLISH = _only_in("en")
_CONTINENTAL = _only_in("fr") | _only_in("es") | _only_in("de")
_WORD = re.compile(r"[^\W\d_]+")


def _outvotes(text: str, ours: frozenset[str], theirs: frozenset[str]) -> bool:
    """Whether more of `text`'s words (casefolded) are in `ours` than in `theirs` (at least one); a word in both
    counts for `ours`."""
    own = other = 0
    for match in _WORD.finditer(text):
        word = match.group().casefold()
        if word in ours:
            own += 1
        elif word in theirs:
            other += 1
    return own > other


def is_continental(text: str) -> bool:
    """True when `text` holds more French/Spanish/German-only stop words than English-only ones (at least one)."""
    return _outvotes(text, _CONTINENTAL, _ENGLISH)


_GERMAN_LISTED = DE - (EN | FR | ES | IT | PT | NL)
GERMAN_ONLY_STOP_WORDS = _GERMAN_LISTED | frozenset(word.casefold() for word in _GERMAN_LISTED)
# ``is_german``'s vote: German stop words against those of English, French, Spanish, Italian and Dutch, casefolded.
# Portuguese has no vote (as before the two sets met here): its "das" and "um" count for German ("ist das Konto").
_VOTING = EN | FR | ES | IT | NL
_GERMAN_VOTES = frozenset(word.casefold() for word in DE) - _VOTING
_OTHER_VOTES = frozenset(word.casefold() for word in _VOTING) - frozenset(word.casefold() for word in DE)


def is_german(window: str) -> bool:
    """Whether `window` holds more stop words that German lists and English, French, Spanish, Italian and Dutch do
    not than stop words of those five that German does not list (at least one)."""
    return _outvotes(window, _GERMAN_VOTES, _OTHER_VOTES)


_EUROPEAN_LISTS = FR | ES | DE | IT | PT | NL | PL
_EUROPEAN_VOTES = frozenset(word.casefold() for word in _EUROPEAN_LISTS) - frozenset(word.casefold() for word in EN)
_ENGLISH_VOTES = frozenset(word.casefold() for word in EN) - frozenset(word.casefold() for word in _EUROPEAN_LISTS)


def is_european(text: str) -> bool:
    """Whether `text` holds more stop words that French, Spanish, German, Italian, Portuguese, Dutch or Polish list
    and English does not than English stop words none of those lists (at least one)."""
    return _outvotes(text, _EUROPEAN_VOTES, _ENGLISH_VOTES)
