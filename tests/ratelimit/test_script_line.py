"""The limiter's own connection for its script calls (gateway.ratelimit.script_line): replies in order with error
replies in place, a Redis that never answers fails within the socket timeout, a connection Redis dropped is
reconnected as the client's retry policy says."""

from __future__ import annotations

import asyncio
import time

import pytest
import redis
from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import NoScriptError, RedisError, ResponseError

from gateway.ratelimit.script_line import ScriptLine

pytestmark = pytest.mark.redis

ECHO = "return {KEYS[1], ARGV[1]}"
FAIL = "return redis.error_reply('nope')"


async def test_replies_come_in_order_with_error_replies_in_place(redis_url: str, key_prefix: str) -> None:
    client = Redis.from_url(redis_url)
    line = ScriptLine(client)
    try:
        echo, fail = await client.script_load(ECHO), await client.script_load(FAIL)
        replies = await line.evalsha([(echo, [f"{key_prefix}:a"], ["1"]), (fail, [], []),
                                      ("0" * 40, [], []), (echo, [f"{key_prefix}:b"], [2])])
        assert replies[0] == [f"{key_prefix}:a".encode(), b"1"]
        assert isinstance(replies[1], ResponseError) and "nope" in str(replies[1])
        assert isinstance(replies[2], NoScriptError)
        assert replies[3] == [f"{key_prefix}:b".encode(), b"2"]
    finally:
        await line.aclose()
        await client.aclose()


async def test_a_redis_that_never_answers_fails_within_the_socket_timeout() -> None:
    accepted: list[asyncio.StreamWriter] = []

    async def silent(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)  # reads nothing, answers nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = Redis.from_url(f"redis://127.0.0.1:{port}/0", socket_timeout=0.2, socket_connect_timeout=0.2,
                            protocol=2)
    line = ScriptLine(client)
    try:
        started = time.monotonic()
        with pytest.raises(RedisError):
            await line.evalsha([("0" * 40, [], [])])
        assert time.monotonic() - started < 2.0  # the default retry: one more try, each bounded by the timeout
    finally:
        await line.aclose()
        await client.aclose()
        for writer in accepted:
            writer.close()
        server.close()
        await server.wait_closed()


async def test_a_connection_redis_dropped_is_reconnected(redis_url: str, key_prefix: str) -> None:
    name = key_prefix.replace(":", "-")  # this test's connections only: Redis is shared
    client = Redis.from_url(redis_url, client_name=name, retry=Retry(NoBackoff(), 1))  # as build_limiter's
    line = ScriptLine(client)
    try:
        echo = await client.script_load(ECHO)
        assert (await line.evalsha([(echo, [key_prefix], ["x"])]))[0][1] == b"x"
        admin = redis.Redis.from_url(redis_url)
        ours = [c for c in admin.client_list() if c["name"] == name and c["cmd"] == "evalsha"]
        assert len(ours) == 1
        assert admin.client_kill_filter(_id=ours[0]["id"]) == 1
        assert (await line.evalsha([(echo, [key_prefix], ["y"])]))[0][1] == b"y"  # retried on a new connection
    finally:
        await line.aclose()
        await client.aclose()
