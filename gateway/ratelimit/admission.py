"""The outcome of one admission check: what the request path, the HTTP headers and the audit record need."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.ratelimit.limits import LimitKind, RateLimits, Scope


@dataclass(frozen=True, slots=True)
class LimitStatus:
    """One limit's x-ratelimit-* values: the limit, what is left, and how long until the bucket is full again."""

    limit: int
    remaining: int
    reset_ms: int


@dataclass(frozen=True, slots=True)
class Refusal:
    kind: LimitKind
    scope: Scope
    # None: the request can never fit these limits (e.g. it needs more tokens than a minute's allowance).
    retry_after_ms: int | None
    limit: int
    requested: int


@dataclass(frozen=True, slots=True)
class Admission:
    id: str
    tenant_id: str
    key_id: str
    reserved_tokens: int
    # The limits in force when admitted; settle/release account against these, not whatever the policy says later.
    limits: RateLimits
    key_limits: RateLimits | None
    refusal: Refusal | None = None
    requests: LimitStatus | None = None
    tokens: LimitStatus | None = None
    # Admitted without metering because the store was unreachable and the policy fails open.
    degraded: bool = False

    @property
    def admitted(self) -> bool:
        return self.refusal is None

    @property
    def lease_member(self) -> str:
        """How this admission is named in the in-flight set: id plus its reservation, so an expired lease can be
        undone without another lookup."""
        return f"{self.id}:{self.reserved_tokens}"

    def audit_decision(self) -> dict[str, object]:
        """The rate-limit entry of the audit record: admitted or not, and which limit refused."""
        decision: dict[str, object] = {
            "decision": "admitted" if self.admitted else "refused",
            "reserved_tokens": self.reserved_tokens,
            "degraded": self.degraded,
        }
        if self.refusal is not None:
            decision |= {
                "limit": self.refusal.kind.value,
                "scope": self.refusal.scope.value,
                "limit_value": self.refusal.limit,
                "requested": self.refusal.requested,
                "retry_after_ms": self.refusal.retry_after_ms,
            }
        return decision


@dataclass(frozen=True, slots=True)
class MonthlyUsage:
    month: str  # "YYYY-MM", UTC
    used_tokens: int  # settled usage this month
    reserved_tokens: int  # held by requests still in flight
