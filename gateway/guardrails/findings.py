"""What a detector reports: where an entity is and how sure it is. Never the value itself."""

from __future__ import annotations

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


def resolve_overlaps(findings: list[Finding]) -> list[Finding]:
    """Keep a non-overlapping subset, preferring higher scores, then longer spans (a card over a phone inside it)."""
    ranked = sorted(findings, key=lambda f: (-f.score, -(f.end - f.start), f.start))
    kept: list[Finding] = []
    for finding in ranked:
        if not any(finding.overlaps(other) for other in kept):
            kept.append(finding)
    return sorted(kept, key=lambda f: f.start)
