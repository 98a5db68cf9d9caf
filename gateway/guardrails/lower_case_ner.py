"""People the NER models read in chat typed in lower case, once its given names are written capitalised.

The NER models read names by their capitals (spaCy's small English model misses lower-cased names anyway), and
``ner`` only runs them around capitalised words: a text typed in lower case ("maman: dis à claude de rappeler
mamie", "proprietario: domani le mando mirko vasari") never reaches them, and the name rules find a given name there
only beside a cue or a family name. Here such a text is shown to the models as a reader would write it: each word
that is a common given name (names-dataset's) and no ordinary word of English, French, Spanish, German, Italian,
Portuguese, Dutch or Polish (spaCy's stop words, Faker's per-locale word lists, the English model's dictionary, a
month's or weekday's name or abbreviation) is capitalised, and so is a known family name right after one. The
models read the capitalised words in their sentence ("dis à Claude de rappeler", "tell Samuel happy birthday"), and
a person they call exactly a run of those words is kept ("Claude", "Mirko"); their other people and places are not
(a lower-case word they capitalise in their head is no evidence of a name), and the name rules' people go first: a
person they read in full ("juliana pinto") stays theirs. Only a text with no capital letter at all is read so: one
with capitals, acronyms among them, is read by NER as typed. A text with no candidate word costs one regex pass.

Capitalising keeps every offset: a word is capitalised only where its first letter's capital is one character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from gateway.guardrails.common_nouns import european_words
from gateway.guardrails.dates import calendar_words, is_month_word
from gateway.guardrails.findings import Finding
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import english_and_stop_words

SOURCE = "lower_case_ner"
MIN_LETTERS = 3  # shorter given names ("al", "jo", "ed") are as often words or abbreviations
# Past this many candidate words a text is not chat but a dump (a lower-case list of names, a log): NER would read
# a window around each, so such a text is left to the name rules.
MAX_CANDIDATES = 40
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")


@cache
def _words() -> frozenset[str]:
    """Ordinary words of the eight languages, the given names among them too ("rosa", "luz", "will": words first),
    and the English model's dictionary and the calendar's names."""
    return european_words() | english_and_stop_words() | calendar_words()


def _is_word(folded: str) -> bool:
    return folded in _words() or is_month_word(folded)


@dataclass(frozen=True)
class LowerCaseView:
    """A text typed in lower case with its candidate names capitalised (`text`), and their [start, end) spans."""

    text: str
    names: tuple[tuple[int, int], ...]

    def people(self, found: Iterable[Finding], taken: Sequence[Finding]) -> list[Finding]:
        """NER's people in `found` (read on `text`) that are exactly a run of the capitalised names, one space
        apart, and overlap none of `taken` that scores 0.5 or more; as this module's findings."""
        starts = {start: end for start, end in self.names}
        kept: list[Finding] = []
        for finding in found:
            if finding.entity_type != "PERSON" or finding.score < 0.5 or finding.start not in starts:
                continue
            end = starts[finding.start]
            while end < finding.end and self.text[end : end + 1] == " " and end + 1 in starts:
                end = starts[end + 1]
            if end != finding.end:
                continue
            if any(other.score >= 0.5 and other.overlaps(finding) for other in (*taken, *kept)):
                continue
            kept.append(Finding("PERSON", finding.start, finding.end, finding.score, SOURCE))
        return kept


def lower_case_view(text: str) -> LowerCaseView | None:
    """The text with its given names capitalised (the module's docstring), or None: a text with capitals, or with no
    candidate name, or with more than ``MAX_CANDIDATES``."""
    if not text.islower():
        return None
    names = known_names()
    chars: list[str] | None = None
    spans: list[tuple[int, int]] = []
    for match in _WORD.finditer(text):
        word = match.group()
        folded = word.casefold()
        after_name = bool(spans) and spans[-1][1] + 1 == match.start() and text[spans[-1][1]] == " "
        if len(word) < MIN_LETTERS or _is_word(folded):
            continue
        if folded not in names.given and not (after_name and names.is_last(folded)):
            continue
        capital = word[0].upper()
        if len(capital) != 1:
            continue
        if chars is None:
            chars = list(text)
        chars[match.start()] = capital
        spans.append(match.span())
        if len(spans) > MAX_CANDIDATES:
            return None
    if chars is None:
        return None
    return LowerCaseView("".join(chars), tuple(spans))
