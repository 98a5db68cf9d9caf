"""DrainMiddleware in the server's own task: a cut call ends with a 503 (or a closed stream) and leaves the task as
if never cancelled; the server's own cancellation, alone or on top of a cut, still propagates."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from starlette.types import Message

from gateway.lifecycle import DrainMiddleware, Lifecycle

SCOPE = {"type": "http", "path": "/v1/chat/completions"}


async def _receive() -> dict[str, Any]:
    return {"type": "http.request", "body": b"", "more_body": False}


class _Call:
    """An inner app that blocks until cancelled, optionally after starting a stream."""

    def __init__(self, *, stream: bool) -> None:
        self.stream = stream
        self.entered = asyncio.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.stream:
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/event-stream")]})
        self.entered.set()
        await asyncio.Event().wait()


async def _serve(lifecycle: Lifecycle, call: _Call) -> tuple[asyncio.Task[int], list[Message]]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def server_task() -> int:
        await DrainMiddleware(call, lifecycle)(SCOPE, _receive, send)
        await asyncio.sleep(0)  # the server's own work after the call: must not see a stale cancellation
        return asyncio.current_task().cancelling()  # type: ignore[union-attr]

    task = asyncio.ensure_future(server_task())
    await call.entered.wait()
    return task, sent


@pytest.mark.parametrize("stream", [False, True])
async def test_cut_call_ends_properly_and_the_task_carries_on(stream: bool) -> None:
    lifecycle = Lifecycle(grace_s=1, unready_s=0)
    task, sent = await _serve(lifecycle, _Call(stream=stream))
    assert lifecycle.open_calls == 1
    lifecycle.cut()
    assert await task == 0  # finished normally, no cancellation left pending
    assert lifecycle.open_calls == 0
    if stream:
        assert [m["type"] for m in sent] == ["http.response.start", "http.response.body", "http.response.body"]
        assert orjson.loads(sent[1]["body"].removeprefix(b"data: "))["error"]["code"] == "shutdown"
        assert sent[2] == {"type": "http.response.body", "body": b"", "more_body": False}
    else:
        assert sent[0]["status"] == 503
        assert orjson.loads(sent[1]["body"])["error"]["code"] == "shutdown"


async def test_server_cancellation_propagates() -> None:
    lifecycle = Lifecycle(grace_s=1, unready_s=0)
    task, sent = await _serve(lifecycle, _Call(stream=False))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sent == [] and lifecycle.open_calls == 0


async def test_server_cancellation_on_top_of_a_cut_propagates() -> None:
    lifecycle = Lifecycle(grace_s=1, unready_s=0)
    task, sent = await _serve(lifecycle, _Call(stream=False))
    lifecycle.cut()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sent == [] and lifecycle.open_calls == 0
