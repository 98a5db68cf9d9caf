"""What only the Redis limiter has: Lua/Python agreement, server time, one Cluster slot per tenant, and
failure handling when Redis goes away and comes back."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
import redis
from ratelimit_support import RedisServer
from redis.crc import key_slot

from gateway.background_server import free_port
from gateway.ratelimit import RateLimiterUnavailable, RateLimits, build_limiter, lua, rate_limit_headers
from gateway.ratelimit.calendar import month_index, month_label, month_start_ms
from gateway.ratelimit.limits import MAX_PER_MINUTE

pytestmark = pytest.mark.redis


def test_lua_month_arithmetic_matches_python(redis_url: str) -> None:
    rng = random.Random(7)
    moments = [rng.randrange(-2_208_988_800_000, 7_258_118_400_000) for _ in range(2000)]  # 1900..2200
    for index in range(1999 * 12, 2101 * 12):  # both sides of every month start, leap years included
        start = month_start_ms(index)
        moments += [start - 1, start]
    client = redis.Redis.from_url(redis_url)
    try:
        script = client.register_script(lua.MONTH_INDEX)
        pipe = client.pipeline(transaction=False)
        for moment in moments:
            script(args=[moment], client=pipe)
        from_lua = pipe.execute()
    finally:
        client.close()
    mismatches = [(m, got, month_index(m)) for m, got in zip(moments, from_lua, strict=True) if got != month_index(m)]
    assert mismatches == []


async def test_server_clock_is_used_without_an_injected_clock(redis_url: str, key_prefix: str) -> None:
    limiter = build_limiter(redis_url, key_prefix=key_prefix)
    try:
        limits = RateLimits(requests_per_minute=2, monthly_token_budget=100)
        first = await limiter.admit("acme", "k", limits, 10)
        assert first.admitted and first.requests.remaining == 1
        assert await limiter.settle(first, 7)
        usage = await limiter.monthly_usage("acme")
        now = datetime.now(UTC)
        assert usage.month in {month_label(now.year * 12 + now.month - 1), month_label(now.year * 12 + now.month)}
        assert usage.used_tokens == 7
    finally:
        await limiter.aclose()


async def test_all_keys_of_a_tenant_share_one_cluster_slot(redis_url: str, key_prefix: str) -> None:
    limiter = build_limiter(redis_url, key_prefix=key_prefix)
    try:
        limits = RateLimits(requests_per_minute=5, max_concurrent_requests=5)
        for tenant in ("acme", "globex"):
            for key in ("k1", "k{2}"):
                assert (await limiter.admit(tenant, key, limits, 1, key_limits=limits)).admitted
    finally:
        await limiter.aclose()
    client = redis.Redis.from_url(redis_url)
    try:
        keys = [k.decode() for k in client.scan_iter(match=f"{key_prefix}:*")]
    finally:
        client.close()
    by_tenant: dict[str, set[int]] = {}
    for key in keys:
        tenant = key.split("{", 1)[1].split("}", 1)[0]
        by_tenant.setdefault(tenant, set()).add(key_slot(key.encode()))
    assert sorted(by_tenant) == ["acme", "globex"]
    assert len(keys) == 2 * (2 + 2 * 2)  # per tenant: its state + leases, and each key's state + leases
    assert all(len(slots) == 1 for slots in by_tenant.values())


async def test_unreachable_redis_fails_closed_or_open_per_policy() -> None:
    limiter = build_limiter(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    try:
        with pytest.raises(RateLimiterUnavailable, match="cannot reach its store"):
            await limiter.admit("acme", "k", RateLimits(requests_per_minute=5), 1)
        degraded = await limiter.admit("acme", "k", RateLimits(requests_per_minute=5, fail_open=True), 1)
        assert degraded.admitted and degraded.degraded
        # Unmetered while the store is down: the limit in force, all of it shown as left; tokens have no limit.
        assert rate_limit_headers(degraded) == {
            "x-ratelimit-limit-requests": "5", "x-ratelimit-remaining-requests": "5",
            "x-ratelimit-reset-requests": "0ms", "x-ratelimit-limit-tokens": str(MAX_PER_MINUTE),
            "x-ratelimit-remaining-tokens": str(MAX_PER_MINUTE), "x-ratelimit-reset-tokens": "0ms"}
        assert not await limiter.settle(degraded, 1)
        with pytest.raises(RateLimiterUnavailable):
            await limiter.monthly_usage("acme")
    finally:
        await limiter.aclose()


@pytest.mark.slow
async def test_redis_killed_then_restarted_fails_closed_then_recovers(
    redis_server: Callable[[], RedisServer],
) -> None:
    server = redis_server()
    limiter = build_limiter(server.url)  # one limiter for the whole test: the "gateway" is never restarted
    closed = RateLimits(requests_per_minute=100, tokens_per_minute=10_000)
    fail_open = RateLimits(requests_per_minute=100, fail_open=True)
    try:
        in_flight = await limiter.admit("acme", "k", closed, 100)
        assert in_flight.admitted and in_flight.requests.remaining == 99

        server.kill()
        for _ in range(3):  # every request while Redis is down, not just the first
            with pytest.raises(RateLimiterUnavailable):
                await limiter.admit("acme", "k", closed, 100)
        assert (await limiter.admit("acme", "k", fail_open, 1)).degraded
        assert not await limiter.settle(in_flight, 50)  # logged; Redis is gone

        server.start()  # same port, empty data set (no persistence)
        recovered = await limiter.admit("acme", "k", closed, 100)
        assert recovered.admitted and not recovered.degraded
        assert recovered.requests.remaining == 99
        assert await limiter.settle(recovered, 60)
        assert (await limiter.monthly_usage("acme")).used_tokens == 60
    finally:
        await limiter.aclose()


@pytest.mark.slow
async def test_redis_restarted_between_requests_is_invisible(redis_server: Callable[[], RedisServer]) -> None:
    server = redis_server()
    limiter = build_limiter(server.url)
    limits = RateLimits(requests_per_minute=10)
    try:
        assert (await limiter.admit("acme", "k", limits, 0)).admitted
        server.kill()
        server.start()  # the pooled connection is now dead; the next call must reconnect, not fail
        assert (await limiter.admit("acme", "k", limits, 0)).admitted
    finally:
        await limiter.aclose()
