"""The limiter's own connection for its script calls (gateway.ratelimit.script_line): replies in order with error
replies in place, a Redis that never answers fails within the socket timeout, a connection Redis dropped is
reconnected as the client's retry policy says."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable

import hiredis
import pytest
import redis
import uvloop
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


async def _a_dropped_connection_is_reconnected(redis_url: str, key_prefix: str, client: Redis,
                                               line: ScriptLine) -> None:
    """A round trip, Redis killing the line's connection, and the next round trip retried on a new one."""
    echo = await client.script_load(ECHO)
    assert (await line.evalsha([(echo, [key_prefix], ["x"])]))[0][1] == b"x"
    admin = redis.Redis.from_url(redis_url)
    ours = [c for c in admin.client_list() if c["name"] == client.get_connection_kwargs()["client_name"]
            and c["cmd"] == "evalsha"]  # fmt: skip
    assert len(ours) == 1
    assert admin.client_kill_filter(_id=ours[0]["id"]) == 1
    assert (await line.evalsha([(echo, [key_prefix], ["y"])]))[0][1] == b"y"  # retried on a new connection


def _named_client(redis_url: str, key_prefix: str) -> Redis:
    """A client named after the test (this test's connections only: Redis is shared), retrying as build_limiter's."""
    return Redis.from_url(redis_url, client_name=key_prefix.replace(":", "-"), retry=Retry(NoBackoff(), 1))


async def test_a_connection_redis_dropped_is_reconnected(redis_url: str, key_prefix: str) -> None:
    client = _named_client(redis_url, key_prefix)
    line = ScriptLine(client)
    try:
        await _a_dropped_connection_is_reconnected(redis_url, key_prefix, client, line)
    finally:
        await line.aclose()
        await client.aclose()


class _Answering:
    """A stand-in Redis on loopback: answers every command ``+OK`` until told to fall silent, then reads on and
    answers nothing."""

    def __init__(self) -> None:
        self.silent = False
        self.commands = 0
        self.writers: list[asyncio.StreamWriter] = []

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        parser = hiredis.Reader()
        while data := await reader.read(65536):
            parser.feed(data)
            while parser.gets() is not False:
                self.commands += 1
                if not self.silent:
                    writer.write(b"+OK\r\n")


async def _line_to(fake: _Answering | _Replying, timeout: float,
                   protocol: int = 2) -> tuple[asyncio.Server, Redis, ScriptLine]:
    """A script line whose client talks to ``fake`` on a loopback port, with no retries."""
    server = await asyncio.start_server(fake.serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    client = Redis.from_url(f"redis://127.0.0.1:{port}/0", socket_timeout=timeout, socket_connect_timeout=timeout,
                            protocol=protocol, retry=Retry(NoBackoff(), 0))
    return server, client, ScriptLine(client)


async def _answering_line(timeout: float) -> tuple[_Answering, asyncio.Server, Redis, ScriptLine]:
    fake = _Answering()
    return (fake, *await _line_to(fake, timeout))


async def _close(fake: _Answering | _Replying, server: asyncio.Server, client: Redis, line: ScriptLine) -> None:
    await line.aclose()
    await client.aclose()
    for writer in fake.writers:
        writer.close()
    server.close()
    await server.wait_closed()


async def test_a_round_trip_times_out_at_its_own_deadline_not_an_earlier_ones() -> None:
    fake, server, client, line = await _answering_line(timeout=0.4)
    try:
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]  # arms the watchdog for this one's deadline
        await asyncio.sleep(0.25)
        fake.silent = True
        started = time.monotonic()
        with pytest.raises(RedisError, match="Timeout"):
            await line.evalsha([("0" * 40, [], [])])
        waited = time.monotonic() - started
        assert 0.35 < waited < 1.5  # its own 0.4 s, not what was left of the first one's (0.15 s)
        task = asyncio.current_task()
        assert task is not None and task.cancelling() == 0  # the watchdog's cancellation was taken back
        await asyncio.sleep(0)  # and none is left pending on the caller
    finally:
        await _close(fake, server, client, line)


