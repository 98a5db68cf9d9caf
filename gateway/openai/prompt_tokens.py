"""A rendered chat prompt's token ids, with the parts that repeat from call to call encoded once.

The tokenizer (HF ``tokenizers``) first cuts its input at the added tokens (``<|im_start|>``, ``<|im_end|>``...) and
then pre-tokenizes and encodes each piece between them on its own, so the ids of a prompt are the ids of its pieces
in order. A chat template puts an added token around every message, so the pieces are the messages (with their
role line) and the template's scaffolding. A system prompt, the scaffolding and the earlier turns of a conversation
come back call after call; the regex pre-tokenizer costs far more per character than the BPE merges, so
``SegmentEncoder`` keeps recent pieces' ids (per tenant: one tenant's prompts never answer, or time, another's)
and encodes only what it has not seen. A piece holding the conversation's newest message is encoded and not kept:
it is new almost every time, and keeping it would only push out what repeats.

Only for tokenizers where cutting first is exact: byte-level BPE without a normalizer, whose added tokens match
literally (no stripping of neighbouring spaces, no whole-word rule). Any other tokenizer is encoded whole, as before.

A piece that is new (the newest message, above all) is cut further, into the pre-tokenizer's words, where the
tokenizer's pre-tokenizer is one this module knows (GPT-2's byte-level regex, digits first split one by one or not)
and the piece is plain ASCII, where Python's ``re`` with ASCII classes cuts exactly where the tokenizer's Unicode
regex does. BPE merges never cross a word, so the piece's ids are its words' ids in order, and words repeat far
more than pieces: each word's ids are kept (per tenant, like the pieces), and only words not seen recently reach the
tokenizer. Any other piece goes to the tokenizer whole.

A request whose prompt is encoded again after the input guardrails rewrote it (a redacted e-mail address) passes
both encodings one ``reuse`` dict: the first leaves its pieces' ids there, and lines of its plain pieces; the second
takes every piece, and every line of a rewritten piece, that the rewrite left alone from it, so only the lines it
changed are cut into words again. A line break after a character that is not whitespace is a word boundary of the
pre-tokenizer (no word of its regex holds a non-space character followed by a space), so a piece's ids are its
lines' ids in order.
"""

from __future__ import annotations

import json
import re
import weakref
from collections import OrderedDict
from itertools import chain
from typing import Any, cast

from engine.protocol import TokenizerLike

MAX_ENTRIES = 4096
# The kept pieces' text, all tenants together. Their ids take about nine bytes per character more (a token per four
# characters, a list slot and an int object each): some 20 MiB in all at most.
MAX_CHARS = 2 * 1024 * 1024
MAX_PIECE_CHARS = 64 * 1024  # a longer piece is encoded every time (it would take a large share of the budget)
MAX_WORDS = 65536  # kept words' ids, all tenants together (a word is short: a few MiB in all)
# A probe encoded both ways when an encoder is made: a tokenizer this module misjudges is encoded whole.
_PROBE = "Hello  world!\n\n 12345 émoji 🙂 tabs\tand  spaces\n"
_WORD_PROBE = ("It's 10:30, isn't it? We'll see--you'd've known  \n\n  x  1 2  (a) [b]\t\t{c} 'S 'll 're\r\n"
               "user@example.org +1 415 555 1663; 3.14159e-10 $9.99 #tag   ~~~ ;-) \n")
# The byte-level pre-tokenizer's regex (GPT-2's), its Unicode classes written for ASCII text: letters, digits, and
# whitespace as Python's ``re`` and the tokenizer both see them in the characters _PLAIN admits.
_WORDS = re.compile(r"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")
# The same after a split of every digit into a word of its own, in one pass: a digit is a word, and a run of spaces
# ends before a digit as it would at the end of the split-off text before that digit.
_WORDS_DIGITS_APART = re.compile(
    r"[0-9]|'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[^\sA-Za-z0-9]+|\s+(?![^\s0-9])|\s+")
