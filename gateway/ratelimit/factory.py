"""Pick the limiter for the deployment: Redis when a URL is configured, in-process otherwise (embedded mode)."""

from __future__ import annotations

import redis
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.driver_info import DriverInfo

from gateway.ratelimit.clock import Clock
from gateway.ratelimit.hiredis_packing import packed_by_hiredis
from gateway.ratelimit.memory import InProcessRateLimiter
from gateway.ratelimit.protocol import DEFAULT_LEASE_MS, RateLimiter
from gateway.ratelimit.redis_limiter import RedisRateLimiter

# A limiter check sits on every request's path: when Redis is gone, fail within this long instead of hanging.
DEFAULT_SOCKET_TIMEOUT_S = 0.5
# What each connection reports in CLIENT SETINFO (LIB-NAME redis-py, LIB-VER). Given the version it has at import,
# redis-py need not read its own package metadata (importlib.metadata: milliseconds) for every new connection.
DRIVER_INFO = DriverInfo(lib_version=redis.__version__)


def build_limiter(
    redis_url: str | None,
    *,
    clock: Clock | None = None,
    lease_ms: int = DEFAULT_LEASE_MS,
    socket_timeout_s: float = DEFAULT_SOCKET_TIMEOUT_S,
    key_prefix: str = "wdn:rl",
    renew_interval_s: float | None = None,
) -> RateLimiter:
    """`renew_interval_s`: renew open admissions' leases that often, so `lease_ms` may be short (leases.py)."""
    if not redis_url:
        return InProcessRateLimiter(clock=clock, lease_ms=lease_ms, renew_interval_s=renew_interval_s)
    redis = Redis.from_url(
        redis_url,
        socket_timeout=socket_timeout_s,
        socket_connect_timeout=socket_timeout_s,
        # One quick retry: after Redis restarts, pooled connections are dead; the retry reconnects, so the first
        # request after recovery succeeds instead of failing on a stale socket.
        retry=Retry(ExponentialBackoff(cap=0.05, base=0.01), 1),
        health_check_interval=0,
        driver_info=DRIVER_INFO,
    )
    packed_by_hiredis(redis)
    return RedisRateLimiter(redis, clock=clock, lease_ms=lease_ms, key_prefix=key_prefix,
                            renew_interval_s=renew_interval_s)
