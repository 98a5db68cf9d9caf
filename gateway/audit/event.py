"""What the request path hands to the audit writer: one event per request, before it is chained."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any

import orjson

from gateway.audit.storable import needs_fitting, storable_columns
from gateway.core.ids import uuid4_text

ANONYMOUS_CHAIN = "anonymous"


@dataclass(slots=True)
class AuditEvent:
    created_at: datetime
    request_id: str
    endpoint: str
    http_status: int
    latency_ms: float
    overhead_ms: float
    tenant_id: str | None = None
    key_id: str | None = None
    model: str | None = None
    error_type: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    policy_version: int | None = None
    decisions: list[dict[str, Any]] = field(default_factory=list)
    content: dict[str, Any] | None = None
    event_id: str = field(default_factory=uuid4_text)

    @property
    def chain_id(self) -> str:
        return self.tenant_id or ANONYMOUS_CHAIN

    def to_spool_line(self) -> bytes:
        """The event as one JSON line, fitted for storage first where it must be (see ``gateway.audit.storable``):
        a request's odd strings can never make its record unstorable."""
        # The fields as they are (orjson encodes the nested lists and dicts itself): asdict's deep copy cost more than
        # the encoding; the rare line that must be fitted is fitted from a deep copy, which fitting walks anyway.
        columns = {name: getattr(self, name) for name in _FIELD_NAMES}
        try:
            encoded: bytes | None = orjson.dumps(columns)
        except orjson.JSONEncodeError:  # a lone surrogate
            encoded = None
        if needs_fitting(columns, encoded):
            encoded = orjson.dumps(storable_columns(asdict(self)))
        assert encoded is not None
        return encoded + b"\n"

    @classmethod
    def from_spool_line(cls, line: bytes) -> AuditEvent:
        data = orjson.loads(line)
        data["created_at"] = datetime.fromisoformat(data["created_at"])
        return cls(**data)


_FIELD_NAMES = tuple(f.name for f in fields(AuditEvent))
