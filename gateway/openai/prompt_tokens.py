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
"""

from __future__ import annotations

import re
import weakref
from collections import OrderedDict
from typing import Any

from engine.protocol import TokenizerLike

MAX_ENTRIES = 4096
# The kept pieces' text, all tenants together. Their ids take about nine bytes per character more (a token per four
# characters, a list slot and an int object each): some 20 MiB in all at most.
MAX_CHARS = 2 * 1024 * 1024
MAX_PIECE_CHARS = 64 * 1024  # a longer piece is encoded every time (it would take a large share of the budget)
# A probe encoded both ways when an encoder is made: a tokenizer this module misjudges is encoded whole.
_PROBE = "Hello  world!\n\n 12345 émoji 🙂 tabs\tand  spaces\n"


class SegmentEncoder:
    def __init__(self, backend: Any, added: dict[str, int]) -> None:
        self._backend = backend
        self._added = added
        # Longest first: the alternation then matches the longest added token at each place, as the tokenizer does.
        self._split = re.compile("(" + "|".join(re.escape(t) for t in sorted(added, key=len, reverse=True)) + ")")
        self._kept: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
        self._kept_chars = 0
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
        encoder._forget()  # the probe's pieces and counts
        return encoder

    def encode(self, text: str, *, scope: str, fresh: str) -> list[int]:
        """``text``'s ids (no special tokens added). Pieces are kept per ``scope`` (the tenant); a piece holding
        ``fresh`` (the newest message) is not kept."""
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
                self.hits += 1
                ids += kept
                continue
            self.misses += 1
            piece_ids = self._backend.encode_batch_fast([piece], add_special_tokens=False)[0].ids
            ids += piece_ids
            if len(piece) <= MAX_PIECE_CHARS and (not fresh or fresh not in piece):
                self._keep(key, piece_ids)
        return ids

    def _forget(self) -> None:
        self._kept.clear()
        self._kept_chars = self.hits = self.misses = 0

    def _keep(self, key: tuple[str, str], ids: list[int]) -> None:
        self._kept[key] = ids
        self._kept_chars += len(key[1])
        while len(self._kept) > MAX_ENTRIES or self._kept_chars > MAX_CHARS:
            (_, piece), _ = self._kept.popitem(last=False)
            self._kept_chars -= len(piece)


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
