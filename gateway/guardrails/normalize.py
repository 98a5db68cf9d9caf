"""The text as a reader sees it, for analysis: invisible characters dropped, compatibility forms folded.

A detector reads code points; a person (or the client's renderer) reads glyphs. ``dana\\u200b.k@example.org``
(a zero-width space inside an address), ``4111\\u00ad1111...`` (soft hyphens inside a card number) and
``ｄａｎａ．ｋ＠ｅｘａｍｐｌｅ．ｏｒｇ`` (full-width forms) all read as the plain value, yet no pattern matches
them. So analysis runs on a view where

* format characters (Unicode category Cf: zero-width space/joiners, word joiner, soft hyphen, BOM, bidi
  controls, tag characters) and variation selectors are dropped, and
* every other non-ASCII character is replaced by its NFKC compatibility form (full-width and other
  compatibility letters and digits become ASCII ones, ligatures their letters),

and each character of the view remembers the raw character it came from, so a finding maps back to a raw span
that covers the whole obfuscated value, invisible characters included. Plain ASCII text is its own view, at no cost.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class ReaderView:
    text: str
    origin: list[int] | None  # per character of ``text``, the raw index it came from; None: the raw text itself

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw span a non-empty span of the view covers (from its first to its last character's origin)."""
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


@lru_cache(maxsize=4096)
def _fold(char: str) -> str:
    if unicodedata.category(char) == "Cf" or _is_variation_selector(char):
        return ""
    return unicodedata.normalize("NFKC", char)


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def reader_view(text: str) -> ReaderView:
    if text.isascii():
        return ReaderView(text, None)
    pieces: list[str] = []
    origin: list[int] = []
    changed = False
    for index, char in enumerate(text):
        folded = char if char.isascii() else _fold(char)
        if folded != char:
            changed = True
        pieces.append(folded)
        origin.extend([index] * len(folded))
    if not changed:
        return ReaderView(text, None)
    return ReaderView("".join(pieces), origin)


def visible_tail_start(text: str, count: int) -> int:
    """Where the last ``count`` characters a reader sees begin in ``text`` (0 when it shows fewer): a streamed
    hold-back window measured this way cannot be stretched by invisible padding inside a value."""
    seen = 0
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char.isascii() or _fold(char):
            seen += 1
            if seen >= count:
                return index
    return 0
