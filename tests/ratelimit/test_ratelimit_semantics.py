"""One behavioural suite, run against both limiters (in-process and Redis) with a hand-moved clock."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from ratelimit_support import LEASE_MS

from gateway.ratelimit import Admission, LimitKind, ManualClock, RateLimiter, RateLimits, Scope
from gateway.ratelimit.calendar import month_start_ms


def utc_ms(*args: int) -> int:
    return int(datetime(*args, tzinfo=UTC).timestamp() * 1000)


async def admit(limiter: RateLimiter, limits: RateLimits, reserve: int = 0, **kwargs: object) -> Admission:
    tenant = str(kwargs.pop("tenant", "acme"))
    key = str(kwargs.pop("key", "key1"))
    return await limiter.admit(tenant, key, limits, reserve, **kwargs)  # type: ignore[arg-type]


def refused_by(admission: Admission) -> LimitKind | None:
    return None if admission.refusal is None else admission.refusal.kind


async def test_requests_per_minute_admits_one_full_bucket_then_refuses(limiter: RateLimiter) -> None:
    limits = RateLimits(requests_per_minute=5)
    remaining = []
    for _ in range(5):
        admission = await admit(limiter, limits)
        assert admission.admitted
        remaining.append(admission.requests.remaining)
    assert remaining == [4, 3, 2, 1, 0]
    refused = await admit(limiter, limits)
    assert refused_by(refused) is LimitKind.REQUESTS_PER_MINUTE
    assert refused.refusal.scope is Scope.TENANT
    assert refused.refusal.retry_after_ms == 12_000  # one request refills every 60s / 5
    assert (refused.requests.limit, refused.requests.remaining, refused.requests.reset_ms) == (5, 0, 60_000)


async def test_requests_refill_smoothly_and_never_beyond_one_minute(limiter: RateLimiter, clock: ManualClock) -> None:
    limits = RateLimits(requests_per_minute=6)  # one request per 10 s
    for _ in range(6):
        assert (await admit(limiter, limits)).admitted
    clock.advance(9_999)
    early = await admit(limiter, limits)
    assert refused_by(early) is LimitKind.REQUESTS_PER_MINUTE
    assert early.refusal.retry_after_ms == 1
    clock.advance(1)
    assert (await admit(limiter, limits)).admitted
    assert (await admit(limiter, limits)).refusal.retry_after_ms == 10_000
    clock.advance(10 * 60_000)  # a long idle spell refills one bucket, not ten
    admitted = [(await admit(limiter, limits)).admitted for _ in range(7)]
    assert admitted == [True] * 6 + [False]


async def test_clock_stepping_back_refills_nothing(limiter: RateLimiter, clock: ManualClock) -> None:
    limits = RateLimits(requests_per_minute=6)
    for _ in range(6):
        assert (await admit(limiter, limits)).admitted
    clock.advance(-30_000)
    assert not (await admit(limiter, limits)).admitted
    clock.advance(30_000 + 10_000)  # ten seconds past the last refill point: exactly one request
    assert (await admit(limiter, limits)).admitted
    assert not (await admit(limiter, limits)).admitted


async def test_tokens_reserve_then_settle_to_real_usage(limiter: RateLimiter) -> None:
    limits = RateLimits(tokens_per_minute=1000)
    first = await admit(limiter, limits, 400)
    assert first.tokens.remaining == 600
    second = await admit(limiter, limits, 500)
    assert second.tokens.remaining == 100
    refused = await admit(limiter, limits, 200)
    assert refused_by(refused) is LimitKind.TOKENS_PER_MINUTE
    assert refused.refusal.retry_after_ms == 6_000  # 100 missing tokens at 1000/min
    assert refused.refusal.requested == 200
    assert await limiter.settle(first, 150)  # 250 reserved but unused come back
    third = await admit(limiter, limits, 200)
    assert third.tokens.remaining == 150
    assert await limiter.settle(second, 600)  # 100 more than reserved are charged
    probe = await admit(limiter, limits, 0)
    assert probe.tokens.remaining == 50
    assert (await limiter.monthly_usage("acme")).used_tokens == 750


async def test_settle_is_idempotent(limiter: RateLimiter) -> None:
    limits = RateLimits(tokens_per_minute=1000)
    admission = await admit(limiter, limits, 300)
    assert await limiter.settle(admission, 100)
    assert not await limiter.settle(admission, 100)
    assert not await limiter.release(admission)
    assert (await admit(limiter, limits, 0)).tokens.remaining == 900
    assert (await limiter.monthly_usage("acme")).used_tokens == 100


async def test_a_refusal_takes_nothing(limiter: RateLimiter) -> None:
    limits = RateLimits(requests_per_minute=2, tokens_per_minute=100, max_concurrent_requests=2)
    assert (await admit(limiter, limits, 80)).admitted
    assert refused_by(await admit(limiter, limits, 50)) is LimitKind.TOKENS_PER_MINUTE
    last = await admit(limiter, limits, 20)  # the refused request spent neither a request nor a slot
    assert last.admitted
    assert (last.requests.remaining, last.tokens.remaining) == (0, 0)


async def test_request_larger_than_a_minute_of_tokens_can_never_pass(limiter: RateLimiter) -> None:
    refused = await admit(limiter, RateLimits(tokens_per_minute=100), 101)
    assert refused_by(refused) is LimitKind.TOKENS_PER_MINUTE
    assert refused.refusal.retry_after_ms is None


async def test_zero_limit_refuses_everything(limiter: RateLimiter) -> None:
    refused = await admit(limiter, RateLimits(requests_per_minute=0))
    assert refused_by(refused) is LimitKind.REQUESTS_PER_MINUTE
    assert refused.refusal.retry_after_ms is None


async def test_the_longest_wait_is_reported(limiter: RateLimiter) -> None:
    limits = RateLimits(requests_per_minute=60, tokens_per_minute=60)  # 1 request/s, 1 token/s
    assert (await admit(limiter, limits, 50)).admitted
    refused = await admit(limiter, limits, 20)
    assert refused_by(refused) is LimitKind.TOKENS_PER_MINUTE
    assert refused.refusal.retry_after_ms == 10_000  # tokens: 10 s; requests would clear in 1 s


async def test_concurrency_slots_are_exact_and_freed_on_release(limiter: RateLimiter) -> None:
    limits = RateLimits(max_concurrent_requests=2)
    first, second = await admit(limiter, limits), await admit(limiter, limits)
    assert first.admitted and second.admitted
    refused = await admit(limiter, limits)
    assert refused_by(refused) is LimitKind.CONCURRENT_REQUESTS
    assert refused.refusal.retry_after_ms == 1_000
    assert await limiter.release(first)
    assert (await admit(limiter, limits)).admitted
    assert not (await admit(limiter, limits)).admitted


async def test_expired_lease_frees_its_slot_and_charges_its_reservation(limiter: RateLimiter,
                                                                        clock: ManualClock) -> None:
    limits = RateLimits(max_concurrent_requests=1, monthly_token_budget=2000)
    abandoned = await admit(limiter, limits, 600)  # its gateway "crashed": never settled
    assert refused_by(await admit(limiter, limits, 600)) is LimitKind.CONCURRENT_REQUESTS
    clock.advance(LEASE_MS)
    lapsed = await limiter.monthly_usage("acme")  # charged as soon as it lapsed, before anything sweeps it
    assert (lapsed.used_tokens, lapsed.reserved_tokens) == (600, 0)
    successor = await admit(limiter, limits, 600)
    assert successor.admitted
    # Too late to settle: the lapsed lease was charged its whole reservation (its tokens may have reached a client).
    assert not await limiter.settle(abandoned, 500)
    usage = await limiter.monthly_usage("acme")
    assert (usage.used_tokens, usage.reserved_tokens) == (600, 600)


async def test_monthly_budget_counts_settled_usage_and_in_flight_reservations(
    limiter: RateLimiter, clock: ManualClock
) -> None:
    limits = RateLimits(monthly_token_budget=1000)
    first = await admit(limiter, limits, 600)
    held = await admit(limiter, limits, 600)  # 600 + 600 > 1000 while the first is in flight
    assert refused_by(held) is LimitKind.MONTHLY_TOKEN_BUDGET
    assert held.refusal.retry_after_ms == 1_000
    assert await limiter.settle(first, 300)
    second = await admit(limiter, limits, 600)
    assert second.admitted
    assert await limiter.settle(second, 600)
    usage = await limiter.monthly_usage("acme")
    assert (usage.month, usage.used_tokens, usage.reserved_tokens) == ("2025-03", 900, 0)
    spent = await admit(limiter, limits, 200)
    assert refused_by(spent) is LimitKind.MONTHLY_TOKEN_BUDGET
    assert spent.refusal.retry_after_ms == month_start_ms(2025 * 12 + 3) - clock.now_ms()  # 1 April, 00:00 UTC
    assert (await admit(limiter, limits, 100)).admitted  # exactly the rest still fits


@pytest.mark.parametrize(
    ("last_ms", "next_month"),
    [
        (utc_ms(2025, 1, 31, 23, 59, 59, 999_000), "2025-02"),
        (utc_ms(2024, 12, 31, 23, 59, 59, 999_000), "2025-01"),
        (utc_ms(2024, 2, 29, 23, 59, 59, 999_000), "2024-03"),
    ],
)
async def test_budget_rolls_over_at_the_calendar_month(
    limiter: RateLimiter, clock: ManualClock, last_ms: int, next_month: str
) -> None:
    clock.set(last_ms)
    limits = RateLimits(monthly_token_budget=100)
    assert await limiter.settle(await admit(limiter, limits, 100), 100)
    spent = await admit(limiter, limits, 1)
    assert refused_by(spent) is LimitKind.MONTHLY_TOKEN_BUDGET
    assert spent.refusal.retry_after_ms == 1
    clock.advance(1)
    assert (await admit(limiter, limits, 1)).admitted
    usage = await limiter.monthly_usage("acme")
    assert (usage.month, usage.used_tokens, usage.reserved_tokens) == (next_month, 0, 1)


async def test_leap_day_is_not_a_new_month(limiter: RateLimiter, clock: ManualClock) -> None:
    clock.set(utc_ms(2024, 2, 28, 23, 59, 59, 999_000))
    limits = RateLimits(monthly_token_budget=100)
    assert await limiter.settle(await admit(limiter, limits, 100), 100)
    clock.advance(1)
    assert refused_by(await admit(limiter, limits, 1)) is LimitKind.MONTHLY_TOKEN_BUDGET


async def test_usage_settled_after_rollover_counts_in_the_new_month(limiter: RateLimiter, clock: ManualClock) -> None:
    clock.set(utc_ms(2025, 4, 30, 23, 59, 59))
    admission = await admit(limiter, RateLimits(monthly_token_budget=1000), 50)
    clock.advance(2_000)
    assert await limiter.settle(admission, 40)
    usage = await limiter.monthly_usage("acme")
    assert (usage.month, usage.used_tokens, usage.reserved_tokens) == ("2025-05", 40, 0)


async def test_key_limits_narrow_the_tenant_pool(limiter: RateLimiter) -> None:
    tenant_limits = RateLimits(requests_per_minute=5)
    key_limits = RateLimits(requests_per_minute=2)
    narrowed = [await admit(limiter, tenant_limits, key="a", key_limits=key_limits) for _ in range(3)]
    assert [a.admitted for a in narrowed] == [True, True, False]
    assert narrowed[2].refusal.scope is Scope.KEY
    assert narrowed[1].requests.limit == 2  # headers show the scope that binds first
    others = [await admit(limiter, tenant_limits, key="b") for _ in range(4)]
    assert [a.admitted for a in others] == [True, True, True, False]
    assert others[3].refusal.scope is Scope.TENANT


async def test_each_key_has_its_own_counters(limiter: RateLimiter) -> None:
    key_limits = RateLimits(requests_per_minute=2)
    for key in ("a", "b"):
        results = [(await admit(limiter, RateLimits(), key=key, key_limits=key_limits)).admitted for _ in range(3)]
        assert results == [True, True, False]
    assert (await limiter.monthly_usage("acme", "a")).reserved_tokens == 0


async def test_tenants_are_isolated_even_with_hostile_ids(limiter: RateLimiter) -> None:
    limits = RateLimits(requests_per_minute=1)
    for tenant in ("acme", "{acme}", "acme}:t", "ac:me"):
        assert (await admit(limiter, limits, tenant=tenant)).admitted, tenant
    assert not (await admit(limiter, limits, tenant="{acme}")).admitted


async def test_lowered_limit_caps_the_stored_bucket(limiter: RateLimiter) -> None:
    assert (await admit(limiter, RateLimits(requests_per_minute=10))).admitted
    lowered = RateLimits(requests_per_minute=2)
    results = [(await admit(limiter, lowered)).admitted for _ in range(3)]
    assert results == [True, True, False]


async def test_unlimited_dimensions_send_no_status(limiter: RateLimiter) -> None:
    admission = await admit(limiter, RateLimits(), 10_000)
    assert admission.admitted
    assert (admission.requests, admission.tokens) == (None, None)


async def test_concurrent_admissions_never_exceed_the_limit(limiter: RateLimiter) -> None:
    limits = RateLimits(requests_per_minute=20, max_concurrent_requests=15)
    admissions = await asyncio.gather(*(admit(limiter, limits, 1) for _ in range(60)))
    assert sum(a.admitted for a in admissions) == 15
    assert {refused_by(a) for a in admissions if not a.admitted} == {LimitKind.CONCURRENT_REQUESTS}


async def test_settling_a_refused_admission_does_nothing(limiter: RateLimiter) -> None:
    refused = await admit(limiter, RateLimits(requests_per_minute=0))
    assert not await limiter.settle(refused, 5)
    with pytest.raises(ValueError, match="used_tokens"):
        await limiter.settle(refused, -1)


async def test_bad_arguments_are_rejected(limiter: RateLimiter) -> None:
    with pytest.raises(ValueError, match="reserve_tokens"):
        await admit(limiter, RateLimits(), -1)
    with pytest.raises(ValueError, match="tenant_id"):
        await admit(limiter, RateLimits(), tenant="")


async def test_refund_never_overfills_a_refilled_bucket(limiter: RateLimiter, clock: ManualClock) -> None:
    limits = RateLimits(tokens_per_minute=6000)  # 100 tokens/s
    admission = await admit(limiter, limits, 900)
    clock.advance(9_000)  # refilled to full while the request ran (within its lease)
    assert await limiter.settle(admission, 0)
    assert (await admit(limiter, limits, 0)).tokens.remaining == 6000
