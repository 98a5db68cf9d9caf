"""What a detector reports: where an entity is and how sure it is. Never the value itself."""

from __future__ import annotations

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
    over a phone inside it)."""
    ranked = sorted(findings, key=lambda f: (f.entity_type not in first, -f.score, -(f.end - f.start), f.start))
    kept: list[Finding] = []
    for finding in ranked:
        if not any(finding.overlaps(other) for other in kept):
            kept.append(finding)
    return sorted(kept, key=lambda f: f.start)
