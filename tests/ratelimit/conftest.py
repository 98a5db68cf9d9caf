"""Fixtures for the rate-limit tests: the same suite runs against the in-process and the Redis limiter.

Redis tests read WARDEN_REDIS_URL and skip with a reason when it is unset. Every test works under its own key
prefix and deletes its keys afterwards, so a shared CI Redis is never disturbed. Tests that must kill Redis
start their own `redis-server` on a free port.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from ratelimit_support import LEASE_MS, NO_REDIS_REASON, REDIS_URL, START_MS, RedisServer, delete_prefix

from gateway.background_server import free_port
from gateway.ratelimit import InProcessRateLimiter, ManualClock, RateLimiter, build_limiter


@pytest.fixture
def key_prefix() -> str:
    return f"wdn-test:{uuid.uuid4().hex[:12]}"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START_MS)


@pytest.fixture(params=["in_process", pytest.param("redis", marks=pytest.mark.redis)])
async def limiter(request: pytest.FixtureRequest, clock: ManualClock, key_prefix: str) -> AsyncIterator[RateLimiter]:
    if request.param == "in_process":
        yield InProcessRateLimiter(clock=clock, lease_ms=LEASE_MS)
        return
    if not REDIS_URL:
        pytest.skip(NO_REDIS_REASON)
    built = build_limiter(REDIS_URL, clock=clock, lease_ms=LEASE_MS, key_prefix=key_prefix)
    try:
        yield built
    finally:
        await built.aclose()
        delete_prefix(REDIS_URL, key_prefix)


@pytest.fixture
def redis_url(key_prefix: str) -> Iterator[str]:
    if not REDIS_URL:
        pytest.skip(NO_REDIS_REASON)
    yield REDIS_URL
    delete_prefix(REDIS_URL, key_prefix)


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[Callable[[], RedisServer]]:
    binary = shutil.which("redis-server")
    if binary is None:
        if REDIS_URL:  # CI runs the Redis suite; the kill/restart test must not quietly vanish there
            pytest.fail("redis-server binary not found (apt-get install redis-server)")
        pytest.skip("redis-server binary not found and WARDEN_REDIS_URL unset")
    started: list[RedisServer] = []

    def start() -> RedisServer:
        server = RedisServer(binary, free_port(), tmp_path)
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()
