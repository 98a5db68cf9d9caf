"""CallWatch, a call's watch over its wait for the engine in its own task: a quick wait never reads its
client's connection again; a longer one is cut when the client leaves or the deadline passes, and the cut's
cancellation is taken back; anyone else's cancellation goes on up."""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any

import pytest

from gateway.openai.call_watch import WATCH_CLIENT_AFTER_S, CallWatch, StreamDeadline
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


async def _watched_wait(client: _Client, timeout_s: float, wait_s: float) -> tuple[str, CallWatch]:
    """How a wait of ``wait_s`` under a watch ends: 'done', or 'cut' (the watch's own cancellation, taken back)."""
    watch = CallWatch(Deadline.after(timeout_s), client.receive)
    try:
        await asyncio.sleep(wait_s)
    except asyncio.CancelledError:
        if not watch.stop():
            raise
        return "cut", watch
    finally:
        watch.stop()
    return "done", watch


async def test_a_wait_done_within_the_grace_reads_nothing_more_from_its_client() -> None:
    client = _Client(leaves_after_s=None)
    ended, watch = await _watched_wait(client, 30.0, WATCH_CLIENT_AFTER_S / 4)
    assert ended == "done" and not watch.client_gone
    await asyncio.sleep(WATCH_CLIENT_AFTER_S * 2)
    assert client.reads == 0
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_a_client_gone_during_a_longer_wait_cuts_it() -> None:
    client = _Client(leaves_after_s=0.1)
    started = time.monotonic()
    ended, watch = await _watched_wait(client, 30.0, 30.0)
    assert ended == "cut" and watch.client_gone and time.monotonic() - started < 5.0
    assert client.reads == 1
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_the_deadline_cuts_the_wait_while_the_client_is_watched() -> None:
    client = _Client(leaves_after_s=None)
    started = time.monotonic()
    ended, watch = await _watched_wait(client, 0.2, 30.0)
    assert ended == "cut" and not watch.client_gone and 0.15 < time.monotonic() - started < 5.0
    await asyncio.sleep(0)
    assert (client.reads, client.cancelled_reads) == (1, 1)  # the watcher was stopped with the wait


async def test_a_deadline_within_the_grace_cuts_the_wait_unwatched() -> None:
    client = _Client(leaves_after_s=None)
    ended, watch = await _watched_wait(client, WATCH_CLIENT_AFTER_S / 4, 30.0)
    assert ended == "cut" and not watch.client_gone and client.reads == 0


async def test_another_cancellation_goes_on_up_and_leaves_no_watcher() -> None:
    client = _Client(leaves_after_s=None)
    waiting = asyncio.ensure_future(_watched_wait(client, 30.0, 30.0))
    await asyncio.sleep(WATCH_CLIENT_AFTER_S * 3)  # past the grace: the client is watched
    waiting.cancel()
    await asyncio.wait({waiting})
    await asyncio.sleep(0)
    assert waiting.cancelled() and (client.reads, client.cancelled_reads) == (1, 1)


async def test_a_cancellation_on_top_of_a_cut_goes_on_up() -> None:
    """The watch cut the wait and the server cancelled the task too: the watch takes back its own only."""
    client = _Client(leaves_after_s=None)

    async def wait() -> None:
        watch = CallWatch(Deadline.after(WATCH_CLIENT_AFTER_S / 4), client.receive)
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().call_later(WATCH_CLIENT_AFTER_S / 4, task.cancel)  # with the deadline's cut
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            if not watch.stop():
                raise
        finally:
            watch.stop()

    waiting = asyncio.ensure_future(wait())
    await asyncio.wait({waiting})
    assert waiting.cancelled()


async def test_a_failed_client_read_counts_as_the_client_gone() -> None:
    async def broken_receive() -> dict[str, Any]:
        raise OSError("connection reset")

    watch = CallWatch(Deadline.after(30.0), broken_receive)
    with pytest.raises(asyncio.CancelledError):
        await asyncio.sleep(30)
    assert watch.stop() and watch.client_gone


# -- StreamDeadline: one timer over a stream's waits for the engine --------------------------------------------------
async def _output(value: int, after_s: float = 0.0) -> int:
    await asyncio.sleep(after_s)
    return value


async def test_a_stream_deadline_passes_waits_through_and_leaves_nothing_armed() -> None:
    deadline = StreamDeadline(Deadline.after(0.2))
    assert [await deadline.wait(_output(i)) for i in range(50)] == list(range(50))
    deadline.close()
    await asyncio.sleep(0.3)  # past the deadline: nothing cancels this task
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]


async def test_a_deadline_passing_during_a_wait_raises_timeout_error() -> None:
    deadline = StreamDeadline(Deadline.after(0.1))
    assert await deadline.wait(_output(1)) == 1
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await deadline.wait(_output(2, after_s=30))
    assert time.monotonic() - started < 5.0
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    deadline.close()


async def test_a_deadline_passed_between_waits_fails_the_next_at_once() -> None:
    deadline = StreamDeadline(Deadline.after(0.05))
    assert await deadline.wait(_output(1)) == 1
    await asyncio.sleep(0.1)  # the stream's consumer busy elsewhere as the deadline passes
    assert deadline.expired and asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
    pending = _output(2)
    with pytest.raises(TimeoutError):
        await deadline.wait(pending)
    assert inspect.getcoroutinestate(pending) == inspect.CORO_CLOSED  # closed, never left un-awaited
    deadline.close()


async def test_another_cancellation_of_a_stream_wait_goes_on_up() -> None:
    deadline = StreamDeadline(Deadline.after(30.0))
    waiting = asyncio.ensure_future(deadline.wait(_output(1, after_s=30)))
    await asyncio.sleep(0.01)
    waiting.cancel()
    await asyncio.wait({waiting})
    assert waiting.cancelled()
    deadline.close()
