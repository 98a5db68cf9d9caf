"""Apply a policy's PII actions to findings and rewrite the text.

mask  -> <EMAIL_ADDRESS>
hash  -> <EMAIL_ADDRESS_1a2b3c4d>: HMAC of the value under a per-tenant key, so the same address in two messages
         (or two turns) becomes the same token and the model can still refer to it, while no other tenant, and
         no one without the server secret, can link or reverse it.
block -> nothing is rewritten; the caller refuses the request naming the entity types.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gateway.guardrails.findings import Finding, resolve_overlaps
from policies import PiiAction, PiiRules, pii_action

TOKEN_HEX_CHARS = 8


def tenant_token_key(server_secret: bytes, tenant_id: str) -> bytes:
    return hmac.new(server_secret, b"warden-pii-token\x00" + tenant_id.encode(), hashlib.sha256).digest()


def pii_token(token_key: bytes, entity_type: str, value: str) -> str:
    # Normalise so "Bob@Example.com " and "bob@example.com" map to one token.
    normalized = " ".join(value.split()).casefold()
    digest = hmac.new(token_key, f"{entity_type}\x00{normalized}".encode(), hashlib.sha256).hexdigest()
    return f"<{entity_type}_{digest[:TOKEN_HEX_CHARS]}>"


@dataclass(slots=True)
class EntityTally:
    """Per entity type: how many findings got which action and the highest score. Types and numbers only."""

    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    max_scores: dict[str, float] = field(default_factory=dict)

    def add(self, finding: Finding, action: PiiAction) -> None:
        self.counts[(finding.entity_type, action.value)] += 1
        self.max_scores[finding.entity_type] = max(self.max_scores.get(finding.entity_type, 0.0), finding.score)

    def merge(self, other: EntityTally) -> None:
        self.counts.update(other.counts)
        for entity_type, score in other.max_scores.items():
            self.max_scores[entity_type] = max(self.max_scores.get(entity_type, 0.0), score)

    def blocked_types(self) -> list[str]:
        return sorted({entity for entity, action in self.counts if action == PiiAction.BLOCK.value})

    def as_records(self) -> list[dict[str, object]]:
        return [
            {"entity_type": entity, "action": action, "count": count, "max_score": round(self.max_scores[entity], 3)}
            for (entity, action), count in sorted(self.counts.items())
        ]


def decide(
    findings: list[Finding], rules: PiiRules, *, fail_closed: bool = False
) -> list[tuple[Finding, PiiAction]]:
    """Findings that pass the threshold, without overlaps, each with its action (allow included, for the tally).

    ``fail_closed`` (the input side, where block refuses the request): where a finding of a type the policy blocks
    overlaps one of another type (an ITIN that is also a US_SSN shape, a name that is also a place), the blocked
    one is kept, whatever the scores, so the request is refused. On output, block withholds like mask, and the usual
    resolution (higher score, then longer span) keeps the span that covers the most."""
    passing = [f for f in findings if f.score >= rules.score_threshold]
    blocked = {f.entity_type for f in passing if pii_action(rules, f.entity_type, f.score) is PiiAction.BLOCK}
    kept = resolve_overlaps(passing, first=blocked if fail_closed else ())
    return [(finding, pii_action(rules, finding.entity_type, finding.score)) for finding in kept]


def apply_actions(text: str, decided: list[tuple[Finding, PiiAction]], token_key: bytes) -> str:
    """`text` with each masked or hashed finding's span replaced by its token, spliced in one pass. ``decide`` resolves
    the PII findings into spans that do not overlap, but other callers' findings may (two output deny patterns that
    match the same value): spans that overlap the one before are merged into it, as presidio-anonymizer's default
    conflict resolution does, so a value is replaced once, by the first span's token over the merged text.
    presidio-anonymizer writes the same text at about ten times the cost (tests/guardrails/test_guard_redaction.py
    compares the two)."""
    rewrites = sorted(((finding, action) for finding, action in decided if action in (PiiAction.MASK, PiiAction.HASH)),
                      key=lambda pair: (pair[0].start, -pair[0].end))
    if not rewrites:
        return text
    spans: list[list[Any]] = []  # [start, end, entity type, action], overlaps merged
    for finding, action in rewrites:
        if spans and finding.start < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], finding.end)
        else:
            spans.append([finding.start, finding.end, finding.entity_type, action])
    parts: list[str] = []
    cursor = 0
    for start, end, entity_type, action in spans:
        parts.append(text[cursor:start])
        if action is PiiAction.MASK:
            parts.append(f"<{entity_type}>")
        else:
            parts.append(pii_token(token_key, entity_type, text[start:end]))
        cursor = end
    parts.append(text[cursor:])
    return "".join(parts)
