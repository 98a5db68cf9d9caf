"""Eight processes, each with its own Redis client, hit one tenant at once: the limits hold exactly.

The clock is frozen (every process passes the same instant), so nothing refills during the test and the
expected counts are exact numbers, not bounds.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from dataclasses import asdict

import pytest
from ratelimit_support import START_MS

from gateway.ratelimit import LimitKind, ManualClock, RateLimits, build_limiter

pytestmark = [pytest.mark.redis, pytest.mark.slow]

PROCESSES = 8
TENANT = "acme"


def _worker(
    url: str,
    prefix: str,
    limits: dict[str, int | None],
    attempts: int,
    reserve: int,
    settle: bool,
    seed: int,
    barrier: multiprocessing.synchronize.Barrier,
    results: multiprocessing.Queue,
) -> None:
    async def run() -> tuple[int, int, list[str]]:
        limiter = build_limiter(url, clock=ManualClock(START_MS), key_prefix=prefix)
        rng = random.Random(seed)
        try:
            await limiter.monthly_usage(TENANT)  # connect before the start line
            barrier.wait(timeout=30)

            async def one() -> tuple[bool, int, str | None]:
                admission = await limiter.admit(TENANT, f"key-{seed}", RateLimits(**limits), reserve)
                if not admission.admitted:
                    return False, 0, admission.refusal.kind.value
                used = rng.randint(0, reserve)
                if settle:
                    assert await limiter.settle(admission, used)
                return True, used, None

            outcomes = await asyncio.gather(*(one() for _ in range(attempts)))
        finally:
            await limiter.aclose()
        return (
            sum(ok for ok, _, _ in outcomes),
            sum(used for _, used, _ in outcomes),
            sorted({kind for _, _, kind in outcomes if kind}),
        )

    try:
        results.put(("ok", asyncio.run(run())))
    except BaseException as exc:  # report, so the parent fails with the cause instead of waiting for a result
        results.put(("error", repr(exc)))
        raise


def fire(url: str, prefix: str, limits: RateLimits, attempts: int, reserve: int, settle: bool) -> list[tuple]:
    context = multiprocessing.get_context("fork")  # children build their own clients and event loops
    barrier = context.Barrier(PROCESSES)
    results = context.Queue()
    limit_fields = {k: v for k, v in asdict(limits).items() if k != "fail_open"}
    workers = [
        context.Process(
            target=_worker, args=(url, prefix, limit_fields, attempts, reserve, settle, seed, barrier, results)
        )
        for seed in range(PROCESSES)
    ]
    for worker in workers:
        worker.start()
    collected = [results.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(timeout=30)
    errors = [detail for status, detail in collected if status == "error"]
    assert errors == []
    assert [worker.exitcode for worker in workers] == [0] * PROCESSES
    return [detail for _, detail in collected]


def test_requests_per_minute_is_exact_across_processes(redis_url: str, key_prefix: str) -> None:
    results = fire(redis_url, key_prefix, RateLimits(requests_per_minute=100), attempts=30, reserve=0, settle=False)
    assert sum(admitted for admitted, _, _ in results) == 100  # 240 tried
    assert {kind for _, _, kinds in results for kind in kinds} == {LimitKind.REQUESTS_PER_MINUTE.value}


def test_concurrency_limit_is_exact_across_processes(redis_url: str, key_prefix: str) -> None:
    results = fire(redis_url, key_prefix, RateLimits(max_concurrent_requests=7), attempts=10, reserve=1, settle=False)
    assert sum(admitted for admitted, _, _ in results) == 7


def test_token_reserve_and_settle_arithmetic_is_exact_across_processes(redis_url: str, key_prefix: str) -> None:
    limits = RateLimits(tokens_per_minute=5_000, monthly_token_budget=1_000_000)
    results = fire(redis_url, key_prefix, limits, attempts=40, reserve=37, settle=True)
    total_used = sum(used for _, used, _ in results)
    assert 0 < total_used <= 5_000  # frozen clock: everything used came out of one minute's bucket

    async def probe() -> tuple[int, int, int]:
        limiter = build_limiter(redis_url, clock=ManualClock(START_MS), key_prefix=key_prefix)
        try:
            admission = await limiter.admit(TENANT, "probe", limits, 0)
            usage = await limiter.monthly_usage(TENANT)
        finally:
            await limiter.aclose()
        return admission.tokens.remaining, usage.used_tokens, usage.reserved_tokens

    assert asyncio.run(probe()) == (5_000 - total_used, total_used, 0)
