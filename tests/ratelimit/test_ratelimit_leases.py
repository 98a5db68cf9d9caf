"""Leases renewed by the worker that holds them: alive while it runs, lapsed (slot freed, reservation charged)
within seconds of its death — on both limiters, and across a real SIGKILLed process on Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator

import pytest
from ratelimit_support import LEASE_MS, NO_REDIS_REASON, REDIS_URL, delete_prefix

from gateway.ratelimit import (
    Admission,
    InProcessRateLimiter,
    LimitKind,
    ManualClock,
    RateLimiter,
    RateLimits,
    build_limiter,
)
from gateway.ratelimit.leases import LeaseKeeper

CONCURRENCY_ONE = RateLimits(max_concurrent_requests=1, monthly_token_budget=10_000)


async def test_renewal_keeps_a_lease_past_its_length_and_a_lapsed_one_stays_lapsed(
    limiter: RateLimiter, clock: ManualClock
) -> None:
    held = await limiter.admit("acme", "k", CONCURRENCY_ONE, 100)
    for _ in range(3):  # three lease lengths, renewed within each
        clock.advance(LEASE_MS - 1)
        assert await limiter.renew(held)
    assert (await limiter.admit("acme", "k", CONCURRENCY_ONE, 100)).refusal.kind is LimitKind.CONCURRENT_REQUESTS
    assert await limiter.settle(held, 40)
    assert not await limiter.renew(held)  # settled: nothing to renew

    lapsing = await limiter.admit("acme", "k", CONCURRENCY_ONE, 100)
    clock.advance(LEASE_MS)
    assert not await limiter.renew(lapsing)  # too late: a renewal never revives a lapsed lease
    assert (await limiter.admit("acme", "k", CONCURRENCY_ONE, 100)).admitted
    usage = await limiter.monthly_usage("acme")
    assert (usage.used_tokens, usage.reserved_tokens) == (40 + 100, 100)


async def test_key_scope_leases_are_renewed_too(limiter: RateLimiter, clock: ManualClock) -> None:
    key_limits = RateLimits(max_concurrent_requests=1)
    held = await limiter.admit("acme", "k", RateLimits(), 10, key_limits=key_limits)
    clock.advance(LEASE_MS - 1)
    assert await limiter.renew(held)
    clock.advance(LEASE_MS - 1)
    refused = await limiter.admit("acme", "k", RateLimits(), 10, key_limits=key_limits)
    assert refused.refusal is not None and refused.refusal.kind is LimitKind.CONCURRENT_REQUESTS


@pytest.fixture(params=["in_process", pytest.param("redis", marks=pytest.mark.redis)])
async def renewing(request: pytest.FixtureRequest, key_prefix: str) -> AsyncIterator[RateLimiter]:
    """A limiter on the real clock with 300 ms leases renewed every 50 ms by its own task."""
    if request.param == "in_process":
        built: RateLimiter = InProcessRateLimiter(lease_ms=300, renew_interval_s=0.05)
    else:
        if not REDIS_URL:
            pytest.skip(NO_REDIS_REASON)
        built = build_limiter(REDIS_URL, lease_ms=300, renew_interval_s=0.05, key_prefix=key_prefix)
    try:
        yield built
    finally:
        await built.aclose()
        if request.param == "redis" and REDIS_URL:
            delete_prefix(REDIS_URL, key_prefix)


async def test_the_renewal_task_keeps_open_admissions_alive(renewing: RateLimiter) -> None:
    held = await renewing.admit("acme", "k", CONCURRENCY_ONE, 100)
    await asyncio.sleep(1.0)  # more than three lease lengths
    assert (await renewing.admit("acme", "k", CONCURRENCY_ONE, 100)).refusal.kind is LimitKind.CONCURRENT_REQUESTS
    assert await renewing.settle(held, 30)
    await asyncio.sleep(0.4)  # settled admissions are no longer renewed, and nothing lingers
    follower = await renewing.admit("acme", "k", CONCURRENCY_ONE, 100)
    assert follower.admitted
    assert await renewing.release(follower)
    usage = await renewing.monthly_usage("acme")
    assert (usage.used_tokens, usage.reserved_tokens) == (30, 0)


_HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from gateway.ratelimit import RateLimits, build_limiter

    async def main() -> None:
        limiter = build_limiter(sys.argv[1], key_prefix=sys.argv[2], lease_ms=1000, renew_interval_s=0.2)
        admission = await limiter.admit("acme", "k", RateLimits(max_concurrent_requests=1), 700)
        print("admitted" if admission.admitted else "refused", flush=True)
        await asyncio.sleep(3600)  # a call that runs until the worker is killed

    asyncio.run(main())
    """
)


@pytest.mark.redis
def test_leases_of_a_sigkilled_worker_lapse_within_a_second_and_are_charged(key_prefix: str) -> None:
    if not REDIS_URL:
        pytest.skip(NO_REDIS_REASON)
    limits = RateLimits(max_concurrent_requests=1)
    worker = subprocess.Popen([sys.executable, "-c", _HOLDER, REDIS_URL, key_prefix], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "admitted"

        async def probe() -> tuple[bool, int]:
            limiter = build_limiter(REDIS_URL, key_prefix=key_prefix, lease_ms=1000)
            try:
                admission = await limiter.admit("acme", "k", limits, 0)
                if admission.admitted:
                    await limiter.release(admission)
                return admission.admitted, (await limiter.monthly_usage("acme")).used_tokens
            finally:
                await limiter.aclose()

        time.sleep(2.5)  # the worker lives: its renewals hold its lease well past one lease length
        assert asyncio.run(probe()) == (False, 0)
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        killed_at = time.monotonic()
        while not (outcome := asyncio.run(probe()))[0]:
            assert time.monotonic() - killed_at < 5, "the dead worker's lease was not freed"
            time.sleep(0.05)
        assert time.monotonic() - killed_at < 1.5  # a lease length (1 s), plus the probe's own round trips
        assert outcome == (True, 700)  # its reservation is charged: the call's tokens may have reached a client
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
        delete_prefix(REDIS_URL, key_prefix)


async def test_the_keeper_retries_failed_renewals_and_drops_lapsed_leases(caplog: pytest.LogCaptureFixture) -> None:
    admission = await InProcessRateLimiter().admit("acme", "k", RateLimits(), 1)
    outcomes: list[bool | Exception] = [ConnectionError("store down"), True, False]

    async def renew(_: Admission, used_tokens: int | None = None) -> bool:
        outcome = outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    keeper = LeaseKeeper(renew, renew_interval_s=60)
    keeper.hold(admission)
    assert (await keeper.renew_all(), keeper.held) == (0, 1)  # the store is down: kept, retried next round
    assert "renewal failed for 1 admission(s): store down" in caplog.text
    assert (await keeper.renew_all(), keeper.held) == (1, 1)
    assert (await keeper.renew_all(), keeper.held) == (0, 0)  # lapsed meanwhile: no longer renewed
    await keeper.aclose()
