"""Pre-filters: whether a text may hold what a detector looks for, told by the cheapest exact test.

Python's regex engine skips fast only to where a pattern's first character can stand (a literal, one character
class, or alternatives that each open with a literal); an alternation of other shapes, a leading look-behind or a
case-insensitive word list is tried at every position of the text. A pre-filter only answers whether a match
exists, so the same answer can come from searches that the engine skips through.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Sequence

# The characters that case-insensitive matching (``re.IGNORECASE``) pairs with a letter other than through that
# letter's own ``str.lower`` and ``str.upper``: dotted capital I (lower-cased to two characters); the characters whose
# upper case lower-cases to another letter (dotless i and long s, the micro sign, Greek's final sigma and symbol forms,
# Old Cyrillic's tall and three-legged letters: "ᲄ" pairs with "т"); those whose lower case upper-cases to another
# (title-case digraphs, Greek capitals with iota, the Kelvin, ohm and angstrom signs, capital sharp s). A text holding
# one is searched with the regex itself. ``tests/guardrails/test_guard_prefilters.py`` derives the set from every
# code point.
FOLDS_APART = frozenset(
    "\u0130\u00b5\u0131\u017f\u0345\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u1e9b\u1fbe"
    "\u01c5\u01c8\u01cb\u01f2\u03f4\u1e9e\u1fbc\u1fcc\u1ffc\u2126\u212a\u212b"
    + "".join(map(chr, range(0x1C80, 0x1C89)))
    + "".join(map(chr, [*range(0x1F88, 0x1F90), *range(0x1F98, 0x1FA0), *range(0x1FA8, 0x1FB0)]))
)


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


def case_partners(letters: str) -> str:
    """``letters`` with every character ``re.IGNORECASE`` pairs with one of them (upper and lower case, and
    ``FOLDS_APART``): a case-sensitive class of these opens a case-insensitive word list so the regex engine skips to
    where a word can start. A superset (``FOLDS_APART`` whole) is harmless: what follows is matched case-insensitively
    from the same character (``tests/guardrails/test_guard_prefilters.py`` checks the pairs against every code
    point)."""
    partners = {char for letter in letters for char in (letter, letter.lower(), letter.upper()) if len(char) == 1}
    return "".join(sorted(partners | FOLDS_APART))


class AfterNonWord:
    r"""``(?:^|[^\w])BODY``, searched as two regexes: ``[^\w]BODY``, which opens with a class the regex engine skips to
    (a non-word character: a few positions of a text, against every position for the plain form's alternation), and
    ``BODY`` at the text's very start (where ``^`` matches). ``search`` tells whether the plain form matches; the
    span it returns may differ from the plain form's."""

    def __init__(self, body: str, flags: int = 0) -> None:
        self._after_non_word = re.compile(rf"[^\w](?:{body})", flags)
        self._at_start = re.compile(body, flags)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        found = self._after_non_word.search(text, pos, endpos)
        return found if found is not None or pos else self._at_start.match(text, 0, endpos)


class AfterNone:
    r"""``(?<![NOT_AFTER])BODY`` searched as ``BODY``, each match's first character then tested against the class: the
    same matches (a look-behind of one character sees the text before ``pos`` too), but the regex engine skips to
    where BODY can open (a character class, a literal) instead of trying the look-behind at every position."""

    def __init__(self, not_after: str, body: str, flags: int = 0) -> None:
        self.pattern = re.compile(rf"(?<![{not_after}]){body}", flags)  # the plain form, for reference and tests
        self._body = re.compile(body, flags)
        self._not_after = re.compile(rf"[{not_after}]", flags)
        self._outside = re.compile(rf"[^{not_after}]", flags)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        while True:
            # No match starts after a character of the class: the next may start only after the next other one.
            if pos and self._not_after.match(text, pos - 1) is not None:
                if (outside := self._outside.search(text, pos, endpos)) is None:
                    return None
                pos = outside.end()
            if (found := self._body.search(text, pos, endpos)) is None:
                return None
            if not found.start() or self._not_after.match(text, found.start() - 1) is None:
                return found
            pos = found.start()


class AtLineStarts:
    r"""``(?m)^BODY``'s ``finditer``, for a BODY whose matches stay on their line (none holds a line break): ``BODY``
    matched at the text's start, then after each line break that ``\nBODY`` finds (a literal the regex engine skips
    to, where ``^`` is tried at every position), ``(?m)^BODY`` matched there for the match itself."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        body = pattern.removeprefix("(?m)^")
        if body == pattern:
            raise ValueError("not a pattern of a line: it opens with (?m)^")
        self.pattern = re.compile(pattern, flags)  # the plain form, matched where a line starts
        self._after_break = re.compile("\n" + body, flags | re.MULTILINE)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if (first := self.pattern.match(text)) is not None:
            yield first
        for lead in self._after_break.finditer(text):
            if (match := self.pattern.match(text, lead.start() + 1)) is not None:  # where the twin matched
                yield match


class PerText:
    """A pre-filter that several detectors ask of the same text in turn (a record format's recogniser, one detector
    per entity type it reports; the date detectors' birth word): answered once per text. The text is told by
    identity, never by value: the analyzer hands each detector the same string object, and another request's text,
    equal or not, is another object (read from its own body), so how fast a pre-filter answers tells nothing about
    what an earlier request held."""

    __slots__ = ("_fn", "_last")

    def __init__(self, fn: Callable[[str], bool]) -> None:
        self._fn = fn
        self._last: tuple[str | None, bool] = (None, False)

    def __call__(self, text: str) -> bool:
        last_text, answer = self._last  # one tuple, read and written whole: threads see a consistent pair
        if last_text is text:
            return answer
        answer = self._fn(text)
        self._last = (text, answer)
        return answer
