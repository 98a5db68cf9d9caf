"""PERSON spans checked and extended with names-dataset's first and last names (``person_names``).

spaCy's small English model tags capitalised words of French, Spanish and German sentences as people ("Virez",
"Ahora", "Der Flug") and misses names it has not seen in English context ("Bitte leite das an Musa Adams weiter",
"hey its chamo parraga here"). Two rules, both run where NER runs:

- ``confirmed``: a PERSON span from NER is kept only when one of its words is a known first or last name that is no
  stop word of the languages the gateway reads (English, French, Spanish, German, Italian, Portuguese).
- ``name_pairs``: a known first name followed by a known last name (optionally with a middle initial) is a PERSON,
  capitalised ("Musa Adams", "Anna K. Nowak") or, with a lower score, all in lower case ("chamo parraga") when
  neither word is an English dictionary word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from spacy.lang.de.stop_words import STOP_WORDS as DE
from spacy.lang.en.stop_words import STOP_WORDS as EN
from spacy.lang.es.stop_words import STOP_WORDS as ES
from spacy.lang.fr.stop_words import STOP_WORDS as FR
from spacy.lang.it.stop_words import STOP_WORDS as IT
from spacy.lang.pt.stop_words import STOP_WORDS as PT

from gateway.guardrails.findings import Finding
from gateway.guardrails.ner import LOWER_LETTERS, UPPER_LETTERS
from gateway.guardrails.person_names import known_names

PAIR_SCORE = 0.7
LOWER_CASE_PAIR_SCORE = 0.6
_STOP_WORDS = frozenset(word.casefold() for words in (EN, FR, ES, DE, IT, PT) for word in words)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# Two or three words: first name, optional middle initial, last name; capitalised, or all lower case. Where a text
# has capitals, only capitalised pairs are tried (few in code, JSON or logs); an all-lower-case text (chat) carries
# no case signal, so there its lower-case pairs are tried.
_CAPITALISED = rf"[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}]?[{LOWER_LETTERS}]+)?"
_LOWER = rf"[{LOWER_LETTERS}]{{2,}}"
_CAPITALISED_PAIR = re.compile(
    rf"(?<![\w@.'’-])({_CAPITALISED})\s+(?:([{UPPER_LETTERS}])\.\s+)?({_CAPITALISED})(?![\w@'’-])"
)
_LOWER_PAIR = re.compile(rf"(?<![\w@.'’-])({_LOWER})\s+()({_LOWER})(?![\w@'’-])")


def _is_name_word(word: str) -> bool:
    return word.casefold() not in _STOP_WORDS and known_names().is_name(word)


def confirmed(text: str, finding: Finding) -> bool:
    """Whether a NER PERSON span holds a known name that is no stop word."""
    return any(_is_name_word(word) for word in _WORD.findall(text[finding.start : finding.end]))


def name_pairs(text: str, common_words: frozenset[str], taken: Iterable[Finding]) -> list[Finding]:
    """First-name + last-name pairs that no finding in `taken` overlaps."""
    names = known_names()
    spans = [(f.start, f.end) for f in taken]
    found: list[Finding] = []
    lower = text.islower()
    pair = _LOWER_PAIR if lower else _CAPITALISED_PAIR
    position = 0
    while (match := pair.search(text, position)) is not None:
        first, last = match.group(1), match.group(3)
        position = match.start() + 1  # pairs overlap: "Maria Anna Nowak" tries "Anna Nowak" next
        if first.casefold() in _STOP_WORDS or last.casefold() in _STOP_WORDS:
            continue
        if not (names.is_first(first) and names.is_last(last)):
            continue
        if lower and (first in common_words or last in common_words):
            continue
        if any(start < match.end() and match.start() < end for start, end in spans):
            continue
        found.append(Finding("PERSON", match.start(), match.end(), LOWER_CASE_PAIR_SCORE if lower else PAIR_SCORE,
                             "name_pairs"))  # fmt: skip
        spans.append((match.start(), match.end()))
        position = match.end()
    return found

