"""Pre-filters: whether a text may hold what a detector looks for, told by the cheapest exact test.

Python's regex engine skips fast only to where a pattern's first character can stand (a literal, one character
class, or alternatives that each open with a literal); an alternation of other shapes, a leading look-behind or a
case-insensitive word list is tried at every position of the text. A pre-filter only answers whether a match
exists, so the same answer can come from searches that the engine skips through.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

# The characters that case-insensitive matching (``re.IGNORECASE``) pairs with a letter other than through
# ``str.lower``: dotted capital I (lower-cased to two characters), dotless i and long s (which the regex engine
# matches to "i" and "s"), and the Kelvin sign. A text holding one is searched with the regex itself.
# ``tests/guardrails/test_guard_prefilters.py`` checks the list against every code point.
FOLDS_APART = frozenset("\u0130\u0131\u017f\u212a")


def has_regex(pattern: str) -> Callable[[str], bool]:
    """Whether ``pattern`` occurs: for a pattern that opens with what the regex engine skips to."""
    compiled = re.compile(pattern)
    return lambda text: compiled.search(text) is not None


def any_regex(patterns: Sequence[str]) -> Callable[[str], bool]:
    """Whether any of ``patterns`` occurs: what their alternation's search tells, each one searched alone."""
    compiled = [re.compile(pattern) for pattern in patterns]
    return lambda text: any(pattern.search(text) is not None for pattern in compiled)


def any_word(words: Sequence[str]) -> Callable[[str], bool]:
    """Whether any of the lower-case ``words`` occurs in any case, anywhere (inside other words too): what
    ``(?i:word|word|...)`` finds, told by substring tests on the lower-cased text."""
    if any(word != word.lower() for word in words):
        raise ValueError("words are given in lower case")
    pattern = re.compile("|".join(re.escape(word) for word in words), re.IGNORECASE)

    def occurs(text: str) -> bool:
        if not text.isascii() and not FOLDS_APART.isdisjoint(text):
            return pattern.search(text) is not None
        lowered = text.lower()
        return any(word in lowered for word in words)

    return occurs
