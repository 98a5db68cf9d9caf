"""Pure ASGI middleware: request id, timing (``x-warden-overhead-ms``), the request's trace span and log context, and
its access log line; and the request body size limit."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway.core.edge_errors import edge_error_body
from gateway.core.errors import request_too_large
from gateway.core.ids import uuid4_hex
from gateway.telemetry.access_log import access_log_enabled, log_access
from gateway.telemetry.context import request_id_var, tenant_id_var
from gateway.telemetry.tracing import Tracing

REQUEST_ID_HEADER = "x-request-id"
OVERHEAD_HEADER = "x-warden-overhead-ms"
_REQUEST_ID_NAME = REQUEST_ID_HEADER.encode()
_OVERHEAD_NAME = OVERHEAD_HEADER.encode()
_CLIENT_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


@dataclass(slots=True)
class RequestTiming:
    """Per-request clock. ``engine_ns`` accumulates time spent waiting on the engine, so
    overhead = elapsed - engine time, i.e. everything the gateway itself spent."""

    started_ns: int
    engine_ns: int = 0

    def elapsed_ms(self) -> float:
        return (time.perf_counter_ns() - self.started_ns) / 1e6

    def overhead_ms(self) -> float:
        return max(0.0, (time.perf_counter_ns() - self.started_ns - self.engine_ns) / 1e6)

    def elapsed_and_overhead_ms(self) -> tuple[float, float]:
        """Both at one instant (so the overhead is never above the elapsed time)."""
        elapsed_ns = time.perf_counter_ns() - self.started_ns
        return elapsed_ns / 1e6, max(0.0, (elapsed_ns - self.engine_ns) / 1e6)


def request_state(scope: Scope) -> dict[str, Any]:
    return scope.setdefault("state", {})


class RequestContextMiddleware:
    """Assigns the request id (a sane client ``x-request-id`` is kept, otherwise one is generated), starts the
    request clock and stamps both headers on every response. For a stream the overhead header reports the
    gateway time before the first byte (engine time to the first token excluded). It also opens the request's
    root span (when tracing is on), puts the request id in the log context and, with ``access_log``, writes the
    request's access line when it ends (``gateway.telemetry.access_log``)."""

    def __init__(self, app: ASGIApp, tracing: Tracing | None = None, access_log: bool = False) -> None:
        self.app = app
        self.tracing = tracing or Tracing.disabled()
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        timing = RequestTiming(started_ns=time.perf_counter_ns())
        client_id = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"x-request-id"), "")
        request_id = client_id if _CLIENT_REQUEST_ID.match(client_id) else f"req_{uuid4_hex()}"
        state = request_state(scope)
        state["timing"] = timing
        state["request_id"] = request_id
        log_context = (request_id_var.set(request_id), tenant_id_var.set(None))
        span = self.tracing.start_request_span(
            f"{scope['method']} {scope['path']}", scope.get("headers", []),
            {"http.request.method": scope["method"], "url.path": scope["path"], "warden.request_id": request_id},
        ) if self.tracing.enabled else None
        status: int | None = None

        async def send_with_headers(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [
                    *message.get("headers", ()), (_REQUEST_ID_NAME, request_id.encode()),
                    (_OVERHEAD_NAME, f"{timing.overhead_ms():.3f}".encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            if self.access_log and access_log_enabled():  # in the request's log context: its ids are on the line
                log_access(scope["method"], scope["path"], status, *timing.elapsed_and_overhead_ms())
            if span is not None:
                self.tracing.end_request_span(span, status)
            request_id_var.reset(log_context[0])
            tenant_id_var.reset(log_context[1])


RejectHook = Callable[[Scope], Awaitable[None]]


class BodySizeLimitMiddleware:
    """Refuses bodies over ``max_bytes`` with 413 before any parsing. The body is buffered here (it is bounded)
    and replayed to the app; after it, ``receive`` passes through so the app still sees ``http.disconnect``."""

    def __init__(self, app: ASGIApp, max_bytes: int, on_reject: RejectHook | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.on_reject = on_reject

    async def _reject(self, scope: Scope, send: Send) -> None:
        if self.on_reject is not None:
            await self.on_reject(scope)
        body = edge_error_body(scope, request_too_large(self.max_bytes))
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        declared = next((v for k, v in scope.get("headers", []) if k == b"content-length"), None)
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._reject(scope, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._reject(scope, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replaying(b"".join(chunks), receive), send)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app an already-read ``body`` in one message, then passes through (so the app
    still sees ``http.disconnect``)."""
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
