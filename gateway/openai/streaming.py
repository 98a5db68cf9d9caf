"""Server-sent events with disconnect handling that always runs the stream's cleanup.

Starlette's StreamingResponse leaves an abandoned generator to the garbage collector when the client goes away;
here the generator is always ``aclose``d (shielded), so its ``finally`` aborts the engine requests and writes the
audit record at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Mapping
from typing import Any

import orjson
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from gateway.openai.engine_call import run_shielded


def sse_event(payload: dict[str, Any]) -> bytes:
    return b"data: " + orjson.dumps(payload) + b"\n\n"


SSE_DONE = b"data: [DONE]\n\n"


async def wait_for_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


class SSEResponse(Response):
    media_type = "text/event-stream"

    def __init__(self, events: AsyncGenerator[bytes, None], headers: Mapping[str, str] | None = None) -> None:
        super().__init__(content=None, status_code=200, headers=dict(headers or {}))
        # A stream has no length; Response.__init__ declared one for its empty body.
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        self.raw_headers.extend([(b"cache-control", b"no-cache"), (b"x-accel-buffering", b"no")])
        self._events = events

    async def _send_all(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        async for chunk in self._events:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        sender = asyncio.ensure_future(self._send_all(send))
        watcher = asyncio.ensure_future(wait_for_disconnect(receive))
        try:
            await asyncio.wait({sender, watcher}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            watcher.cancel()
            if not sender.done():
                sender.cancel()  # the client left: stop generating
            try:
                await sender
            except (asyncio.CancelledError, OSError):
                pass  # OSError: the connection broke while sending
            finally:
                await run_shielded(self._events.aclose())