async def test_the_callers_own_cancellation_stays_a_cancellation() -> None:
    fake, server, client, line = await _answering_line(timeout=5.0)
    try:
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]
        fake.silent = True
        call = asyncio.ensure_future(line.evalsha([("0" * 40, [], [])]))
        await asyncio.sleep(0.1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        fake.silent = False
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]  # the next round trip reconnects and works
    finally:
        await _close(fake, server, client, line)


async def test_round_trips_in_a_row_longer_than_the_timeout_in_all_are_not_cut_short() -> None:
    fake, server, client, line = await _answering_line(timeout=0.2)
    try:
        started = time.monotonic()
        while time.monotonic() - started < 0.7:  # the watchdog wakes and re-arms behind them several times
            assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]
            await asyncio.sleep(0.01)
    finally:
        await _close(fake, server, client, line)


async def test_cancelled_by_its_caller_as_the_watchdog_cuts_it_short_is_a_cancellation() -> None:
    fake, server, client, line = await _answering_line(timeout=5.0)
    try:
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]
        fake.silent = True
        call = asyncio.ensure_future(line.evalsha([("0" * 40, [], [])]))
        await asyncio.sleep(0.1)
        line._deadline = 0.0  # past: the watchdog's wake-up cuts it short now
        line._watch()
        call.cancel()  # and its caller gives up in the same turn of the loop
        with pytest.raises(asyncio.CancelledError):
            await call
    finally:
        await _close(fake, server, client, line)



class _ThreadedAnswering:
    """The same stand-in Redis served from a thread of its own, so it outlives any one event loop."""

    def __init__(self) -> None:
        self.silent = False
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = self._listener.accept()
                self._connections.append(connection)
                threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        parser = hiredis.Reader()
        with contextlib.suppress(OSError):
            while data := connection.recv(65536):
                parser.feed(data)
                while parser.gets() is not False:
                    if not self.silent:
                        connection.sendall(b"+OK\r\n")

    def close(self) -> None:
        for connection in [self._listener, *self._connections]:
            connection.close()


def test_a_line_used_on_a_new_event_loop_still_times_out() -> None:
    fake = _ThreadedAnswering()
    client = Redis.from_url(f"redis://127.0.0.1:{fake.port}/0", socket_timeout=0.3, socket_connect_timeout=0.3,
                            protocol=2, retry=Retry(NoBackoff(), 0))
    line = ScriptLine(client)

    async def on_the_first_loop() -> None:
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]  # arms the watchdog on this loop
        await line._failed(RedisError())  # its connection belongs to this loop; the line lives on

    async def on_the_next_loop() -> float:
        started = time.monotonic()
        with pytest.raises(RedisError, match="Timeout"):
            await line.evalsha([("0" * 40, [], [])])
        waited = time.monotonic() - started
        await line.aclose()
        await client.aclose()
        return waited

    try:
        asyncio.run(on_the_first_loop())  # the loop closes with the watchdog still armed on it
        fake.silent = True
        assert asyncio.run(asyncio.wait_for(on_the_next_loop(), 5)) < 2.0
    finally:
        fake.close()


class _Replying:
    """A stand-in Redis on loopback: answers each EVALSHA with ``answer(number)`` (numbered from 0 on every
    connection it serves), one byte at a time if ``dribble``; HELLO as a RESP3 server does, every other command of
    redis-py's handshake ``+OK``."""

    def __init__(self, answer: Callable[[int], bytes], dribble: bool = False) -> None:
        self.answer = answer
        self.dribble = dribble
        self.connections = 0
        self.writers: list[asyncio.StreamWriter] = []

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        self.writers.append(writer)
        parser = hiredis.Reader()
        calls = 0
        while data := await reader.read(65536):
            parser.feed(data)
            while (command := parser.gets()) is not False:
                if command[0].upper() == b"HELLO":
                    writer.write(b"%1\r\n$5\r\nproto\r\n:3\r\n")
                    continue
                if command[0].upper() != b"EVALSHA":
                    writer.write(b"+OK\r\n")
                    continue
                reply, calls = self.answer(calls), calls + 1
                if not self.dribble:
                    writer.write(reply)
                    continue
                for index in range(len(reply)):
                    writer.write(reply[index:index + 1])
                    await writer.drain()
                    await asyncio.sleep(0.002)  # each byte its own read on the client's side


