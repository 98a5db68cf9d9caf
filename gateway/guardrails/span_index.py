"""Spans already taken, asked in logarithmic time whether any overlaps a new one: a text may hold thousands of
findings, and a rule that compared each candidate with every span taken so far would be quadratic in the text."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable


class SpanIndex:
    """[start, end) spans: those given at the start (which may overlap one another) and those added after, which
    overlap none of the spans already held (a rule adds a span only where nothing overlaps it)."""

    def __init__(self, spans: Iterable[tuple[int, int]] = ()) -> None:
        given = sorted(spans)
        self._starts = [start for start, _ in given]
        self._max_ends = list(itertools.accumulate((end for _, end in given), max))
        self._added_starts: list[int] = []
        self._added_ends: list[int] = []

    def overlaps(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self._starts, end)  # the given spans starting before `end`
        if before > 0 and self._max_ends[before - 1] > start:
            return True
        # Added spans do not overlap one another, so sorted by start they are sorted by end too.
        before = bisect.bisect_left(self._added_starts, end)
        return before > 0 and self._added_ends[before - 1] > start

    def add(self, start: int, end: int) -> None:
        """Hold [start, end) too; it must overlap no span held."""
        at = bisect.bisect_left(self._added_starts, start)
        self._added_starts.insert(at, start)
        self._added_ends.insert(at, end)
