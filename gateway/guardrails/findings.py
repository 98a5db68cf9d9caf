"""What a detector reports: where an entity is and how sure it is. Never the value itself."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    entity_type: str
    start: int
    end: int
    score: float
    source: str  # recognizer name, for audit explanations

    def overlaps(self, other: Finding) -> bool:
        return self.start < other.end and other.start < self.end


def resolve_overlaps(findings: list[Finding], first: Collection[str] = ()) -> list[Finding]:
    """Keep a non-overlapping subset, preferring types in ``first``, then higher scores, then longer spans (a card
    over a phone inside it).

    Greedy in rank order: a finding is kept when it overlaps none kept before it (``Finding.overlaps``). The kept
    findings are indexed rather than scanned: kept spans with ``start < end`` never overlap one another, so sorted by
    start their ends are sorted too, and the only one that can reach past a new finding's start is the last one that
    starts before its end (one bisect). Kept empty spans (``start == end``) are points, kept apart: one overlaps a
    new finding exactly when it lies strictly inside it. A reversed span (``start > end``) breaks that order, so a
    list holding one takes the plain pairwise scan; either way the result is the same."""
    if len(findings) < 2:
        return list(findings)
    ranked = sorted(findings, key=lambda f: (f.entity_type not in first, -f.score, -(f.end - f.start), f.start))
    kept: list[Finding] = []
    if any(f.start > f.end for f in findings):
        for finding in ranked:
            if not any(finding.overlaps(other) for other in kept):
                kept.append(finding)
        return sorted(kept, key=lambda f: f.start)
    starts: list[int] = []  # kept spans with start < end, by start
    ends: list[int] = []  # their ends, in the same order (so sorted too)
    points: list[int] = []  # kept empty spans' positions, sorted
    for finding in ranked:
        start, end = finding.start, finding.end
        i = bisect_left(starts, end)  # starts[:i] are the kept spans that open before this one closes
        if i and ends[i - 1] > start:
            continue
        j = bisect_right(points, start)  # points[j:] lie after this one's start
        if j < len(points) and points[j] < end:
            continue
        kept.append(finding)
        if start < end:
            k = bisect_right(starts, start)
            starts.insert(k, start)
            ends.insert(k, end)
        else:
            points.insert(j, start)
    return sorted(kept, key=lambda f: f.start)
