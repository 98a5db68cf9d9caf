"""What a decode step costs on this machine, by the number of query tokens it computes: measured, not assumed.

Whether verifying drafts pays depends on how much more a step of ``B + D`` tokens costs than one of ``B``. On a
GPU a decode step is memory-bound and a few more rows are nearly free; on a CPU a lone sequence runs one-row
kernels while a verification step runs the slower multi-row GEMMs, and large batches are compute-bound. Rather
than guess per device, the engine times its own decode-only steps and keeps, per token count, the median of the
latest few (robust to a noisy neighbour and to one slow outlier).

The first step of each size is not recorded: it may compile a graph or allocate. A size with fewer than
``min_samples`` recorded steps is unknown: between measured sizes it is interpolated, and past the largest it is
treated optimistically (see ``estimate``), so larger sizes get measured once they are chosen.

On a CPU a step is timed on this process's CPU time, not the wall clock (``step_clock``). The budget compares a
plain step's cost with a verification step's, measured seconds apart; on a shared machine the wall time of the same
step swings by half from one second to the next with what other processes take from the cores, while the budget's
margin is often a few percent (a lone sequence of an agentic trace here: four drafts are worth about 4.3 steps, and
a step of five tokens costs about 4.5 plain ones). On wall-clock costs the decision would follow the neighbours'
load, and one trace would draft half its proposals in one run and a quarter in the next. A step's CPU time is the
work the step itself does, and the ratio of two such costs is what decides tokens per second at any load. On a GPU
the host waits for the device, so its CPU time says nothing of the step: the wall clock there.

The sizes' medians are still measured at different times, so they can dip where the caches or clocks were kinder;
a dip would make that size look like a bargain. Steps never get cheaper with more tokens, so the table
answers with the closest non-decreasing fit of the medians (isotonic regression, each size weighted by its
samples; pool-adjacent-violators).
"""

from __future__ import annotations

import bisect
import statistics
import time
from collections import deque
from collections.abc import Callable


def step_clock(device_type: str) -> Callable[[], float]:
    """The clock a decode step's cost is read on, for an engine on ``device_type`` ("cpu", "cuda"): this process's
    CPU time on a CPU, the wall clock elsewhere."""
    return time.process_time if device_type == "cpu" else time.perf_counter


class StepCostTable:
    def __init__(self, *, window: int = 8, min_samples: int = 3) -> None:
        self.window = window
        self.min_samples = min_samples
        self._samples: dict[int, deque[float]] = {}
        self._seen: set[int] = set()  # sizes whose first (warm-up) step has passed
        self._medians: dict[int, float] = {}  # of the sizes with at least ``min_samples`` samples
        # The fit, as parallel sorted lists (looked up by bisection: the budget asks for many sizes per step).
        self._sizes: list[int] = []
        self._costs: list[float] = []
        self._stale = False

    def record(self, num_tokens: int, seconds: float) -> None:
        if num_tokens not in self._seen:
            self._seen.add(num_tokens)
            return
        samples = self._samples.setdefault(num_tokens, deque(maxlen=self.window))
        samples.append(seconds)
        if len(samples) >= self.min_samples:
            self._medians[num_tokens] = statistics.median(samples)
            self._stale = True

    def _fit(self) -> None:
        if self._stale:
            fit = non_decreasing_fit([(n, m, len(self._samples[n])) for n, m in sorted(self._medians.items())])
            self._sizes, self._costs = list(fit), list(fit.values())
            self._stale = False

    def fitted(self) -> dict[int, float]:
        """Every measured size and its fitted cost in seconds (benchmarks report them)."""
        self._fit()
        return dict(zip(self._sizes, self._costs, strict=True))

    def covers(self, num_tokens: int) -> bool:
        """Whether ``num_tokens`` is measured or lies between measured sizes, so its estimate is no guess."""
        self._fit()
        return bool(self._sizes) and self._sizes[0] <= num_tokens <= self._sizes[-1]

    def estimate(self, num_tokens: int) -> float | None:
        """The cost of a step of ``num_tokens``. A size not measured yet between two measured ones is interpolated
        between them; past the largest measured size it costs what that one does (steps do not get cheaper with
        more tokens), so it looks as cheap as it could be and gets tried. None when nothing that small was
        measured."""
        self._fit()
        sizes, costs = self._sizes, self._costs
        at = bisect.bisect_left(sizes, num_tokens)
        if at < len(sizes) and sizes[at] == num_tokens:
            return costs[at]
        if at == 0:
            return None
        if at == len(sizes):
            return costs[-1]
        low, high = sizes[at - 1], sizes[at]
        return costs[at - 1] + (costs[at] - costs[at - 1]) * (num_tokens - low) / (high - low)


def non_decreasing_fit(points: list[tuple[int, float, int]]) -> dict[int, float]:
    """The weighted least-squares non-decreasing fit of ``(size, value, weight)`` points sorted by size: adjacent
    values that decrease are pooled into their weighted mean until none do."""
    pools: list[tuple[float, float, int]] = []  # (mean, weight, points pooled)
    for _, value, weight in points:
        mean, total, count = value, float(weight), 1
        while pools and pools[-1][0] > mean:
            prev_mean, prev_weight, prev_count = pools.pop()
            mean = (prev_mean * prev_weight + mean * total) / (prev_weight + total)
            total, count = prev_weight + total, prev_count + count
        pools.append((mean, total, count))
    fitted: dict[int, float] = {}
    sizes = iter(n for n, _, _ in points)
    for mean, _, count in pools:
        for _ in range(count):
            fitted[next(sizes)] = mean
    return fitted
