"""One round trip for the limiter's script calls that pile up while another is on its way.

A request's admission and settlement are each one Lua script call. Sent one by one, concurrent calls each pay their
own socket write, wake-up and read, which on this kind of machine cost more than the script and redis-py together.
``ScriptBatch`` sends a call at once when none is in flight (no wait at low load) and otherwise queues it: when the
round trip in flight ends, everything queued meanwhile goes as one non-transactional pipeline. Each script still runs
atomically on its own, in the order it was called, and each caller waits for its own reply (or error), so what a
caller sees is what a direct call returns. Every round trip goes over the limiter's own connection
(``ScriptLine``), one at a time; a script Redis forgot (after a restart) is run again through the client, which
loads it.

A call no caller waits for (a settlement once its response is decided: ``post``) pays no round trip of its own: it
rides at the head of the next one, whatever starts it, or goes alone once it has waited ``post_delay_s``. At the
head, it runs before that round trip's other calls, so an admission that follows a settlement in this process
always finds it done. ``flush_posted`` sends what waits at once (before a read that must see it, and when closing).
A posted call's error goes to its ``on_error``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, RedisError

from gateway.ratelimit.script_line import ScriptLine

POST_DELAY_S = 0.01  # the longest a posted call waits for a round trip to ride with before it goes alone


@dataclass(slots=True)
class _Call:
    script: AsyncScript
    keys: Sequence[str]
    args: Sequence[str | int]
    reply: asyncio.Future[Any]


@dataclass(slots=True)
class _Posted:
    script: AsyncScript
    keys: Sequence[str]
    args: Sequence[str | int]
    on_error: Callable[[BaseException], None]


class ScriptBatch:
    def __init__(self, redis: Redis, *, post_delay_s: float = POST_DELAY_S) -> None:
        self._line = ScriptLine(redis)
        self._busy = False  # a round trip is on its way
        self._queued: list[_Call] = []
        self._posted: list[_Posted] = []  # calls no caller waits for, for the head of the next round trip
        self._flushes: list[asyncio.Future[None]] = []  # flush_posted callers, answered with the next round trip
        self._post_delay_s = post_delay_s
        self._post_timer: asyncio.TimerHandle | None = None  # armed while calls are posted
        self._sending: set[asyncio.Task[Any]] = set()  # strong references until each round trip ends
        self.round_trips = 0  # sends so far (a direct call or a pipeline): fewer than calls when batching works

    async def call(self, script: AsyncScript, keys: Sequence[str], args: Sequence[str | int]) -> Any:
        """``script(keys, args)``'s reply (or its error): sent now if nothing is in flight, else with the calls
        queued behind the round trip in flight."""
        if self._busy:
            reply: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._queued.append(_Call(script, keys, args, reply))
            return await reply
        self._busy = True
        self.round_trips += 1
        try:
            (reply,) = await self._evalsha([(script.sha, keys, args)])
            if isinstance(reply, NoScriptError):
                return await script(keys=keys, args=args)
        finally:
            self._send_queued()
        if isinstance(reply, Exception):
            raise reply
        return reply

    def post(self, script: AsyncScript, keys: Sequence[str], args: Sequence[str | int], *,
             on_error: Callable[[BaseException], None]) -> None:
        """Have ``script(keys, args)`` run at the head of the next round trip, at the latest ``post_delay_s`` from
        now, with no caller waiting for it; its error (if any) goes to ``on_error``. Called on the event loop."""
        self._posted.append(_Posted(script, keys, args, on_error))
        if self._post_timer is None:
            self._post_timer = asyncio.get_running_loop().call_later(self._post_delay_s, self._post_due)

    async def flush_posted(self) -> None:
        """Return once what is posted now has been run (sent at once, or with the round trip in flight's successor)."""
        if not self._posted:
            return
        flushed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._flushes.append(flushed)
        if not self._busy:
            self._busy = True
            self._start(self._send([]))
        await flushed

    def _post_due(self) -> None:
        """Posted calls have waited long enough: sent now, unless the round trip in flight's successor takes them."""
        self._post_timer = None
        if self._posted and not self._busy:
            self._busy = True
            self._start(self._send([]))

    async def _evalsha(self, calls: list[tuple[str, Sequence[str], Sequence[str | int]]]) -> list[Any]:
        """``ScriptLine.evalsha`` of ``calls`` behind the posted calls waiting now; the replies of ``calls``."""
        posted, self._posted = self._posted, []
        flushes, self._flushes = self._flushes, []
        if not posted:
            return await self._line.evalsha(calls)
        try:
            replies = await self._line.evalsha([*((p.script.sha, p.keys, p.args) for p in posted), *calls])
        except BaseException as exc:
            for p in posted:
                p.on_error(exc)
            raise
        finally:
            for flushed in flushes:
                if not flushed.done():
                    flushed.set_result(None)
        for p, reply in zip(posted, replies, strict=False):
            if isinstance(reply, NoScriptError):  # Redis forgot the script: run through the client, which loads it
                self._track(asyncio.ensure_future(self._run_posted_loading(p)))
            elif isinstance(reply, Exception):
                p.on_error(reply)
        return replies[len(posted):]

    @staticmethod
    async def _run_posted_loading(posted: _Posted) -> None:
        try:
            await posted.script(keys=posted.keys, args=posted.args)
        except Exception as exc:
            posted.on_error(exc)

    def _send_queued(self) -> None:
        """A round trip ended: what was queued (or posted) meanwhile goes in the next one, or the line is free."""
        if not self._queued and not self._posted:
            self._busy = False
            return
        calls, self._queued = self._queued, []
        self._start(self._send(calls))

    def _start(self, sending: Any) -> None:
        self.round_trips += 1
        task = asyncio.ensure_future(sending)
        self._track(task)
        task.add_done_callback(self._sent)

    def _track(self, task: asyncio.Task[Any]) -> None:
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._send_queued()

    async def _send(self, calls: list[_Call]) -> None:
        try:
            replies = await self._evalsha([(call.script.sha, call.keys, call.args) for call in calls])
            for index, reply in enumerate(replies):
                if isinstance(reply, NoScriptError):
                    replies[index] = await self._run_loading(calls[index])
        except asyncio.CancelledError:  # the loop is closing
            for call in calls:
                call.reply.cancel()
            raise
        except Exception as exc:  # the connection failed: every call of the batch fails with it
            for call in calls:
                if not call.reply.done():
                    call.reply.set_exception(exc)
            return
        for call, reply in zip(calls, replies, strict=True):
            if call.reply.done():  # its caller was cancelled
                continue
            if isinstance(reply, Exception):
                call.reply.set_exception(reply)
            else:
                call.reply.set_result(reply)

    @staticmethod
    async def _run_loading(call: _Call) -> Any:
        """The call through the client, which loads a script Redis forgot; its error as its reply."""
        try:
            return await call.script(keys=call.keys, args=call.args)
        except RedisError as exc:
            return exc

    async def aclose(self) -> None:
        await self.flush_posted()
        if self._post_timer is not None:
            self._post_timer.cancel()
            self._post_timer = None
        await self._line.aclose()
