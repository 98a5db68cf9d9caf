"""Output guardrails: PII actions and deny-patterns on completion text, whole or streamed.

Streaming keeps a bounded hold-back window: the last `holdback_chars` characters are never emitted until more
text arrives (or the stream ends), and a cut never falls inside a detected entity. An entity no longer than the
window that arrives split across SSE chunks is therefore always seen whole before any of it leaves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.redaction import EntityTally, apply_actions, decide
from policies import PiiAction, Policy, needs_ner

DENY_PATTERN_ENTITY = "DENIED_CONTENT"


@dataclass(frozen=True, slots=True)
class OutputRules:
    """What the output side needs from a policy, compiled once per request."""

    policy: Policy
    deny_patterns: tuple[re.Pattern[str], ...]
    use_ner: bool

    @classmethod
    def from_policy(cls, policy: Policy) -> OutputRules:
        return cls(policy, tuple(re.compile(p) for p in policy.output_deny_patterns), needs_ner(policy.pii_output))


def _analyze(analyzer: PiiAnalyzer, rules: OutputRules, text: str) -> list[tuple[Finding, PiiAction]]:
    decided = decide(analyzer.analyze(text, ner_enabled=rules.use_ner), rules.policy.pii_output)
    denied = [
        Finding(DENY_PATTERN_ENTITY, match.start(), match.end(), 1.0, "deny_pattern")
        for pattern in rules.deny_patterns
        for match in pattern.finditer(text)
        if match.end() > match.start()
    ]
    if not denied:
        return decided
    # A deny-pattern match wins over PII inside it: drop the PII decisions it overlaps.
    kept = [(finding, action) for finding, action in decided if not any(finding.overlaps(d) for d in denied)]
    return kept + [(finding, PiiAction.MASK) for finding in denied]


def _as_output_action(action: PiiAction) -> PiiAction:
    # Text already streamed cannot be refused with a 400; on output "block" withholds the value like mask does.
    return PiiAction.MASK if action is PiiAction.BLOCK else action


def redact_output_text(
    analyzer: PiiAnalyzer, policy: Policy, text: str, token_key: bytes
) -> tuple[str, list[dict[str, object]]]:
    """Non-streamed completion: redact the whole text at once. Returns (safe text, audit decisions)."""
    rules = OutputRules.from_policy(policy)
    decided = _analyze(analyzer, rules, text)
    tally = EntityTally()
    for finding, action in decided:
        tally.add(finding, action)
    safe = apply_actions(text, [(f, _as_output_action(a)) for f, a in decided], token_key)
    return safe, ([{"kind": "pii", "side": "output", "entities": tally.as_records()}] if tally.counts else [])


class OutputRedactor:
    """Redacts a streamed completion: feed(delta) returns text safe to send now, flush() the rest at the end."""

    def __init__(
        self,
        analyzer: PiiAnalyzer,
        policy: Policy,
        token_key: bytes,
        *,
        holdback_chars: int = 96,
        min_emit_chars: int = 32,
    ) -> None:
        if holdback_chars < 1:
            raise ValueError("holdback_chars must be positive")
        self._analyzer = analyzer
        self._rules = OutputRules.from_policy(policy)
        self._token_key = token_key
        self._holdback = holdback_chars
        self._min_emit = min_emit_chars
        self._pending = ""
        self.tally = EntityTally()

    def analyses(self, delta: str) -> bool:
        """Whether feed(delta) would analyse text; if not, it only buffers and is cheap enough for the event loop."""
        return len(self._pending) + len(delta) >= self._holdback + self._min_emit

    def feed(self, delta: str) -> str:
        # Analyse only once enough text is pending to emit something; tiny deltas just accumulate.
        analyse = self.analyses(delta)
        self._pending += delta
        if not analyse:
            return ""
        decided = _analyze(self._analyzer, self._rules, self._pending)
        cut = len(self._pending) - self._holdback
        # Prefer cutting at whitespace so a word (and any entity it begins) stays whole in the window.
        space = self._pending.rfind(" ", 0, cut + 1)
        if space > 0:
            cut = space
        # Never emit part of an entity: move the cut before any finding that straddles it.
        for finding, _ in sorted(decided, key=lambda item: item[0].start):
            if finding.start < cut < finding.end:
                cut = finding.start
        if cut <= 0:
            return ""
        emitted = [(f, a) for f, a in decided if f.end <= cut]
        return self._emit(cut, emitted)

    @property
    def pending_chars(self) -> int:
        return len(self._pending)

    def flush(self) -> str:
        if not self._pending:
            return ""
        decided = _analyze(self._analyzer, self._rules, self._pending)
        return self._emit(len(self._pending), decided)

    def decisions(self) -> list[dict[str, object]]:
        return [{"kind": "pii", "side": "output", "entities": self.tally.as_records()}] if self.tally.counts else []

    def _emit(self, cut: int, decided: list[tuple[Finding, PiiAction]]) -> str:
        for finding, action in decided:
            self.tally.add(finding, action)
        text = apply_actions(self._pending[:cut], [(f, _as_output_action(a)) for f, a in decided], self._token_key)
        self._pending = self._pending[cut:]
        return text
