"""N-gram (prompt-lookup) drafts: if the sequence's last n tokens occurred before, propose what followed them.

Outputs that quote their context (extraction, summaries with citations, code edits, agents re-emitting tool
arguments or earlier turns) repeat long runs of it, and there the draft is right for several tokens at a time.
The match is the longest suffix n-gram (``max_n`` down to ``min_n`` tokens) with an earlier occurrence, the most
recent one when there are several (nearby text predicts best); the proposal is up to ``k`` tokens following it.

Each sequence keeps an ``NgramIndex``: n-gram -> where its latest occurrence ends, extended by the tokens appended
since the last proposal, so a proposal costs O(max_n) dictionary work however long the sequence is (no forward
pass, no scan of the context).
"""

from __future__ import annotations


class NgramIndex:
    """Latest end position of every n-gram (``min_n <= n <= max_n``) of a token list, kept up to date lazily."""

    __slots__ = ("_ends", "_indexed_to", "_max_n", "_min_n")

    def __init__(self, min_n: int, max_n: int) -> None:
        self._min_n, self._max_n = min_n, max_n
        self._ends: dict[tuple[int, ...], int] = {}
        self._indexed_to = 0  # n-grams ending at or before this position are in the index

    def catch_up(self, token_ids: list[int], end: int) -> None:
        """Index every n-gram that ends at a position ``<= end``."""
        for stop in range(max(self._indexed_to + 1, self._min_n), end + 1):
            for n in range(self._min_n, min(self._max_n, stop) + 1):
                self._ends[tuple(token_ids[stop - n : stop])] = stop
        self._indexed_to = max(self._indexed_to, end)

    def latest_end(self, ngram: tuple[int, ...]) -> int | None:
        return self._ends.get(ngram)


class NgramProposer:
    def __init__(self, num_tokens: int, *, min_n: int = 2, max_n: int = 4) -> None:
        if num_tokens < 1:
            raise ValueError("num_speculative_tokens must be positive")
        if not 1 <= min_n <= max_n:
            raise ValueError("prompt lookup needs 1 <= prompt_lookup_min <= prompt_lookup_max")
        self.num_tokens = num_tokens
        self.min_n = min_n
        self.max_n = max_n

    def new_index(self) -> NgramIndex:
        return NgramIndex(self.min_n, self.max_n)

    def propose(self, token_ids: list[int], index: NgramIndex, limit: int | None = None) -> list[int]:
        """Up to ``min(k, limit)`` draft tokens to follow ``token_ids`` (empty when no n-gram recurs)."""
        return self.lookup(token_ids, index, limit)[0]

    def lookup(self, token_ids: list[int], index: NgramIndex, limit: int | None = None) -> tuple[list[int], int]:
        """The proposal and the length of the n-gram it continues (0: none recurs)."""
        k = self.num_tokens if limit is None else min(self.num_tokens, limit)
        length = len(token_ids)
        if k <= 0 or length <= self.min_n:
            return [], 0
        # Everything but the suffix's own occurrence (the one ending at the last token) is a candidate.
        index.catch_up(token_ids, length - 1)
        for n in range(min(self.max_n, length - 1), self.min_n - 1, -1):
            end = index.latest_end(tuple(token_ids[length - n :]))
            if end is not None:
                return token_ids[end : end + k], n
        return [], 0
