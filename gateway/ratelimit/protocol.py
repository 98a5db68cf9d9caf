"""The interface the request path codes against; Redis and in-process limiters both implement it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from gateway.ratelimit.admission import Admission, MonthlyUsage
from gateway.ratelimit.limits import RateLimits

# How long an admission may stay open before its concurrency slot is freed and its reservation charged, as if the
# gateway that held it had crashed, when nothing renews it: longer than any request the gateway lets run. A
# limiter that renews its leases (renew_interval_s, see leases.py) runs with leases of seconds instead.
DEFAULT_LEASE_MS = 15 * 60 * 1000


class RateLimiter(Protocol):
    async def admit(
        self,
        tenant_id: str,
        key_id: str,
        limits: RateLimits,
        reserve_tokens: int,
        *,
        key_limits: RateLimits | None = None,
    ) -> Admission:
        """Check every limit and, only if all pass, take one request, `reserve_tokens` tokens and a concurrency
        slot, atomically. A refusal takes nothing. Raises RateLimiterUnavailable when the store is unreachable
        and `limits.fail_open` is False; returns a degraded admission when it is True."""
        ...

    async def settle(self, admission: Admission, used_tokens: int) -> bool:
        """Finish an admitted request: refund reserved-but-unused tokens (or charge the excess), count
        `used_tokens` against the monthly budget, free the concurrency slot. Idempotent; returns whether this
        call did the accounting (False for refused, degraded, already-settled or lease-expired admissions, and
        when the store is unreachable — logged, since the response is already on its way)."""
        ...

    async def release(self, admission: Admission) -> bool:
        """Finish an admitted request that used no tokens (refused later, failed before the engine ran)."""
        ...

    async def renew(self, admission: Admission, used_tokens: int | None = None) -> bool:
        """Extend an open admission's lease by the limiter's lease length from now, recording ``used_tokens`` (its
        call's use so far), which is what a lapse of the lease then charges instead of the whole reservation;
        False when it had already lapsed (its slot was freed and its reservation charged) or was settled."""
        ...

    def track_usage(self, admission: Admission, used_tokens: Callable[[], int]) -> None:
        """While ``admission`` is open, report ``used_tokens()`` (prompt and output tokens so far) with each
        renewal of its lease, so that a lease lapsed by a dead worker is charged its known use."""
        ...

    async def monthly_usage(self, tenant_id: str, key_id: str | None = None) -> MonthlyUsage:
        """Settled and in-flight tokens of the current month for the tenant's pool, or for one key's counters."""
        ...

    async def aclose(self) -> None: ...


@runtime_checkable
class SettlesAtOnce(Protocol):
    """A limiter whose accounting is in this process (no store to wait for): ``settle_now`` is ``settle``, done
    when it returns, so the request path settles without a task and a step of the event loop for it."""

    def settle_now(self, admission: Admission, used_tokens: int) -> bool: ...