async def _replying_line(fake: _Replying, protocol: int = 2) -> tuple[asyncio.Server, Redis, ScriptLine]:
    return await _line_to(fake, 5.0, protocol)


async def test_replies_that_arrive_a_byte_at_a_time_are_put_together() -> None:
    fake = _Replying(lambda call: b"*2\r\n$3\r\nabc\r\n:%d\r\n" % call, dribble=True)
    server, client, line = await _replying_line(fake)
    try:
        assert await line.evalsha([("0" * 40, [], []), ("0" * 40, [], [])]) == [[b"abc", 0], [b"abc", 1]]
        assert await line.evalsha([("0" * 40, [], [])]) == [[b"abc", 2]]
        assert fake.connections == 1
    finally:
        await _close(fake, server, client, line)


async def test_a_reply_no_round_trip_asked_for_is_never_read_as_the_next_ones() -> None:
    # The first EVALSHA is answered twice: the second reply must not become the answer to the next round trip.
    fake = _Replying(lambda call: b"+OK\r\n+STALE\r\n" if call == 0 else b"+OK\r\n")
    server, client, line = await _replying_line(fake)
    try:
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]
        await asyncio.sleep(0.05)  # the stray reply is in
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]
        assert fake.connections == 2  # read on a new connection: the one with the stray reply was closed
    finally:
        await _close(fake, server, client, line)


async def test_a_connection_closed_mid_round_trip_fails_it_at_once() -> None:
    # Redis closes the connection instead of answering: the round trip fails then, not at its 5 s timeout.
    fake = _Replying(lambda call: b"")
    server, client, line = await _replying_line(fake)

    async def close_when_asked() -> None:
        while not fake.writers:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        fake.writers[0].close()

    try:
        closer = asyncio.ensure_future(close_when_asked())
        started = time.monotonic()
        with pytest.raises(RedisError):
            await line.evalsha([("0" * 40, [], [])])
        assert time.monotonic() - started < 2.0
        await closer
        fake.answer = lambda call: b"+OK\r\n"
        assert await line.evalsha([("0" * 40, [], [])]) == [b"OK"]  # and the next one reconnects
    finally:
        await _close(fake, server, client, line)


async def test_resp3_pushes_are_passed_over_and_false_is_a_reply() -> None:
    push = b">3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nx\r\n"
    fake = _Replying(lambda call: push + b"+OK\r\n" if call == 0 else b"#f\r\n" + push)
    server, client, line = await _replying_line(fake, protocol=3)
    try:
        assert await line.evalsha([("0" * 40, [], []), ("0" * 40, [], [])]) == [b"OK", False]
        await asyncio.sleep(0.05)  # the push after the last reply is in, and passed over
        assert await line.evalsha([("0" * 40, [], [])]) == [False]
        assert fake.connections == 1
    finally:
        await _close(fake, server, client, line)


@pytest.mark.parametrize("protocol", [2, 3])
async def test_each_resp_version_reads_replies_in_order(redis_url: str, key_prefix: str, protocol: int) -> None:
    client = Redis.from_url(redis_url, protocol=protocol)
    line = ScriptLine(client)
    try:
        echo, fail = await client.script_load(ECHO), await client.script_load(FAIL)
        for _ in range(3):
            replies = await line.evalsha([(echo, [f"{key_prefix}:a"], ["1"]), ("0" * 40, [], []), (fail, [], [])])
            assert replies[0] == [f"{key_prefix}:a".encode(), b"1"]
            assert isinstance(replies[1], NoScriptError)
            assert isinstance(replies[2], ResponseError) and "nope" in str(replies[2])
    finally:
        await line.aclose()
        await client.aclose()


def test_under_uvloop_a_dropped_connection_is_reconnected_and_closing_completes(redis_url: str,
                                                                                 key_prefix: str) -> None:
    # The gateway's event loop: its transports are taken over as asyncio's are.
    async def scenario() -> None:
        client = _named_client(redis_url, key_prefix)
        line = ScriptLine(client)
        try:
            await _a_dropped_connection_is_reconnected(redis_url, key_prefix, client, line)
        finally:
            await asyncio.wait_for(line.aclose(), 2.0)  # redis-py's wait for the close is told it happened
            await client.aclose()

    uvloop.run(scenario())
