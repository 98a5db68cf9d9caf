"""What a decode step costs on this machine, by the number of query tokens it computes: measured, not assumed.

Whether verifying drafts pays depends on how much more a step of ``B + D`` tokens costs than one of ``B``. On a
GPU a decode step is memory-bound and a few more rows are nearly free; on a CPU a lone sequence runs one-row
kernels while a verification step runs the multi-row GEMMs (about 1.7x the time), and large batches are
compute-bound. Rather than guess per device, the engine times its own decode-only steps and keeps, per token
count, the median of the latest few (robust to a noisy neighbour and to one slow outlier).

The first step of each size is not recorded: it may compile a graph or allocate. A size with fewer than
``min_samples`` recorded steps is unknown, and callers treat it optimistically (see ``estimate``), so each size
the engine could choose gets measured once it is chosen.
"""

from __future__ import annotations

import statistics
from collections import deque


class StepCostTable:
    def __init__(self, *, window: int = 8, min_samples: int = 3) -> None:
        self.window = window
        self.min_samples = min_samples
        self._samples: dict[int, deque[float]] = {}
        self._seen: set[int] = set()  # sizes whose first (warm-up) step has passed
        self._medians: dict[int, float] = {}  # of the sizes with at least ``min_samples`` samples

    def record(self, num_tokens: int, seconds: float) -> None:
        if num_tokens not in self._seen:
            self._seen.add(num_tokens)
            return
        samples = self._samples.setdefault(num_tokens, deque(maxlen=self.window))
        samples.append(seconds)
        if len(samples) >= self.min_samples:
            self._medians[num_tokens] = statistics.median(samples)

    def known(self, num_tokens: int) -> bool:
        return num_tokens in self._medians

    def measured(self, num_tokens: int) -> float | None:
        return self._medians.get(num_tokens)

    def estimate(self, num_tokens: int) -> float | None:
        """The measured cost of a step of ``num_tokens``; for a size not measured yet, the dearest measured step
        no larger (steps do not get cheaper with more tokens), so an unmeasured size looks as cheap as it could be
        and gets tried. None when nothing that small was measured."""
        if num_tokens in self._medians:
            return self._medians[num_tokens]
        below = [cost for n, cost in self._medians.items() if n <= num_tokens]
        return max(below) if below else None
