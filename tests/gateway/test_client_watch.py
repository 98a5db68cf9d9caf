"""A non-streamed call's wait for the engine (CallHandler._await_watching_client): a quick call never reads its
client's connection again; a longer one notices the client leaving; the deadline ends the wait either way."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from gateway.openai.service import WATCH_CLIENT_AFTER_S, CallHandler
from gateway.ratelimit.overload import Deadline


class _Client:
    """The ASGI receive of a client whose body was read: it reports a disconnect after ``leaves_after_s``
    (None: never), and counts the reads and those cancelled while waiting."""

    def __init__(self, leaves_after_s: float | None) -> None:
        self.leaves_after_s = leaves_after_s
        self.reads = 0
        self.cancelled_reads = 0

    async def receive(self) -> dict[str, Any]:
        self.reads += 1
        try:
            await asyncio.sleep(3600 if self.leaves_after_s is None else self.leaves_after_s)
        except asyncio.CancelledError:
            self.cancelled_reads += 1
            raise
        return {"type": "http.disconnect"}


def _handler(client: _Client, timeout_s: float) -> CallHandler:
    handler = CallHandler.__new__(CallHandler)  # only what the wait reads: the client and the deadline
    handler.http = SimpleNamespace(receive=client.receive)  # type: ignore[assignment]
    handler.deadline = Deadline.after(timeout_s)
    return handler


async def test_a_call_done_within_the_grace_reads_nothing_more_from_its_client() -> None:
    client = _Client(leaves_after_s=None)
    call = asyncio.ensure_future(asyncio.sleep(WATCH_CLIENT_AFTER_S / 4))
    assert await _handler(client, 30.0)._await_watching_client(call) is False
    assert call.done()
    await asyncio.sleep(0.01)
    assert client.reads == 0


async def test_a_client_gone_during_a_longer_call_is_noticed() -> None:
    client = _Client(leaves_after_s=0.1)
    call = asyncio.ensure_future(asyncio.sleep(30))
    started = time.monotonic()
    try:
        assert await _handler(client, 30.0)._await_watching_client(call) is True
        assert not call.done() and time.monotonic() - started < 5.0
        assert client.reads == 1
    finally:
        call.cancel()


async def test_the_deadline_ends_the_wait_while_the_client_is_watched() -> None:
    client = _Client(leaves_after_s=None)
    call = asyncio.ensure_future(asyncio.sleep(30))
    started = time.monotonic()
    try:
        assert await _handler(client, 0.2)._await_watching_client(call) is False
        assert not call.done() and 0.15 < time.monotonic() - started < 5.0
        await asyncio.sleep(0)
        assert (client.reads, client.cancelled_reads) == (1, 1)  # the watcher was stopped with the wait
    finally:
        call.cancel()


async def test_a_deadline_within_the_grace_ends_the_wait_unwatched() -> None:
    client = _Client(leaves_after_s=None)
    call = asyncio.ensure_future(asyncio.sleep(30))
    try:
        assert await _handler(client, WATCH_CLIENT_AFTER_S / 4)._await_watching_client(call) is False
        assert not call.done() and client.reads == 0
    finally:
        call.cancel()


async def test_a_cancelled_wait_leaves_no_watcher_behind() -> None:
    client = _Client(leaves_after_s=None)
    call = asyncio.ensure_future(asyncio.sleep(30))
    waiting = asyncio.ensure_future(_handler(client, 30.0)._await_watching_client(call))
    try:
        await asyncio.sleep(WATCH_CLIENT_AFTER_S * 3)  # past the grace: the client is watched
        waiting.cancel()
        await asyncio.wait({waiting})
        await asyncio.sleep(0)
        assert waiting.cancelled() and (client.reads, client.cancelled_reads) == (1, 1)
    finally:
        call.cancel()