_PLAIN = re.compile(r"[\t\n\r\x20-\x7e]*")  # printable ASCII, tab, newline, carriage return
_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
_NONE_KEPT: dict[str, list[int]] = {}  # a scope's kept words before it has any (never written)


class SegmentEncoder:
    def __init__(self, backend: Any, added: dict[str, int]) -> None:
        self._backend = backend
        self._added = added
        # Longest first: the alternation then matches the longest added token at each place, as the tokenizer does.
        self._split = re.compile("(" + "|".join(re.escape(t) for t in sorted(added, key=len, reverse=True)) + ")")
        self._kept: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
        self._kept_chars = 0
        # Kept words' ids per scope; the scopes in the order they last lost a word to the bound (tenants take turns).
        self._words: dict[str, dict[str, list[int]]] = {}
        self._word_count = 0
        self._digits_apart: bool | None = None  # None: pieces are not cut into words (an unknown pre-tokenizer)
        self._cut = _WORDS.findall
        self.hits = 0
        self.misses = 0

    @classmethod
    def build(cls, tokenizer: TokenizerLike) -> SegmentEncoder | None:
        """An encoder for ``tokenizer``, or None where encoding its pieces apart could differ from encoding whole."""
        backend = getattr(tokenizer, "backend", None)
        if backend is None or not getattr(tokenizer, "byte_level", False) or backend.normalizer is not None:
            return None
        tokens = backend.get_added_tokens_decoder()
        if not tokens or any(t.lstrip or t.rstrip or t.single_word for t in tokens.values()):
            return None
        encoder = cls(backend, {t.content: i for i, t in tokens.items()})
        probe = "".join(f"{_PROBE}{t.content}" for t in list(tokens.values())[:8]) + _PROBE
        if encoder.encode(probe, scope="", fresh=probe) != tokenizer.encode(probe, add_special_tokens=False):
            return None
        encoder._digits_apart = _digits_apart(backend)
        encoder._cut = (_WORDS_DIGITS_APART if encoder._digits_apart else _WORDS).findall
        if encoder._digits_apart is not None and (
                encoder._plain_ids(_WORD_PROBE, "") != tokenizer.encode(_WORD_PROBE, add_special_tokens=False)):
            encoder._digits_apart = None
        encoder._forget()  # the probe's pieces, words and counts
        return encoder

    def encode(self, text: str, *, scope: str, fresh: str, reuse: dict[str, list[int]] | None = None) -> list[int]:
        """``text``'s ids (no special tokens added). Pieces are kept per ``scope`` (the tenant); a piece holding
        ``fresh`` (the newest message) is not kept. With ``reuse`` (one request's own, the same ``scope`` each time),
        the pieces and lines it holds are taken from it and the ones encoded here are left in it."""
        ids: list[int] = []
        added = self._added
        for piece in self._split.split(text):
            if not piece:
                continue
            token = added.get(piece)
            if token is not None:
                ids.append(token)
                continue
            key = (scope, piece)
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
            elif reuse is not None:
                kept = reuse.get(piece)
            if kept is not None:
                self.hits += 1
                ids += kept
                continue
            self.misses += 1
            if self._digits_apart is not None and _PLAIN.fullmatch(piece):
                piece_ids = self._plain_ids(piece, scope) if reuse is None else self._lines_ids(piece, scope, reuse)
            else:
                piece_ids = self._backend.encode_batch_fast([piece], add_special_tokens=False)[0].ids
            ids += piece_ids
            if reuse is not None:
                reuse[piece] = piece_ids
            if len(piece) <= MAX_PIECE_CHARS and (not fresh or fresh not in piece):
                self._keep(key, piece_ids)
        return ids

    def _lines_ids(self, piece: str, scope: str, reuse: dict[str, list[int]]) -> list[int]:
        """A plain-ASCII piece's ids, line by line: a line in ``reuse`` is taken from it, any other is cut into
        words and left in it."""
        lines = _lines(piece)
        found: list[list[int] | None] = list(map(reuse.get, lines))
        for i, line_ids in enumerate(found):
            if line_ids is None:
                found[i] = reuse[lines[i]] = self._plain_ids(lines[i], scope)
        return list(chain.from_iterable(cast("list[list[int]]", found)))  # every None was filled above

    def _plain_ids(self, piece: str, scope: str) -> list[int]:
        """A plain-ASCII piece's ids, word by word, each word's ids kept per ``scope``. The look-ups run in C
        (``map``), not in a Python loop: a 2 KB message is some 600 words."""
        words = self._cut(piece)
        found: list[list[int] | None] = list(map(self._words.get(scope, _NONE_KEPT).get, words))
        if None in found:
            for i, word_ids in enumerate(found):
                if word_ids is None:
                    word = words[i]
                    # A new word twice in the piece is encoded once.
                    found[i] = self._words.get(scope, _NONE_KEPT).get(word) or self._keep_word(scope, word)
        return list(chain.from_iterable(cast("list[list[int]]", found)))  # every None was filled above

    def _keep_word(self, scope: str, word: str) -> list[int]:
        ids: list[int] = self._backend.encode(word, add_special_tokens=False).ids
        if self._word_count >= MAX_WORDS:
            # The oldest word of the scope first in line goes, and that scope goes to the back of the line.
            first = next(iter(self._words))
            words = self._words.pop(first)
            del words[next(iter(words))]
            self._word_count -= 1
            if words:
                self._words[first] = words
        kept = self._words.get(scope)
        if kept is None:
            kept = self._words[scope] = {}
        kept[word] = ids
        self._word_count += 1
        return ids

    def _forget(self) -> None:
        self._words.clear()
        self._kept.clear()
        self._kept_chars = self._word_count = self.hits = self.misses = 0

    def _keep(self, key: tuple[str, str], ids: list[int]) -> None:
        self._kept[key] = ids
        self._kept_chars += len(key[1])
        while len(self._kept) > MAX_ENTRIES or self._kept_chars > MAX_CHARS:
            (_, piece), _ = self._kept.popitem(last=False)
            self._kept_chars -= len(piece)


