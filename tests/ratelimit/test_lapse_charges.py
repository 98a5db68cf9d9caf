"""A lease lapsed by a dead worker is charged what its call had used, where the worker reported it with its last
renewal (the request path tracks a call's tokens), and the rest of the reservation goes back to the tokens bucket;
unreported, the whole reservation is charged as before. Both limiters, and a real SIGKILLed worker on Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from ratelimit_support import LEASE_MS, NO_REDIS_REASON, REDIS_URL, delete_prefix

from gateway.ratelimit import Admission, InProcessRateLimiter, ManualClock, RateLimiter, RateLimits, build_limiter
from gateway.ratelimit.leases import LeaseKeeper

LIMITS = RateLimits(tokens_per_minute=1000, max_concurrent_requests=1, monthly_token_budget=10_000)


async def test_a_lapsed_lease_is_charged_its_reported_use(limiter: RateLimiter, clock: ManualClock) -> None:
    held = await limiter.admit("acme", "k", LIMITS, 600)
    clock.advance(LEASE_MS - 1)
    assert await limiter.renew(held, 150)  # the call had used 150 tokens at its last renewal
    clock.advance(LEASE_MS)  # then its worker died
    usage = await limiter.monthly_usage("acme")
    assert (usage.used_tokens, usage.reserved_tokens) == (150, 0)  # charged already, before any sweep
    # The 450 tokens it never used are back in the minute's bucket: 800 fit (without them, ~400 would).
    after = await limiter.admit("acme", "k", LIMITS, 800)
    assert after.admitted
    usage = await limiter.monthly_usage("acme")
    assert (usage.used_tokens, usage.reserved_tokens) == (150, 800)


async def test_unreported_or_excess_use_is_charged_the_reservation(limiter: RateLimiter, clock: ManualClock) -> None:
    silent = await limiter.admit("acme", "k", LIMITS, 300)
    clock.advance(LEASE_MS)  # lapsed without a report: its whole reservation
    assert (await limiter.monthly_usage("acme")).used_tokens == 300
    over = await limiter.admit("acme", "k", LIMITS, 200)
    assert over.admitted and await limiter.renew(over, 5000)  # a report beyond the reservation is capped
    clock.advance(LEASE_MS + 1)
    assert (await limiter.monthly_usage("acme")).used_tokens == 500
    assert not await limiter.settle(silent, 10)  # a lapsed lease stays lapsed: no second charge


async def test_a_settled_call_is_charged_its_settlement_not_its_last_report(limiter: RateLimiter,
                                                                            clock: ManualClock) -> None:
    held = await limiter.admit("acme", "k", LIMITS, 600)
    assert await limiter.renew(held, 100)
    assert await limiter.settle(held, 250)
    clock.advance(3 * LEASE_MS)
    assert (await limiter.monthly_usage("acme")).used_tokens == 250


async def test_the_keeper_reports_a_tracked_calls_use_with_each_renewal() -> None:
    admission = await InProcessRateLimiter().admit("acme", "k", RateLimits(), 10)
    reports: list[int | None] = []

    async def renew(_: Admission, used_tokens: int | None = None) -> bool:
        reports.append(used_tokens)
        return True

    keeper = LeaseKeeper(renew, renew_interval_s=60)
    used = [3]
    keeper.track(admission, lambda: used[0])  # not held yet: ignored
    keeper.hold(admission)
    await keeper.renew_all()
    keeper.track(admission, lambda: used[0])
    await keeper.renew_all()
    used[0] = 7
    await keeper.renew_all()
    assert reports == [None, 3, 7]
    keeper.drop(admission)
    keeper.hold(admission)
    await keeper.renew_all()
    assert reports[-1] is None  # a dropped admission's tracker is gone with it
    await keeper.aclose()


_TRACKING_HOLDER = textwrap.dedent(
    """
    import asyncio, sys
    from gateway.ratelimit import RateLimits, build_limiter

    async def main() -> None:
        limiter = build_limiter(sys.argv[1], key_prefix=sys.argv[2], lease_ms=1000, renew_interval_s=0.2)
        admission = await limiter.admit("acme", "k", RateLimits(max_concurrent_requests=1), 700)
        limiter.track_usage(admission, lambda: 120)  # a stream that had sent 120 tokens when its worker died
        print("admitted" if admission.admitted else "refused", flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
    """
)


@pytest.mark.redis
def test_a_sigkilled_workers_stream_is_charged_its_reported_use(key_prefix: str) -> None:
    if not REDIS_URL:
        pytest.skip(NO_REDIS_REASON)
    worker = subprocess.Popen([sys.executable, "-c", _TRACKING_HOLDER, REDIS_URL, key_prefix], stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})

    async def probe() -> tuple[bool, int]:
        limiter = build_limiter(REDIS_URL, key_prefix=key_prefix, lease_ms=1000)
        try:
            admission = await limiter.admit("acme", "k", RateLimits(max_concurrent_requests=1), 0)
            if admission.admitted:
                await limiter.release(admission)
            return admission.admitted, (await limiter.monthly_usage("acme")).used_tokens
        finally:
            await limiter.aclose()

    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "admitted"
        time.sleep(0.6)  # at least one renewal (every 0.2 s) has reported the use
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
        killed_at = time.monotonic()
        while not (outcome := asyncio.run(probe()))[0]:
            assert time.monotonic() - killed_at < 5, "the dead worker's lease was not freed"
            time.sleep(0.05)
        assert outcome == (True, 120)  # its known use, not its 700-token reservation
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
        delete_prefix(REDIS_URL, key_prefix)
