"""A call's watch over its own wait for the engine (a non-streamed call's whole collection, a stream's first
output): the wait is cut short when the client leaves or the request's deadline passes.

The wait runs in the call's own task (the server's), not in a task of its own awaited beside a watcher: a task per
call, its first step, its completion callbacks and the wake-up of the waiting handler cost the event loop more than
the engine's reply. The watch cuts the wait as ``asyncio.timeout`` does, by cancelling the task and taking that
cancellation back when the wait ends (``stop``), so a cancellation from anyone else (the server's, the lifecycle's
shutdown cut) still goes on up.

The client is watched only once the wait has run ``WATCH_CLIENT_AFTER_S``: the watcher (a task reading the connection
until a disconnect) costs several steps of the event loop, and most calls a gateway serves quickly (cached, short)
end before it could matter. A client gone earlier has its engine work stopped that much later.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

from starlette.types import Receive

from gateway.openai.streaming import wait_for_disconnect
from gateway.ratelimit.overload import Deadline

T = TypeVar("T")

# How long a call runs before its client is watched for a disconnect.
WATCH_CLIENT_AFTER_S = 0.02


class CallWatch:
    """Armed on the running task: cuts what it awaits short when the client leaves (``client_gone``) or the deadline
    passes. ``stop`` disarms it and says whether the cancellation the caller caught was the watch's own."""

    __slots__ = ("_cancelling", "_cut", "_deadline", "_receive", "_task", "_timer", "_watcher", "client_gone")

    def __init__(self, deadline: Deadline, receive: Receive) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._task = task
        self._cancelling = task.cancelling()
        self._deadline = deadline
        self._receive = receive
        self._cut = False
        self.client_gone = False
        self._watcher: asyncio.Future[Any] | None = None
        remaining = deadline.remaining()
        loop = task.get_loop()
        if remaining <= WATCH_CLIENT_AFTER_S:  # past its deadline before the client needs watching
            self._timer = loop.call_later(remaining, self._cut_short)
        else:
            self._timer = loop.call_later(WATCH_CLIENT_AFTER_S, self._watch_client)

    def _watch_client(self) -> None:
        self._watcher = watcher = asyncio.ensure_future(wait_for_disconnect(self._receive))
        watcher.add_done_callback(self._client_left)
        self._timer = self._task.get_loop().call_later(self._deadline.remaining(), self._cut_short)

    def _client_left(self, watcher: asyncio.Future[Any]) -> None:
        if watcher.cancelled():  # stopped with the wait
            return
        watcher.exception()  # a read that failed counts as the client gone (and is retrieved here)
        self.client_gone = True
        self._cut_short()

    def _cut_short(self) -> None:
        if not self._cut and not self._task.done():
            self._cut = True
            self._task.cancel()

    def stop(self) -> bool:
        """Disarm (idempotent). True when the watch cut the wait short and nothing else cancelled the task: its
        cancellation is taken back, and the caller ends the call as cut (client gone or deadline)."""
        self._timer.cancel()
        if self._watcher is not None:
            self._watcher.cancel()
            self._watcher = None
        if not self._cut:
            return False
        self._cut = False
        return self._task.uncancel() <= self._cancelling


class StreamDeadline:
    """A stream's deadline over its waits for the engine's outputs, armed once for the stream rather than as an
    ``asyncio.timeout`` per output (a Timeout and a timer set up and torn down each time: ~3.7 us an output). The one
    timer cuts the wait in flight when the deadline passes, as ``asyncio.timeout`` does (its cancellation taken back
    and raised as ``TimeoutError``; anyone else's goes on up); passed between two waits, it makes the next wait raise
    ``TimeoutError`` at once. ``close`` disarms it."""

    __slots__ = ("_cut", "_deadline", "_timer", "_waiting", "expired")

    def __init__(self, deadline: Deadline) -> None:
        self._deadline = deadline
        self._timer: asyncio.TimerHandle | None = None
        self._waiting: asyncio.Task[Any] | None = None  # the task waiting for the engine, while one is
        self._cut = False
        self.expired = False

    async def wait(self, output: Awaitable[T]) -> T:
        """``output``'s result, unless the deadline passes first (``TimeoutError``)."""
        task = asyncio.current_task()
        assert task is not None
        if self._timer is None and not self.expired:
            remaining = self._deadline.remaining()
            if remaining <= 0:
                self.expired = True
            else:
                self._timer = task.get_loop().call_later(remaining, self._expire)
        if self.expired:
            if isinstance(output, Coroutine):
                output.close()
            raise TimeoutError
        cancelling = task.cancelling()
        self._waiting = task
        try:
            return await output
        except asyncio.CancelledError:
            if self._cut:
                self._cut = False
                if task.uncancel() <= cancelling:
                    raise TimeoutError from None
            raise
        finally:
            self._waiting = None
            if self._cut:  # cut, but the wait ended otherwise: the cancellation is taken back
                self._cut = False
                task.uncancel()

    def _expire(self) -> None:
        self._timer = None
        self.expired = True
        task = self._waiting
        if task is not None and not task.done():
            self._cut = True
            task.cancel()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
