"""The Redis limiter over a unix socket (``WARDEN_REDIS_URL=unix:///path/redis.sock?db=N``): on one host it saves
each admission and settlement the loopback TCP stack's work. Admissions, settlements (batched and not) and the
limiter's own script connection all go over the socket; a Redis restarted on the same path is reconnected to."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from ratelimit_support import REDIS_URL, RedisServer

from gateway.ratelimit import RateLimiterUnavailable, RateLimits, build_limiter
from gateway.ratelimit.redis_limiter import RedisRateLimiter

pytestmark = pytest.mark.redis


class UnixRedis(RedisServer):
    """A throwaway redis-server listening on a unix socket only (no TCP port), killed and restarted at will."""

    def __init__(self, binary: str, workdir: Path) -> None:
        super().__init__(binary, 0, workdir)
        self.socket = workdir / "redis.sock"  # a short path: a unix socket's address is at most 107 bytes

    @property
    def url(self) -> str:
        return self.url_of(0)

    def url_of(self, db: int) -> str:
        return f"unix://{self.socket}?db={db}"

    def command(self) -> list[str]:
        return [self.binary, "--port", "0", "--unixsocket", str(self.socket), "--unixsocketperm", "700", "--save", "",
                "--appendonly", "no"]

    def ping_client(self) -> redis.Redis:
        return redis.Redis(unix_socket_path=str(self.socket), socket_connect_timeout=0.2)


@pytest.fixture
def unix_redis() -> Iterator[UnixRedis]:
    binary = shutil.which("redis-server")
    if binary is None:
        if REDIS_URL:  # CI runs the Redis suite: this must not quietly vanish there
            pytest.fail("redis-server binary not found (apt-get install redis-server)")
        pytest.skip("redis-server binary not found and WARDEN_REDIS_URL unset")
    workdir = Path(tempfile.mkdtemp(prefix="wdn-redis-", dir="/tmp"))
    server = UnixRedis(binary, workdir)
    server.start()
    try:
        yield server
    finally:
        server.kill()
        shutil.rmtree(workdir, ignore_errors=True)


async def test_the_limiter_admits_and_settles_over_a_unix_socket(unix_redis: UnixRedis) -> None:
    limiter = build_limiter(unix_redis.url_of(3))
    assert isinstance(limiter, RedisRateLimiter)
    try:
        limits = RateLimits(requests_per_minute=5, max_concurrent_requests=2, monthly_token_budget=1000)
        first = await limiter.admit("acme", "k", limits, 100)
        assert first.admitted and first.requests is not None and first.requests.remaining == 4
        assert await limiter.settle(first, 40)
        assert (await limiter.monthly_usage("acme")).used_tokens == 40
    finally:
        await limiter.aclose()
    in_db3 = redis.Redis(unix_socket_path=str(unix_redis.socket), db=3)
    in_db0 = redis.Redis(unix_socket_path=str(unix_redis.socket), db=0)
    try:
        assert in_db3.keys("wdn:rl:*") and not in_db0.keys("wdn:rl:*")  # the URL's database, not database 0
    finally:
        in_db3.close()
        in_db0.close()


async def test_concurrent_admissions_over_a_unix_socket_are_exact(unix_redis: UnixRedis) -> None:
    limiter = build_limiter(unix_redis.url)
    assert isinstance(limiter, RedisRateLimiter)
    try:
        limits = RateLimits(requests_per_minute=1000, max_concurrent_requests=7)
        admissions = await asyncio.gather(*(limiter.admit("acme", "k", limits, 1) for _ in range(20)))
        assert sum(a.admitted for a in admissions) == 7  # the concurrency limit holds under batching
        assert limiter.batch.round_trips < 20  # calls queued behind a round trip went together
        settled = await asyncio.gather(*(limiter.settle(a, 1) for a in admissions if a.admitted))
        assert settled == [True] * 7
        again = await asyncio.gather(*(limiter.admit("acme", "k", limits, 1) for _ in range(8)))
        assert sum(a.admitted for a in again) == 7  # every settlement gave its slot back, no more
    finally:
        await limiter.aclose()


@pytest.mark.slow
async def test_a_redis_restarted_on_the_same_socket_is_reconnected_to(unix_redis: UnixRedis) -> None:
    limiter = build_limiter(unix_redis.url)
    closed = RateLimits(requests_per_minute=100)
    try:
        assert (await limiter.admit("acme", "k", closed, 0)).admitted
        unix_redis.kill()
        with pytest.raises(RateLimiterUnavailable):
            await limiter.admit("acme", "k", closed, 0)
        unix_redis.start()
        recovered = await limiter.admit("acme", "k", closed, 0)
        assert recovered.admitted and not recovered.degraded
    finally:
        await limiter.aclose()
