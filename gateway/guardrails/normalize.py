"""The text as a reader sees it, for analysis: invisible characters dropped, compatibility forms folded.

A detector reads code points; a person (or the client's renderer) reads glyphs. ``dana\\u200b.k@example.org``
(a zero-width space inside an address), ``4111\\u00ad1111...`` (soft hyphens inside a card number) and
``ｄａｎａ．ｋ＠ｅｘａｍｐｌｅ．ｏｒｇ`` (full-width forms) all read as the plain value, yet no pattern matches
them. So analysis runs on a view where

* format characters (Unicode category Cf: zero-width space/joiners, word joiner, soft hyphen, BOM, bidi
  controls, tag characters) and variation selectors are dropped, and
* every other non-ASCII character is replaced by its NFKC compatibility form (full-width and other
  compatibility letters and digits become ASCII ones, ligatures their letters), and a decimal digit of any script
  by its ASCII digit (``४१११`` is the number 4111 to anyone who reads Devanagari), and
* a cross-script homoglyph (Cyrillic "а", Greek omicron, an en dash between digits...) is replaced by the ASCII
  character it is drawn like — its skeleton in Unicode's confusables table (UTS #39) — but only inside a token
  that reads as Latin: see ``_reads_as_latin``. Russian or Greek prose is text in its own script, not an attempt
  to spell a Latin value, and stays as it is,

and each character of the view remembers the raw character it came from, so a finding maps back to a raw span
that covers the whole obfuscated value, invisible characters included. Plain ASCII text is its own view, at no cost.
"""

from __future__ import annotations

import json
import re
import string
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


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
    category = unicodedata.category(char)
    if category == "Cf" or _is_variation_selector(char):
        return ""
    if category == "Nd":  # a digit means its value whatever its script; NFKC leaves most scripts' digits alone
        return str(unicodedata.decimal(char))
    return unicodedata.normalize("NFKC", char)


def _is_variation_selector(char: str) -> bool:
    code = ord(char)
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF


def _load_skeletons() -> dict[int, str]:
    """Each non-ASCII character whose confusable skeleton is one printable ASCII character, mapped to it.

    The table is Unicode's confusables.txt (UTS #39) as the confusable-homoglyphs package ships it; read from the
    package's own file rather than through its loader, which an environment variable can point elsewhere.
    """
    with resources.files("confusable_homoglyphs").joinpath("confusables.json").open(encoding="utf-8") as file:
        data: dict[str, list[dict[str, str]]] = json.load(file)
    table: dict[int, str] = {}
    for char, entries in data.items():
        # Only characters the view can still hold after the per-character fold: not ASCII, not invisible, not a
        # digit (its value wins over its shape: Bengali four is drawn like an 8) and not changed by NFKC.
        if len(char) != 1 or char.isascii() or unicodedata.category(char) in ("Cf", "Nd"):
            continue
        if _is_variation_selector(char) or unicodedata.normalize("NFKC", char) != char:
            continue
        targets = [e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii() and e["c"] in _PRINTABLE]
        if not targets:
            continue
        target = targets[0]
        if target == "l" and char.isupper():
            # UTS #39 draws I, l and 1 alike and picks "l"; a capital (Cyrillic І, Greek Ι) is read as "I", and
            # the injection screen, which lower-cases, must see "ignore" in "Іgnore".
            target = "I"
        table[ord(char)] = target
    return table