def _lines(text: str) -> list[str]:
    """``text`` cut before every line break that follows a character other than whitespace (where a word of the
    pre-tokenizer always ends); a line break after whitespace stays inside the piece it continues."""
    parts = text.split("\n")
    lines: list[str] = []
    current = parts[0]
    for part in parts[1:]:
        if current and not current[-1].isspace():
            lines.append(current)
            current = "\n" + part
        else:
            current += "\n" + part
    lines.append(current)
    return lines


def _digits_apart(backend: Any) -> bool | None:
    """Whether the tokenizer's pre-tokenizer splits digits apart before its byte-level regex (True), runs the regex
    alone (False), or is neither (None: pieces are encoded whole)."""
    try:
        config = json.loads(backend.to_str()).get("pre_tokenizer") or {}
    except (AttributeError, TypeError, ValueError):
        return None

    def byte_level(step: dict[str, Any]) -> bool:
        return all(step.get(k) == v for k, v in _BYTE_LEVEL.items())

    if byte_level(config):
        return False
    steps = config.get("pretokenizers") if config.get("type") == "Sequence" else None
    if (isinstance(steps, list) and len(steps) == 2 and steps[0] == {"type": "Digits", "individual_digits": True}
            and byte_level(steps[1])):
        return True
    return None


_encoders: weakref.WeakKeyDictionary[Any, SegmentEncoder | None] = weakref.WeakKeyDictionary()


def segment_encoder(tokenizer: TokenizerLike) -> SegmentEncoder | None:
    """The one encoder of ``tokenizer`` (made on first use), or None where its prompts are encoded whole."""
    try:
        return _encoders[tokenizer]
    except KeyError:
        pass
    except TypeError:  # not weakly referenceable: encoded whole
        return None
    encoder = _encoders[tokenizer] = SegmentEncoder.build(tokenizer)
    return encoder
