"""One round trip for the limiter's script calls that pile up while another is on its way.

A request's admission and settlement are each one Lua script call. Sent one by one, concurrent calls each pay their
own socket write, wake-up and read, which on this kind of machine cost more than the script and redis-py together.
``ScriptBatch`` sends a call at once when none is in flight (no wait at low load) and otherwise queues it: when the
round trip in flight ends, everything queued meanwhile goes as one non-transactional pipeline. Each script still runs
atomically on its own, in the order it was called, and each caller waits for its own reply (or error), so what a
caller sees is what a direct call returns. Every round trip goes over the limiter's own connection
(``ScriptLine``), one at a time; a script Redis forgot (after a restart) is run again through the client, which
loads it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, RedisError

from gateway.ratelimit.script_line import ScriptLine


@dataclass(slots=True)
class _Call:
    script: AsyncScript
    keys: Sequence[str]
    args: Sequence[str | int]
    reply: asyncio.Future[Any]


class ScriptBatch:
    def __init__(self, redis: Redis) -> None:
        self._line = ScriptLine(redis)
        self._busy = False  # a round trip is on its way
        self._queued: list[_Call] = []
        self._sending: set[asyncio.Task[None]] = set()  # strong references until each round trip ends
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
            (reply,) = await self._line.evalsha([(script.sha, keys, args)])
            if isinstance(reply, NoScriptError):
                return await script(keys=keys, args=args)
        finally:
            self._send_queued()
        if isinstance(reply, Exception):
            raise reply
        return reply

    def _send_queued(self) -> None:
        """A round trip ended: what was queued meanwhile goes in the next one, or the line is free."""
        if not self._queued:
            self._busy = False
            return
        calls, self._queued = self._queued, []
        self.round_trips += 1
        task = asyncio.ensure_future(self._send(calls))
        self._sending.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        self._send_queued()

    async def _send(self, calls: list[_Call]) -> None:
        try:
            replies = await self._line.evalsha([(call.script.sha, call.keys, call.args) for call in calls])
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
        await self._line.aclose()
