"""The limiter's own redis-py connection for its script calls, one round trip at a time.

A script call through the client (``AsyncScript.__call__``) borrows a pooled connection and gives it back, and
every step of that records observability counters, takes the pool's lock and checks the connection; the write runs
under ``asyncio.wait_for``, which on this Python starts a task per write because the client has a socket timeout.
An admission and a settlement each pay all of it on every request, more than the Lua script costs Redis.

``ScriptLine`` keeps one connection of the client's own kind (same address, credentials, database, parser and
packer) for the calls ``ScriptBatch`` sends, which never overlap. The connection itself has no socket timeout: the
client's one bounds the whole round trip (connecting, writing, reading every reply). It is kept by one watchdog
timer per line rather than an ``asyncio.timeout`` per round trip, whose timer set up and torn down each time were
about a quarter of a round trip's CPU in this process (8 of 34 us over loopback TCP). A round trip only notes its
deadline and task; the watchdog, armed when none is pending, wakes at the deadline it was armed for and either cuts
short the round trip in flight past its own deadline (cancelling its task, as ``asyncio.timeout`` does, the
cancellation turned into a timeout error) or re-arms for the deadline of the one now in flight. A round trip that
fails or is cut short leaves the connection closed (as redis-py leaves it after any error mid-read or mid-write)
and the next one reconnects; a connection error or timeout is retried as the client's own retry policy says, as it
is for every other command. A script Redis no longer knows (after a restart) comes back as its ``NoScriptError``
reply, for the caller to run through the client, which loads it.

Replies are read by a ``ReplyReader`` of the line's own: once redis-py has connected (and authenticated, selected
the database, named the client), the reader takes the connection's transport over and parses each chunk with hiredis
as it arrives, waking the round trip once, when all of its replies are in. Through redis-py's reader a reply takes a
stream read, a parser call and a wake-up of its own. The replies are hiredis's, as redis-py's reader returns them;
a message Redis pushes on a RESP3 connection is no reply and is passed over (this connection subscribes to nothing and
tracks no keys; a maintenance notice would adjust a socket timeout this connection does not use).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, cast

import hiredis
from redis._parsers import BaseParser
from redis.asyncio import Redis
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import InvalidResponse
from redis.exceptions import TimeoutError as RedisTimeoutError

ScriptCall = tuple[str, Sequence[str], Sequence[str | int]]  # (the script's SHA1, its keys, its arguments)


class ScriptLine:
    def __init__(self, redis: Redis) -> None:
        pool = redis.connection_pool
        kwargs = dict(pool.connection_kwargs)
        self._timeout: float | None = kwargs.get("socket_timeout")
        kwargs["socket_timeout"] = None  # the round trip's own timeout covers writing and reading
        self._connection = pool.connection_class(**kwargs)
        self._retry: Retry = self._connection.retry  # what the client retries a command on its connections with
        self._runner: asyncio.Task[Any] | None = None  # the task whose round trip is in flight
        self._deadline = 0.0  # when that round trip must have ended (the loop's clock)
        self._cut_short: asyncio.Task[Any] | None = None  # the task the watchdog cancelled: it times out
        self._watchdog: asyncio.TimerHandle | None = None
        self._watch_loop: asyncio.AbstractEventLoop | None = None  # the loop the watchdog is armed on
        self._reader: ReplyReader | None = None  # reading the connection's replies since it last connected

    async def evalsha(self, calls: Sequence[ScriptCall]) -> list[Any]:
        """Each call's reply in order, in one round trip; a call's error reply (NOSCRIPT, a script error) is its
        reply, as an exception object. Raises a ``RedisError`` when Redis cannot be reached in time."""
        connection = self._connection
        packed: list[bytes] = []
        for sha, keys, args in calls:
            packed += connection.pack_command("EVALSHA", sha, len(keys), *keys, *args)
        return await self._retry.call_with_retry(lambda: self._round_trip(packed, len(calls)), self._failed)

    async def _round_trip(self, packed: list[bytes], replies: int) -> list[Any]:
        if self._timeout is None:
            return await self._exchange(packed, replies)
        task = asyncio.current_task()
        assert task is not None
        loop = task.get_loop()
        self._runner, self._deadline = task, loop.time() + self._timeout
        if self._watchdog is None or self._watch_loop is not loop:  # (a line may outlive a loop: tests)
            self._watchdog, self._watch_loop = loop.call_at(self._deadline, self._watch), loop
        cancelling = task.cancelling()
        try:
            return await self._exchange(packed, replies)
        except asyncio.CancelledError:
            if self._cut_short is task:
                self._cut_short = None
                # Cut short by the watchdog and by nothing else (a cancellation of the caller's own wins, as it does
                # over asyncio.timeout): the read or write it interrupted has closed the connection.
                if task.uncancel() <= cancelling:
                    raise RedisTimeoutError(
                        f"Timeout on a script round trip to Redis after {self._timeout} s") from None
            raise
        finally:
            if self._cut_short is task:  # cut short, but it ended otherwise: the cancellation is taken back
                task.uncancel()
            self._runner = self._cut_short = None

    def _watch(self) -> None:
        """The watchdog's wake-up: cut short the round trip in flight if it is past its deadline, else wait for its
        deadline; with none in flight, the next round trip arms it again."""
        self._watchdog = None
        runner = self._runner
        if runner is None or runner.done():
            return
        loop = runner.get_loop()
        if loop.time() >= self._deadline:
            self._cut_short = runner
            runner.cancel()
        else:
            self._watchdog = loop.call_at(self._deadline, self._watch)

    async def _exchange(self, packed: list[bytes], replies: int) -> list[Any]:
        reader = self._reader
        if reader is None or reader.lost is not None:
            reader = await self._connect()
        replied = reader.expect(replies)
        try:
            reader.transport.writelines(packed)
            return await replied
        except BaseException as exc:
            # As redis-py does on any failure mid-write or mid-read (a cancellation included): the connection is
            # closed, so no reply of this round trip can be read as the next one's.
            self._reader = None
            await self._connection.disconnect(nowait=True)
            if isinstance(exc, (OSError, RuntimeError)):  # written to a transport that is closing
                raise RedisConnectionError(f"Error while writing to Redis: {exc!r}") from exc
            raise

    async def _connect(self) -> ReplyReader:
        """The connection (re)connected by redis-py, handshake and all, its transport then read by a new reader."""
        connection = self._connection
        self._reader = None
        if connection.is_connected:  # its transport was lost under the last reader
            await connection.disconnect(nowait=True)
        await connection.connect_check_health(check_health=False)  # as redis-py connects before a command
        reader = ReplyReader.take_over(connection)
        self._reader = reader
        return reader

    async def _failed(self, error: Exception) -> None:
        self._reader = None
        await self._connection.disconnect()

    async def aclose(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._reader = None
        await self._connection.disconnect()


_INCOMPLETE = object()  # hiredis's answer while a reply is still partly on its way (False is a RESP3 reply)


class ReplyReader(asyncio.Protocol):
    """A connected redis-py connection's transport, taken over: the replies to one round trip at a time, parsed as
    they arrive; its waiter woken once, when the last of them is in."""

    def __init__(self, transport: asyncio.Transport, connection: AbstractConnection) -> None:
        self.transport = transport
        # redis-py's stream protocol, which the transport fed: told when the connection is lost, so that redis-py
        # closing the connection (and waiting for it to close) completes as it would have.
        self._stream_protocol = transport.get_protocol()
        encoder = connection.encoder
        decoding = {"encoding": encoder.encoding, "errors": encoder.encoding_errors} if encoder.decode_responses else {}
        # The reader redis-py's hiredis parser builds: error replies become its exception classes (NoScriptError...).
        self._parser = hiredis.Reader(protocolError=InvalidResponse, replyError=BaseParser.parse_error,
                                      notEnoughData=_INCOMPLETE, **decoding)
        self._waiter: asyncio.Future[list[Any]] | None = None
        self._wanted = 0
        self._replies: list[Any] = []
        self.lost: Exception | None = None  # why this connection can no longer be read: reconnect

    @classmethod
    def take_over(cls, connection: AbstractConnection) -> ReplyReader:
        writer = connection._writer
        assert writer is not None
        transport = cast(asyncio.Transport, writer.transport)  # (uvloop's are not asyncio.Transport subclasses)
        if transport.is_closing():
            raise RedisConnectionError("Redis closed the connection as it was made")
        reader = cls(transport, connection)
        transport.set_protocol(reader)
        return reader

    def expect(self, replies: int) -> asyncio.Future[list[Any]]:
        """A future for the next ``replies`` replies, in order (a call's error reply in its place)."""
        waiter: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        if self.lost is not None:
            waiter.set_exception(self.lost)
            return waiter
        self._waiter, self._wanted, self._replies = waiter, replies, []
        return waiter

    def data_received(self, data: bytes) -> None:
        parser = self._parser
        parser.feed(data)
        try:
            while (reply := parser.gets()) is not _INCOMPLETE:
                if type(reply) is hiredis.PushNotification:  # not a reply to anything (RESP3)
                    continue
                waiter = self._waiter
                if waiter is None:
                    raise InvalidResponse("Redis sent a reply no command of this connection was waiting for")
                self._replies.append(reply)
                if len(self._replies) == self._wanted:
                    self._waiter = None
                    if not waiter.done():  # (cancelled: its round trip closes the connection)
                        waiter.set_result(self._replies)
        except InvalidResponse as exc:
            self._fail(exc)
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"Redis closed the connection{f': {exc!r}' if exc else ''}"))
        self._stream_protocol.connection_lost(exc)

    def pause_writing(self) -> None:
        self._stream_protocol.pause_writing()

    def resume_writing(self) -> None:
        self._stream_protocol.resume_writing()

    def _fail(self, error: Exception) -> None:
        if self.lost is None:
            self.lost = error
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(error)
