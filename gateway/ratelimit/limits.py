"""What the limiter enforces: one scope's limits, independent of how the policy model spells them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# Bucket levels are kept as integers in units of 1/60000 of a token (one unit per millisecond of a minute), so a
# bucket refills by exactly `per_minute` units per millisecond and every reserve/refund is integer arithmetic —
# exact in Python ints and in Redis' Lua doubles as long as values stay below 2**53. This cap keeps them there.
MAX_PER_MINUTE = 10**10
MAX_MONTHLY_BUDGET = 10**15


class LimitKind(StrEnum):
    """Which limit refused an admission; written to the audit record."""

    REQUESTS_PER_MINUTE = "requests_per_minute"
    TOKENS_PER_MINUTE = "tokens_per_minute"
    CONCURRENT_REQUESTS = "concurrent_requests"
    MONTHLY_TOKEN_BUDGET = "monthly_token_budget"  # noqa: S105 (a limit name, not a secret)


class Scope(StrEnum):
    """Whose counters a limit applies to: the tenant's shared pool, or one API key's own counters."""

    TENANT = "tenant"
    KEY = "key"


@dataclass(frozen=True, slots=True)
class RateLimits:
    """Limits for one scope. None means unlimited in that dimension; 0 refuses everything in it."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    max_concurrent_requests: int | None = None
    monthly_token_budget: int | None = None
    # When the store is unreachable: False refuses traffic (503), True admits it unmetered.
    fail_open: bool = False

    def __post_init__(self) -> None:
        bounds = {
            "requests_per_minute": MAX_PER_MINUTE,
            "tokens_per_minute": MAX_PER_MINUTE,
            "max_concurrent_requests": MAX_PER_MINUTE,
            "monthly_token_budget": MAX_MONTHLY_BUDGET,
        }
        for name, upper in bounds.items():
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int or None, got {type(value).__name__}")
            if not 0 <= value <= upper:
                raise ValueError(f"{name} must be between 0 and {upper}, got {value}")

    @property
    def unlimited(self) -> bool:
        return (
            self.requests_per_minute is None
            and self.tokens_per_minute is None
            and self.max_concurrent_requests is None
            and self.monthly_token_budget is None
        )
