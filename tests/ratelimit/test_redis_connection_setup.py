"""A new Redis connection of the limiter does not read redis-py's package metadata: redis-py looks its own version up
with importlib.metadata (milliseconds) for every connection it makes unless told it; the limiter tells it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
import redis.utils
from ratelimit_support import NO_REDIS_REASON, REDIS_URL
from redis.asyncio import Redis

from gateway.ratelimit import build_limiter
from gateway.ratelimit.factory import DRIVER_INFO
from gateway.ratelimit.redis_limiter import RedisRateLimiter

pytestmark = [pytest.mark.redis, pytest.mark.skipif(not REDIS_URL, reason=NO_REDIS_REASON)]


@pytest.fixture
def version_lookups(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each call of redis-py's own version lookup (the real one runs; the calls are counted)."""
    calls: list[str] = []
    lookup = redis.utils.get_lib_version

    def counted() -> str:
        calls.append(lookup())
        return calls[-1]

    monkeypatch.setattr(redis.utils, "get_lib_version", counted)
    yield calls


async def test_new_limiter_connections_read_no_package_metadata(version_lookups: list[str]) -> None:
    assert REDIS_URL
    limiter = build_limiter(REDIS_URL)
    assert isinstance(limiter, RedisRateLimiter)
    client = limiter._redis
    connections = [await client.connection_pool.get_connection() for _ in range(5)]  # five new, connected
    try:
        assert version_lookups == []
        # each still identifies itself as redis-py of the installed version (CLIENT SETINFO)
        assert all(c.driver_info is not None and c.driver_info.lib_version == redis.__version__
                   for c in connections)
        assert DRIVER_INFO.formatted_name == "redis-py"
    finally:
        for connection in connections:
            await client.connection_pool.release(connection)
        await limiter.aclose()


async def test_a_default_client_reads_it_per_connection(version_lookups: list[str]) -> None:
    # the cost avoided above, shown on redis-py's defaults (so the count above cannot pass for want of counting)
    assert REDIS_URL
    client = Redis.from_url(REDIS_URL)
    connections = [await client.connection_pool.get_connection() for _ in range(3)]
    try:
        assert version_lookups == [redis.__version__] * 3
    finally:
        for connection in connections:
            await client.connection_pool.release(connection)
        await client.aclose()
