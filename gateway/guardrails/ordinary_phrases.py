"""NER people that read as ordinary words of some language: a desk, a job title, a product, a greeting.

Both NER models call capitalised phrases of a signature, a record or a heading people: "Customer Success", "Staff
Engineer", "Risorse Umane", "Diretora Financeira", "Dział Kadr", "Herzliche Grüße". Whether a word is an ordinary
word is a question of frequency in a language (``frequent_words``, wordfreq's lists of the eight languages the
gateway reads most), which English lexicons alone cannot answer for Italian or Polish. Two rules:

- ``reads_as_words``: a span of two words or more, each an English dictionary word or a frequent word of one of
  those languages, none a common given name (``person_names``' ``given``: "Grace Baker", "Rose Young" are people)
  nor a title ("Frau Koch", "Mr Baker"), and no initial ("A. Miller"), is no person's name; nor is a span of
  greeting, thanks or sign-off words and titles alone (``name_cues.CUE_WORDS``: "Prezada Sra", "Gracias", "Ciao"),
  none a common given name ("Don", "Will" are names too).
- ``holds_unnamed_word``: where the two models agree on a span that no name list knows (``people.confirmed``'s
  `agreed`), that agreement stands in for the list only when no word of it is a frequent word no list holds as a
  name: "Leiterin Einkauf", "Szanowni Państwo" are a title and a greeting; "Sittikorn Wannapaitoonsri" is a person.
"""

from __future__ import annotations

import re

from gateway.guardrails.frequent_words import frequent_in_any
from gateway.guardrails.name_cues import CUE_WORDS, TITLE_WORDS
from gateway.guardrails.person_names import known_names

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")


def _ordinary(word: str, common_words: frozenset[str]) -> bool:
    folded = word.casefold()
    return folded in common_words or folded in frequent_in_any()


def reads_as_words(span: str, common_words: frozenset[str]) -> bool:
    """Whether `span` (a NER person) is two words or more of ordinary words, none a common given name or a title, or
    words around a name alone (``_cue_words_alone``)."""
    words = _WORD.findall(span)
    if _cue_words_alone(words):
        return True
    if len(words) < 2 or any(len(word) == 1 for word in words):
        return False  # one word, or an initial: "A. Miller" is how a person is written
    given = known_names().given
    return all(_ordinary(word, common_words) and word.casefold() not in given
               and word.casefold() not in TITLE_WORDS for word in words)  # fmt: skip


def _cue_words_alone(words: list[str]) -> bool:
    """Whether `words` are greeting, thanks or sign-off words and titles alone, none a common given name."""
    given = known_names().given
    return bool(words) and all(
        (word.casefold() in CUE_WORDS or word.casefold() in TITLE_WORDS) and word.casefold() not in given
        for word in words
    )


def holds_unnamed_word(span: str) -> bool:
    """Whether a word of `span` (an initial aside: "Arnþóra P. Karimsdóttir") is a frequent word of some language that
    no name list holds."""
    names, frequent = known_names(), frequent_in_any()
    return any(len(word) > 1 and word.casefold() in frequent and not names.is_name(word)
               for word in _WORD.findall(span))  # fmt: skip