_PRINTABLE = frozenset(string.ascii_letters + string.digits + string.punctuation)
_SKELETONS = _load_skeletons()
_CONFUSABLE = re.compile("[" + "".join(re.escape(chr(code)) for code in sorted(_SKELETONS)) + "]")
# A token (a run without whitespace nor markup or field delimiters) that holds an ASCII letter or digit or an
# address separator: only such a token can read as Latin. Markup and field syntax end a token: the Cyrillic name in
# ``<span class="name">Тимофій</span>`` or ``name=Тимофій`` is its own word, not Latin spelled with look-alikes.
# Tried at token starts only, so text in another script is skipped at regex speed, in linear time.
_WORD_CHAR = r"[^\s<>\"'=,;()\[\]{}|]"
_CANDIDATE_TOKEN = re.compile(rf"(?<!{_WORD_CHAR})(?={_WORD_CHAR}*[A-Za-z0-9@.:/]){_WORD_CHAR}+")
_ASCII_ALNUM = re.compile(r"[A-Za-z0-9]")
# Inside an address-shaped token: a separator with something on both sides ("х@у.со", "а.ру").
_ADDRESS_SEPARATOR = re.compile(r"[^@.:/]+[@.:/][^@.:/]")


def _reads_as_latin(token: str) -> bool:
    """Whether the homoglyphs in a token (a run without whitespace) stand for Latin characters.

    Yes when the token also holds an ASCII letter or digit: a word or value that mixes scripts ("dаna.k@exаmple.org",
    "Іgnore", "4111–1111") is Latin spelled with look-alikes, since no script's own words contain ASCII letters.
    Yes when it is made only of homoglyphs and ASCII punctuation and has an address's shape, a separator inside it
    ("ехре@сосо.со"). No otherwise: "сор", "Ο" and "Асе" are words of their own script (and the rest of a Cyrillic
    or Greek word is not ASCII either), so prose in those scripts reads as itself.
    """
    if _ASCII_ALNUM.search(token):
        return True
    core = token.strip(string.punctuation)
    return (
        _ADDRESS_SEPARATOR.search(core) is not None
        and all(ord(char) in _SKELETONS or char in string.punctuation for char in core)
    )


def latin_skeleton(token: str) -> str:
    """``token`` with each homoglyph spelled as its ASCII look-alike ("ГРЧКА" -> "ГPЧKA"), one character for one."""
    return token.translate(_SKELETONS)


def _fold_homoglyphs(text: str) -> str:
    """``text`` with the homoglyphs of every token that reads as Latin replaced by their ASCII skeletons. One
    character for one, so positions (and the view's map back to raw text) do not move."""
    if _CONFUSABLE.search(text) is None:
        return text
    pieces: list[str] = []
    done = 0
    for match in _CANDIDATE_TOKEN.finditer(text):
        token = match.group()
        if _CONFUSABLE.search(token) is not None and _reads_as_latin(token):
            pieces.append(text[done : match.start()])
            pieces.append(latin_skeleton(token))
            done = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


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
    # Homoglyphs after the per-character fold: tokens are only whole once invisible characters are gone, and a
    # compatibility form may fold to a homoglyph. The fold keeps lengths, so ``origin`` stays as it is.
    view = _fold_homoglyphs("".join(pieces) if changed else text)
    if not changed:
        return ReaderView(view, None)  # one-for-one replacements at most: the view's indices are the raw ones
    return ReaderView(view, origin)


def visible_tail_start(text: str, count: int) -> int:
    """Where the last ``count`` characters a reader sees begin in ``text`` (0 when it shows fewer): a streamed
    hold-back window measured this way cannot be stretched by invisible padding inside a value."""
    if count > 0 and text[-count:].isascii():  # every character shows: no walk (a prompt's usual case)
        return max(len(text) - count, 0)
    seen = 0
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char.isascii() or _fold(char):
            seen += 1
            if seen >= count:
                return index
    return 0


def visible_head_end(text: str, count: int) -> int:
    """Where the first ``count`` characters a reader sees end in ``text`` (its length when it shows fewer)."""
    if count <= 0:
        return 0
    if text[:count].isascii():  # every character shows: no walk (a prompt's usual case)
        return min(count, len(text))
    seen = 0
    for index, char in enumerate(text):
        if char.isascii() or _fold(char):
            seen += 1
            if seen >= count:
                return index + 1
    return len(text)


def visible_count(text: str) -> int:
    """How many characters of ``text`` a reader sees."""
    if text.isascii():
        return len(text)
    return sum(1 for char in text if char.isascii() or _fold(char))
