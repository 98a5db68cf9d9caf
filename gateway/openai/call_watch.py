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
from typing import Any

from starlette.types import Receive

from gateway.openai.streaming import wait_for_disconnect
from gateway.ratelimit.overload import Deadline

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
