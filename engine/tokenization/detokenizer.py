"""Incremental detokenization for streaming, and stop-string handling on the text stream.

Byte-level BPE tokens can end in the middle of a UTF-8 character; decoding a sliding window and holding back
any text that ends in U+FFFD means a delta never carries half a character. Concatenating every delta (plus
``flush()``) equals decoding all output tokens at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.protocol import TokenizerLike

# Prompt tokens kept as left context so the first output token decodes with the right leading space.
_CONTEXT_TOKENS = 4


class IncrementalDetokenizer:
    def __init__(self, tokenizer: TokenizerLike, prompt_ids: Sequence[int], skip_special_tokens: bool = True) -> None:
        self.tokenizer = tokenizer
        self.skip_special_tokens = skip_special_tokens
        self.ids: list[int] = list(prompt_ids[-_CONTEXT_TOKENS:])
        self.prefix_offset = 0
        self.read_offset = len(self.ids)

    def _decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=self.skip_special_tokens)

    def push(self, token_id: int) -> str:
        """New complete text after appending ``token_id`` ("" while a character is still incomplete)."""
        self.ids.append(token_id)
        prefix = self._decode(self.ids[self.prefix_offset : self.read_offset])
        full = self._decode(self.ids[self.prefix_offset :])
        if len(full) > len(prefix) and not full.endswith("\ufffd"):
            self.prefix_offset, self.read_offset = self.read_offset, len(self.ids)
            return full[len(prefix) :]
        return ""

    def flush(self) -> str:
        """Whatever is still held back (an incomplete character decodes to U+FFFD, as a full decode would)."""
        prefix = self._decode(self.ids[self.prefix_offset : self.read_offset])
        full = self._decode(self.ids[self.prefix_offset :])
        self.prefix_offset = self.read_offset = len(self.ids)
        return full[len(prefix) :] if len(full) > len(prefix) else ""


class StopStringFilter:
    """Holds back just enough text that a stop string split across deltas is caught before any of it leaks."""

    def __init__(self, stops: Sequence[str]) -> None:
        self.stops = [s for s in stops if s]
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.pending = ""
        self.stopped = False
        self.matched: str | None = None  # the stop string that ended the text, once stopped

    def feed(self, text: str, *, armed: bool = True) -> tuple[str, bool]:
        """Returns (text safe to emit, stopped). After ``stopped`` nothing more may be emitted. Unarmed (before a
        request's ``min_tokens``), text passes through unsearched: a stop string must end after the minimum."""
        if not self.stops:
            return text, False
        if not armed:
            out, self.pending = self.pending + text, ""
            return out, False
        self.pending += text
        # The earliest match ends the text; of stops matching at the same place, the first one listed.
        hit, matched = min(((i, n) for n, i in enumerate(self.pending.find(s) for s in self.stops) if i >= 0),
                           default=(-1, -1))
        if hit >= 0:
            out, self.pending = self.pending[:hit], ""
            self.stopped = True
            self.matched = self.stops[matched]
            return out, True
        cut = max(0, len(self.pending) - self.hold)
        out, self.pending = self.pending[:cut], self.pending[cut:]
        return out, False

    def flush(self) -> str:
        out, self.pending = self.pending, ""
        return out
