"""Everything the audit record of one /v1 call needs, filled in as the request moves through the gateway."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gateway.audit.chain import canonical_json
from gateway.audit.event import AuditEvent
from gateway.core.clock import utcnow
from gateway.core.ids import uuid4_text
from gateway.core.middleware import RequestTiming
from policies import AuditContent

CLIENT_CLOSED_REQUEST = 499  # nginx's code for "the client went away before the response"
SHUTDOWN = "shutdown"  # the error type and finish reason of a call the server's shutdown cut (gateway.lifecycle)


def cut_short(by_shutdown: bool) -> tuple[int, str]:
    """The audited status and error type of a call that ended before its response did: the client went away, or
    the server's shutdown cut it at the end of its grace period."""
    return (503, SHUTDOWN) if by_shutdown else (CLIENT_CLOSED_REQUEST, "client_closed")


def sha256_hex(value: Any) -> str:
    data = value.encode() if isinstance(value, str) else canonical_json(value)
    return hashlib.sha256(data).hexdigest()


@dataclass(slots=True)
class CallRecord:
    endpoint: str
    request_id: str
    timing: RequestTiming
    created_at: datetime = field(default_factory=utcnow)
    tenant_id: str | None = None
    key_id: str | None = None
    model: str | None = None
    policy_version: int | None = None
    audit_content: AuditContent | None = None  # None until a policy is known: no content is stored
    decisions: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str | None = None
    prompt: Any = None  # as received (messages or prompts)
    prompt_screened: Any = None  # as the model saw it (after input guardrails)
    completions: list[str] = field(default_factory=list)  # as produced by the model
    completions_screened: list[str] = field(default_factory=list)  # as released (after output guardrails)
    recorded: bool = False
    # One id for every version of this call's record: a stream's provisional record and its final one.
    event_id: str = field(default_factory=uuid4_text)

    def decide(self, stage: str, **details: Any) -> None:
        self.decisions.append({"stage": stage, **details})

    def _content(self) -> dict[str, Any] | None:
        if self.audit_content is None or self.prompt is None:
            return None
        if self.audit_content is AuditContent.FULL:
            return {"mode": "full", "prompt": self.prompt, "completions": self.completions}
        if self.audit_content is AuditContent.REDACTED:
            screened = self.prompt_screened if self.prompt_screened is not None else self.prompt
            # Only what the output guardrails released: never the raw completions, even if none were released.
            released = self.completions_screened
            return {"mode": "redacted", "prompt": screened, "completions": released}
        return {"mode": "hashes", "prompt_sha256": sha256_hex(self.prompt),
                "completions_sha256": [sha256_hex(text) for text in self.completions]}

    def to_event(self, http_status: int, error_type: str | None = None) -> AuditEvent:
        return AuditEvent(
            created_at=self.created_at, request_id=self.request_id, endpoint=self.endpoint, http_status=http_status,
            latency_ms=round(self.timing.elapsed_ms(), 3), overhead_ms=round(self.timing.overhead_ms(), 3),
            tenant_id=self.tenant_id, key_id=self.key_id, model=self.model, error_type=error_type,
            finish_reason=self.finish_reason, prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens, cached_tokens=self.cached_tokens,
            policy_version=self.policy_version, decisions=list(self.decisions), content=self._content(),
            event_id=self.event_id,
        )

    def provisional_event(self) -> AuditEvent:
        """A stream's record as it stands before its first byte: what is stored if the gateway dies mid-stream
        (``AuditWriter.open_stream``). The client saw a 200; the record says the stream was interrupted."""
        event = self.to_event(200, "interrupted")
        event.finish_reason = "interrupted"
        event.decisions.append({"stage": "audit", "decision": "provisional",
                                "reason": "the gateway stopped before the stream ended"})
        return event
