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
fails or is cut short leaves the connection closed (redis-py disconnects on any error mid-read or mid-write) and the
next one reconnects; a connection error or timeout is retried as the client's own retry policy says, as it is for
every other command. A script Redis no longer knows (after a restart) comes back as its ``NoScriptError`` reply, for
the caller to run through the client, which loads it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.retry import Retry
from redis.exceptions import ResponseError
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
        connection = self._connection
        await connection.send_packed_command(packed, check_health=False)
        out: list[Any] = []
        for _ in range(replies):
            try:
                out.append(await connection.read_response())
            except ResponseError as exc:  # this call's error reply; the connection reads on
                out.append(exc)
        return out

    async def _failed(self, error: Exception) -> None:
        await self._connection.disconnect()

    async def aclose(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        await self._connection.disconnect()
