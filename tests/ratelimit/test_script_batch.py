"""Concurrent admissions and settlements share round trips to Redis (gateway.ratelimit.batching) and still decide
exactly as one call at a time would: limits hold, every caller gets its own reply, a Redis that forgot the scripts
or cannot be reached is handled as for a single call."""

from __future__ import annotations

import asyncio

import pytest
import redis

from gateway.background_server import free_port
from gateway.ratelimit import Admission, RateLimiterUnavailable, RateLimits, build_limiter
from gateway.ratelimit.redis_limiter import RedisRateLimiter

pytestmark = pytest.mark.redis


async def test_concurrent_admissions_share_round_trips_and_keep_the_limits(redis_url: str, key_prefix: str) -> None:
    limiter = build_limiter(redis_url, key_prefix=key_prefix)
    assert isinstance(limiter, RedisRateLimiter)
    limits = RateLimits(max_concurrent_requests=10, monthly_token_budget=10_000)
    try:
        admissions = await asyncio.gather(*(limiter.admit("acme", f"k{i % 3}", limits, 100) for i in range(40)))
        admitted = [a for a in admissions if a.admitted]
        assert len(admitted) == 10  # the concurrency limit, as 40 calls one after another would find it
        assert len({a.id for a in admissions}) == 40  # each caller got its own reply
        assert limiter.batch.round_trips < 40
        settled = await asyncio.gather(*(limiter.settle(a, 30 + i) for i, a in enumerate(admitted)))
        assert settled == [True] * 10
        usage = await limiter.monthly_usage("acme")
        assert (usage.used_tokens, usage.reserved_tokens) == (sum(30 + i for i in range(10)), 0)
        assert (await limiter.admit("acme", "k0", limits, 100)).admitted  # the slots are free again
    finally:
        await limiter.aclose()


async def test_batched_calls_reload_scripts_redis_forgot(redis_url: str, key_prefix: str) -> None:
    limiter = build_limiter(redis_url, key_prefix=key_prefix)
    limits = RateLimits(requests_per_minute=1000)
    try:
        open_admissions = [await limiter.admit("acme", "k", limits, 10) for _ in range(8)]
        redis.Redis.from_url(redis_url).script_flush()  # as after a Redis restart
        # The first call goes alone; the settlements queued behind it go as one pipeline, whose EVALSHAs fail with
        # NOSCRIPT and are run again, each loading its script.
        admission, *settled = await asyncio.gather(limiter.admit("acme", "k", limits, 10),
                                                   *(limiter.settle(a, 5) for a in open_admissions))
        assert isinstance(admission, Admission) and admission.admitted
        assert settled == [True] * 8
        assert (await limiter.monthly_usage("acme")).used_tokens == 40
    finally:
        await limiter.aclose()


async def test_every_queued_call_fails_closed_when_redis_is_unreachable() -> None:
    limiter = build_limiter(f"redis://127.0.0.1:{free_port()}/0")
    try:
        outcomes = await asyncio.gather(*(limiter.admit("acme", "k", RateLimits(requests_per_minute=10), 1)
                                          for _ in range(6)), return_exceptions=True)
        assert all(isinstance(o, RateLimiterUnavailable) for o in outcomes)
        fail_open = await asyncio.gather(*(limiter.admit("acme", "k", RateLimits(requests_per_minute=10,
                                                                                  fail_open=True), 1)
                                           for _ in range(6)))
        assert all(a.admitted and a.degraded for a in fail_open)
    finally:
        await limiter.aclose()
