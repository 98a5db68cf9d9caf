"""The arithmetic both limiters share: bucket refill, the admission predicate, retry times and header values.

Redis runs the same steps inside one Lua script (lua.py); the in-process limiter runs these functions under a
lock. Any change here must be mirrored there — the shared test suite runs against both to keep them in step.

Buckets are token buckets kept in integer units (see limits.MAX_PER_MINUTE): a full bucket holds one minute's
allowance, `per_minute * UNIT` units, and refills by `per_minute` units per millisecond. A request costs UNIT
units from the requests bucket and `reserve_tokens * UNIT` from the tokens bucket. Against a fixed window this
admits at most one minute's allowance in any short span (never two across a window edge) and then a smooth rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.ratelimit.admission import LimitStatus, Refusal
from gateway.ratelimit.calendar import ms_until_next_month
from gateway.ratelimit.limits import LimitKind, RateLimits, Scope

UNIT = 60_000  # bucket units per token: milliseconds in a minute
# Settling more than was reserved may drive a tokens bucket into debt, at most one minute's allowance deep, so
# a refill never needs more than two minutes of elapsed time (and stays within exact-integer range).
MAX_REFILL_MS = 2 * UNIT
# A concurrency slot frees whenever another request of the scope finishes; there is no schedule to quote.
CONCURRENCY_RETRY_MS = 1_000
# Retried while a budget is held by in-flight reservations rather than spent: those settle within seconds.
BUDGET_IN_FLIGHT_RETRY_MS = 1_000


def refill(level: int | None, last_ms: int | None, now_ms: int, per_minute: int | None) -> int | None:
    """A bucket's level at `now_ms`; None when the dimension is unlimited. A bucket never seen starts full."""
    if per_minute is None:
        return None
    capacity = per_minute * UNIT
    if level is None or last_ms is None:
        return capacity
    elapsed = min(max(now_ms - last_ms, 0), MAX_REFILL_MS)  # a clock that steps back refills nothing
    return min(capacity, level + elapsed * per_minute)


@dataclass(slots=True)
class ScopeState:
    """One scope's counters as the admission decision sees them (after refill, lease expiry, month rollover)."""

    requests_level: int | None
    tokens_level: int | None
    in_flight: int
    budget_used: int
    budget_reserved: int


def refusals(state: ScopeState, limits: RateLimits, reserve: int, now_ms: int, scope: Scope) -> list[Refusal]:
    """Every limit of one scope that this request would break; empty means the scope admits it."""
    found: list[Refusal] = []
    rpm, tpm = limits.requests_per_minute, limits.tokens_per_minute
    if rpm is not None and state.requests_level is not None and state.requests_level < UNIT:
        retry = None if rpm == 0 else _ceil_div(UNIT - state.requests_level, rpm)
        found.append(Refusal(LimitKind.REQUESTS_PER_MINUTE, scope, retry, rpm, 1))
    if tpm is not None and state.tokens_level is not None and state.tokens_level < reserve * UNIT:
        retry = None if reserve > tpm else _ceil_div(reserve * UNIT - state.tokens_level, tpm)
        found.append(Refusal(LimitKind.TOKENS_PER_MINUTE, scope, retry, tpm, reserve))
    concurrency = limits.max_concurrent_requests
    if concurrency is not None and state.in_flight >= concurrency:
        retry = None if concurrency == 0 else CONCURRENCY_RETRY_MS
        found.append(Refusal(LimitKind.CONCURRENT_REQUESTS, scope, retry, concurrency, 1))
    budget = limits.monthly_token_budget
    if budget is not None and state.budget_used + state.budget_reserved + reserve > budget:
        if reserve > budget:
            retry = None
        elif state.budget_used + reserve > budget:
            retry = ms_until_next_month(now_ms)
        else:
            retry = BUDGET_IN_FLIGHT_RETRY_MS
        found.append(Refusal(LimitKind.MONTHLY_TOKEN_BUDGET, scope, retry, budget, reserve))
    return found


def decisive(found: list[Refusal]) -> Refusal | None:
    """The refusal to report: the one the client must wait longest for (never, if any can never pass)."""
    if not found:
        return None
    return max(found, key=lambda refusal: float("inf") if refusal.retry_after_ms is None else refusal.retry_after_ms)


def consume(state: ScopeState, reserve: int) -> ScopeState:
    """The state after admitting one request that reserves `reserve` tokens."""
    return ScopeState(
        requests_level=None if state.requests_level is None else state.requests_level - UNIT,
        tokens_level=None if state.tokens_level is None else state.tokens_level - reserve * UNIT,
        in_flight=state.in_flight + 1,
        budget_used=state.budget_used,
        budget_reserved=state.budget_reserved + reserve,
    )


def settle_tokens(level: int | None, per_minute: int | None, reserved: int, used: int) -> int | None:
    """Return what a finished request reserved but did not use (or charge what it used beyond that)."""
    if level is None or per_minute is None:
        return level
    capacity = per_minute * UNIT
    return max(-capacity, min(capacity, level + (reserved - used) * UNIT))


def bucket_status(level: int | None, per_minute: int | None) -> LimitStatus | None:
    if level is None or per_minute is None:
        return None
    capacity = per_minute * UNIT
    reset_ms = 0 if per_minute == 0 else _ceil_div(max(capacity - level, 0), per_minute)
    return LimitStatus(limit=per_minute, remaining=max(level, 0) // UNIT, reset_ms=reset_ms)


def tightest(statuses: list[LimitStatus | None]) -> LimitStatus | None:
    """Of several scopes' statuses for one dimension, the one a client runs into first."""
    present = [status for status in statuses if status is not None]
    if not present:
        return None
    return min(present, key=lambda status: (status.remaining, -status.reset_ms))


def _ceil_div(numerator: int, denominator: int) -> int:
    return -(-numerator // denominator)
