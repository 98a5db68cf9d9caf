"""The limiter's connections pack commands with hiredis: the same bytes redis-py's own packer writes, the same
refusals, and a real Redis answers them (scripts, pipelines, multi-word commands)."""

from __future__ import annotations

from typing import Any

import pytest
from ratelimit_support import NO_REDIS_REASON, REDIS_URL
from redis.asyncio.connection import Connection
from redis.exceptions import DataError

from gateway.ratelimit import build_limiter
from gateway.ratelimit.hiredis_packing import HiredisPacking, packed_by_hiredis
from gateway.ratelimit.redis_limiter import RedisRateLimiter


class PackedByHiredis(HiredisPacking, Connection):
    pass


COMMANDS: list[tuple[Any, ...]] = [
    ("EVALSHA", "a" * 40, 4, "wdn:rl:{t%2F1}:t", "wdn:rl:{t%2F1}:t:leases", "k", "k:leases", "", "adm_1:130", 130,
     60000, 2, "600 100000 -1 -1"),
    ("CLIENT SETINFO", "LIB-NAME", "redis-py"),  # a command name of two words: sent as two
    (b"SET", b"key", "vällue 🙂", -7, 0),
    ("GET", memoryview(b"key")[:2]),
    ("ZADD", "z", 0.1, "a", 1e20, "b", -0.0, "c", 2**70, "d"),  # floats as repr() writes them, a big integer
    ("SET", "k", b"\x00\xff" * 40_000),  # longer than redis-py's buffer cutoff: it writes it in chunks
]


@pytest.mark.parametrize("command", COMMANDS)
def test_the_bytes_are_redis_pys(command: tuple[Any, ...]) -> None:
    ours = PackedByHiredis().pack_command(*command)
    theirs = Connection().pack_command(*command)
    assert b"".join(ours) == b"".join(bytes(part) for part in theirs)


@pytest.mark.parametrize("value", [None, True, object()])
def test_values_redis_py_refuses_are_refused(value: Any) -> None:
    for connection in (PackedByHiredis(), Connection()):
        with pytest.raises(DataError):
            connection.pack_command("SET", "k", value)


@pytest.mark.redis
@pytest.mark.skipif(not REDIS_URL, reason=NO_REDIS_REASON)
async def test_the_limiters_connections_use_it_against_a_real_redis() -> None:
    assert REDIS_URL
    limiter = build_limiter(REDIS_URL)
    assert isinstance(limiter, RedisRateLimiter)
    client = limiter._redis
    try:
        assert issubclass(client.connection_pool.connection_class, HiredisPacking)
        packed_by_hiredis(client)  # twice: no second mixin
        assert client.connection_pool.connection_class.__mro__.count(HiredisPacking) == 1
        await client.set("wdn:test:hiredis-packing", "vällue 🙂", px=5000)
        assert await client.get("wdn:test:hiredis-packing") == "vällue 🙂".encode()
        script = client.register_script("return {KEYS[1], ARGV[1], tonumber(ARGV[2]) + 1}")
        assert await script(keys=["k🙂"], args=["a", 41]) == [b"k\xf0\x9f\x99\x82", b"a", 42]
        pipe = client.pipeline(transaction=False)
        pipe.evalsha(script.sha, 1, "x", "y", 1)
        pipe.echo("two")
        assert await pipe.execute() == [[b"x", b"y", 2], b"two"]
    finally:
        await client.delete("wdn:test:hiredis-packing")
        await limiter.aclose()
