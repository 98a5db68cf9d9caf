"""Admission checks per second and the latency of one check against a local Redis.

    python -m bench.ratelimit [--redis-url URL] [--checks N] [--concurrency C] [--seconds S]

Latency: N checks one after another (one Lua round trip each), p50/p99, and of the settle that follows each.
Throughput: C clients in one gateway process, each looping check + release (as real traffic does), for S seconds;
checks_per_s counts the checks. Every limit dimension is set (high enough never to refuse) so each check does its
full work. The in-process limiter is measured the same way for comparison. Results go to stdout and to
bench/results/ratelimit.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import time
import uuid
from pathlib import Path

import redis

from bench.provenance import write_results
from gateway.ratelimit import RateLimiter, RateLimits, build_limiter

RESULTS = Path(__file__).parent / "results" / "ratelimit.json"
LIMITS = RateLimits(
    requests_per_minute=10**9,
    tokens_per_minute=10**10,
    max_concurrent_requests=10**6,
    monthly_token_budget=10**15,
)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def sequential(limiter: RateLimiter, checks: int) -> dict[str, float]:
    admit_ms: list[float] = []
    settle_ms: list[float] = []
    for i in range(checks):
        started = time.perf_counter()
        admission = await limiter.admit(f"tenant-{i % 16}", "key", LIMITS, 300, key_limits=None)
        admitted = time.perf_counter()
        await limiter.settle(admission, 200)
        settled = time.perf_counter()
        assert admission.admitted
        admit_ms.append((admitted - started) * 1000)
        settle_ms.append((settled - admitted) * 1000)
    return {
        "p50_ms": statistics.median(admit_ms),
        "p99_ms": percentile(admit_ms, 0.99),
        "settle_p50_ms": statistics.median(settle_ms),
        "settle_p99_ms": percentile(settle_ms, 0.99),
    }


async def throughput(limiter: RateLimiter, concurrency: int, seconds: float) -> float:
    deadline = time.perf_counter() + seconds
    done = 0

    async def client(n: int) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            admission = await limiter.admit(f"tenant-{n % 16}", "key", LIMITS, 300)
            assert admission.admitted
            done += 1
            await limiter.release(admission)  # keep the lease sets small, as real traffic would

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(concurrency)))
    return done / (time.perf_counter() - started)


async def measure(url: str | None, checks: int, concurrency: int, seconds: float, prefix: str) -> dict[str, float]:
    limiter = build_limiter(url, key_prefix=prefix)
    try:
        await sequential(limiter, min(checks, 200))  # warm up: connections, script cache
        result = await sequential(limiter, checks)
        result["checks_per_s"] = await throughput(limiter, concurrency, seconds)
    finally:
        await limiter.aclose()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--redis-url", default=os.environ.get("WARDEN_REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--checks", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()

    prefix = f"wdn-bench:{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(args.redis_url)
    try:
        redis_version = client.info("server")["redis_version"]
        on_redis = asyncio.run(measure(args.redis_url, args.checks, args.concurrency, args.seconds, prefix))
    finally:
        stale = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if stale:
            client.delete(*stale)
        client.close()
    in_process = asyncio.run(measure(None, args.checks, args.concurrency, args.seconds, prefix))

    report = {
        "checks_per_s": round(on_redis["checks_per_s"], 1),
        "p50_ms": round(on_redis["p50_ms"], 3),
        "p99_ms": round(on_redis["p99_ms"], 3),
        "settle_p50_ms": round(on_redis["settle_p50_ms"], 3),
        "settle_p99_ms": round(on_redis["settle_p99_ms"], 3),
        "in_process": {k: round(v, 3) for k, v in in_process.items()},
        "config": {
            "checks": args.checks,
            "concurrency": args.concurrency,
            "seconds": args.seconds,
            "redis_version": redis_version,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
    }
    print(f"{'limiter':<12} {'checks/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'settle p50':>11} {'settle p99':>11}")
    for name, row in (("redis", on_redis), ("in-process", in_process)):
        print(
            f"{name:<12} {row['checks_per_s']:>10.0f} {row['p50_ms']:>8.3f} {row['p99_ms']:>8.3f} "
            f"{row['settle_p50_ms']:>11.3f} {row['settle_p99_ms']:>11.3f}"
        )
    write_results(RESULTS, report)


if __name__ == "__main__":
    main()
