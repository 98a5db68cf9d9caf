"""The batch's packed token bitmask, filled on the CPU (in parallel, off the GIL) while the forward pass runs."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import llguidance
import torch

from engine.structured.matcher import GrammarMatcher
from engine.structured.tokenizer import bitmask_words

ALL_ALLOWED = -1  # an int32 word with every bit set


class BatchBitmask:
    """One preallocated ``[max_batch, words]`` int32 buffer (pinned when CUDA is present, so the copy to the
    device is asynchronous). Row i belongs to the i-th sequence of the step's sampling batch; rows of
    unconstrained sequences allow everything, so one mask covers a mixed batch.

    Usage in a step: ``pending = bitmask.fill_async(matchers)`` before launching the forward pass, then
    ``mask = pending.result()`` just before sampling, and ``kernels.token_bitmask.apply_token_bitmask_(logits,
    mask)``. The mask is None (and costs nothing) when no sequence in the batch is constrained.
    """

    def __init__(self, max_batch: int, vocab_size: int, *, num_threads: int | None = None) -> None:
        self.words = bitmask_words(vocab_size)
        pin = torch.cuda.is_available()
        self._buffer = torch.full((max_batch, self.words), ALL_ALLOWED, dtype=torch.int32, pin_memory=pin)
        # llguidance's executor spreads the rows over its own threads with the GIL released.
        self._executor = llguidance.LLExecutor(num_threads=num_threads)
        # One helper thread waits on the executor so the caller's thread can launch the forward pass meanwhile.
        self._helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bitmask")

    @property
    def max_batch(self) -> int:
        return self._buffer.shape[0]

    def fill(self, matchers: Sequence[Any], errors: dict[int, str] | None = None) -> torch.Tensor | None:
        """The mask for the batch as a ``[len(matchers), words]`` view of the buffer, or None when no sequence is
        constrained. The view is overwritten by the next fill: apply it (or copy it to the device) first.

        With ``errors`` given, a failing row does not fail the batch: the batched fill is retried row by row and
        each row that still fails is recorded as ``errors[row] = reason`` (its row allows everything; the caller
        must discard whatever is sampled there and fail that sequence). Without it, the exception propagates."""
        batch = len(matchers)
        if batch > self.max_batch:
            raise ValueError(f"batch of {batch} exceeds the bitmask's {self.max_batch} rows")
        if all(m is None for m in matchers):
            return None
        view = self._buffer[:batch]
        rows = [(m.ll_matcher, i) for i, m in enumerate(matchers) if isinstance(m, GrammarMatcher)]
        try:
            if len(rows) < batch:
                view.fill_(ALL_ALLOWED)
                for i, m in enumerate(matchers):  # other duck-typed matchers fill their own (pre-set) row
                    if m is not None and not isinstance(m, GrammarMatcher):
                        m.fill_bitmask(view[i])
            if rows:
                self._executor.unsafe_compute_mask_ptr(rows, view.data_ptr(), self.words * 4, batch)
        except Exception:
            if errors is None:
                raise
            self._fill_rows(matchers, view, errors)
        return view

    @staticmethod
    def _fill_rows(matchers: Sequence[Any], view: torch.Tensor, errors: dict[int, str]) -> None:
        """The slow path after a batched fill raised: one row at a time, so only the culprits fail."""
        view.fill_(ALL_ALLOWED)
        for i, m in enumerate(matchers):
            if m is None:
                continue
            try:
                m.fill_bitmask(view[i])
            except Exception as exc:
                view[i].fill_(ALL_ALLOWED)
                errors[i] = f"output constraint failed: {exc}"

    def fill_async(self, matchers: Sequence[Any], errors: dict[int, str] | None = None
                   ) -> Future[torch.Tensor | None]:
        """``fill`` on the helper thread (the forward pass runs meanwhile on the caller's). The matchers must not be
        advanced, nor ``errors`` read, until the future is done."""
        return self._helper.submit(self.fill, list(matchers), errors)

    def close(self) -> None:
        self._helper.shutdown(wait=True)
