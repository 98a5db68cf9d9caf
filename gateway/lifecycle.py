"""Readiness and graceful shutdown: ``/readyz``, the drain on SIGTERM, and the cut of calls still open at its end.

``/readyz`` (unauthenticated; it says ready or not and why, in one word, and nothing about tenants) is what a load
balancer or Kubernetes routes by. It is ``not_ready`` while the engine is down or restarting (``engine``), while the
database's schema is older than the code's newest migration (``schema``: a server that does not migrate itself waits
for the migration Job), and from the moment a SIGTERM arrives (``draining``); ``/healthz`` stays the liveness check.

On SIGTERM (or the first Ctrl-C) the gateway:

1. turns not ready and answers every new /v1 call (and /mcp request) 503 + ``Retry-After`` (audited, like every
   refusal), while it still accepts connections for ``shutdown_unready_s`` so that whoever routes to it notices;
2. then hands the signal to the server (uvicorn), which stops accepting connections and waits for the calls in
   flight, streams included, to finish;
3. at ``shutdown_grace_s`` after the signal, cuts the calls still open: each one's audit record says ``shutdown``
   (not ``client_closed``), a stream gets a last SSE error event and a clean end, a call with no response yet a 503.

A second signal is passed straight to the server (a second Ctrl-C quits at once, as uvicorn does).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
import threading
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.protocol import EngineClient
from gateway.audit.event import AuditEvent
from gateway.core.clock import utcnow
from gateway.core.middleware import RequestTiming
from gateway.core.migrate import SchemaRevisionCheck

log = logging.getLogger(__name__)
SHUTDOWN_RETRY_AFTER_S = 1  # another instance can take the call at once
SHUTDOWN_CODE = "shutdown"  # the error code (and audited error type) of calls refused or cut by a shutdown
_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def shutdown_error_body() -> dict[str, Any]:
    return {"error": {"message": "The server is shutting down; retry the request", "type": "service_unavailable_error",
                      "param": None, "code": SHUTDOWN_CODE}}


class Lifecycle:
    def __init__(self, *, grace_s: float, unready_s: float) -> None:
        self.grace_s = grace_s
        self.unready_s = min(unready_s, grace_s)
        self.draining = False  # a shutdown began: not ready, new calls refused
        self.cutting = False  # the grace period is over: calls still open are being cut
        self._calls: set[asyncio.Future[Any]] = set()
        self._cut_calls: set[asyncio.Future[Any]] = set()  # the calls cut() cancelled (not the server, nor a client)
        self._timers: list[asyncio.TimerHandle] = []
        self._signals = 0
        self._on_drain: list[Callable[[], None]] = []

    # --- readiness -------------------------------------------------------------------------------------------------
    def readiness(self, engine: EngineClient | None) -> tuple[bool, str]:
        if self.draining:
            return False, "draining"
        if engine is None or not engine.is_alive():
            return False, "engine"
        return True, "ready"

    @property
    def open_calls(self) -> int:
        return len(self._calls)

    # --- shutdown --------------------------------------------------------------------------------------------------
    def on_drain(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (in the event loop) when the drain begins: parts that stop in their own way then (the
        engine pool stops keeping a standby engine)."""
        self._on_drain.append(callback)

    def begin_drain(self) -> None:
        """Turn not ready and refuse new calls from now on; cut the calls still open after ``grace_s``."""
        if self.draining:
            return
        self.draining = True
        for callback in self._on_drain:
            try:
                callback()
            except Exception:
                log.exception("a shutdown step failed at the start of the drain")
        log.warning("shutting down: not ready; %d call(s) in flight get up to %.0f s to finish", len(self._calls),
                    self.grace_s)
        self._timers.append(asyncio.get_running_loop().call_later(self.grace_s, self.cut))

    def cut(self) -> None:
        """End every call still open; each is audited as ``shutdown``."""
        self.cutting = True
        if self._calls:
            log.warning("shutdown grace period over: cutting %d call(s) still open", len(self._calls))
        for task in list(self._calls):
            self._cut_calls.add(task)
            task.cancel()

    def install_signal_handlers(self) -> None:
        """Put the drain in front of the server's own SIGTERM/SIGINT handlers (uvicorn installs them before the
        app starts). Only in the main thread, and only over a handler that is a function: without a server
        that handles signals (an embedded or test server) there is nothing to chain to."""
        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for sig in _SIGNALS:
            previous = signal.getsignal(sig)
            if callable(previous):
                signal.signal(sig, functools.partial(self._on_signal, loop, previous))

    def _on_signal(self, loop: asyncio.AbstractEventLoop, server_handler: Callable[[int, Any], Any], signum: int,
                   frame: Any) -> None:
        # Python runs signal handlers in the main thread between two bytecodes, possibly inside the event loop's own
        # code: only the thread-safe scheduling call is made from here.
        self._signals += 1
        if self._signals > 1:
            server_handler(signum, frame)  # a second signal: the server's own handling, at once
            return
        loop.call_soon_threadsafe(self._drain_then_stop, server_handler, signum, frame)

    def _drain_then_stop(self, server_handler: Callable[[int, Any], Any], signum: int, frame: Any) -> None:
        self.begin_drain()
        delay = self.unready_s if signum == signal.SIGTERM else 0.0  # Ctrl-C is a person, not a load balancer
        self._timers.append(asyncio.get_running_loop().call_later(delay, server_handler, signum, frame))

    def close(self) -> None:
        """At the app's shutdown: stop the timers and cut whatever is still open."""
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()
        if self._calls:
            self.cut()

    # --- the calls in flight (/v1 calls, /mcp tool calls) ------------------------------------------------------------
    def track(self, task: asyncio.Future[Any]) -> None:
        """Track a task of its own for the whole of its life (an MCP tool call's work)."""
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    def enter(self, task: asyncio.Task[Any]) -> None:
        """Track the task running a call from now until ``leave`` (the task itself lives on: it is the server's)."""
        self._calls.add(task)

    def leave(self, task: asyncio.Task[Any]) -> bool:
        """Stop tracking ``task``; True when ``cut`` cancelled it meanwhile."""
        self._calls.discard(task)
        if task in self._cut_calls:
            self._cut_calls.discard(task)
            return True
        return False


class DrainMiddleware:
    """Refuses /v1 calls while draining; lets the lifecycle cut each admitted one, and ends a cut one's response
    properly (its handler has audited it as ``shutdown`` by then).

    A call runs in the server's own task, which the lifecycle tracks while the call is inside the app: a task and a
    shield of its own per call would cost the event loop more than the rest of this middleware. A cut is the
    lifecycle's ``cancel()`` of that task; it is told from any other cancellation (the server's) by the lifecycle's
    record of what it cut and by the task's count of pending cancellations, and taken back (``uncancel``) once
    handled, so the server's task carries on as if it had never been cancelled."""

    def __init__(self, app: ASGIApp, lifecycle: Lifecycle) -> None:
        self.app = app
        self.lifecycle = lifecycle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").startswith("/v1/"):
            await self.app(scope, receive, send)
            return
        if self.lifecycle.draining:
            await audit_refusal(scope)
            await send_shutdown_error(send)
            return
        started: list[Message] = []  # the response's start message, once sent

        async def tracked_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.append(message)
            await send(message)

        task = asyncio.current_task()
        assert task is not None  # an ASGI app always runs in a task
        self.lifecycle.enter(task)
        try:
            await self.app(scope, receive, tracked_send)
        except asyncio.CancelledError:
            # Only the cut's own cancellation is answered here; the server's (alone or on top of a cut) goes on up.
            if not self._left_cut(task) or task.cancelling():
                raise
            await _end_cut_response(send, started)
        except BaseException:
            self._left_cut(task)
            raise
        else:
            self._left_cut(task)  # a cut call that finished all the same

    def _left_cut(self, task: asyncio.Task[Any]) -> bool:
        """Stop tracking the call's task; when it was cut, take the cut's cancellation back and say so."""
        if not self.lifecycle.leave(task):
            return False
        task.uncancel()
        return True


async def _end_cut_response(send: Send, started: list[Message]) -> None:
    """What a client of a call cut by the shutdown receives: a 503 if nothing was sent yet; for a stream, an error
    event in OpenAI's shape and the end of the body (no ``[DONE]``, so it cannot be taken for complete)."""
    with contextlib.suppress(OSError):
        if not started:
            await send_shutdown_error(send)
            return
        headers = dict(started[0].get("headers", []))
        if headers.get(b"content-type", b"").startswith(b"text/event-stream"):
            await send({"type": "http.response.body", "body": b"data: " + orjson.dumps(shutdown_error_body())
                        + b"\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def send_shutdown_error(send: Send) -> None:
    body = orjson.dumps(shutdown_error_body())
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(SHUTDOWN_RETRY_AFTER_S).encode()), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def audit_refusal(scope: Scope) -> None:
    """A call refused because the server is shutting down is audited like every refusal (no tenant is known yet)."""
    app = scope.get("app")
    services = getattr(getattr(app, "state", None), "services", None)
    state = scope.get("state", {})
    timing: RequestTiming | None = state.get("timing")
    if services is None or timing is None:
        return
    endpoint = scope["path"].removeprefix("/v1/").lstrip("/")  # /mcp's refusals too
    telemetry = getattr(getattr(app, "state", None), "telemetry", None)
    if telemetry is not None:
        telemetry.refused_at_edge(endpoint, "shutdown", 503)
    await services.audit.record(AuditEvent(
        created_at=utcnow(), request_id=state["request_id"], endpoint=endpoint, http_status=503,
        latency_ms=round(timing.elapsed_ms(), 3), overhead_ms=round(timing.overhead_ms(), 3),
        error_type=SHUTDOWN_CODE, decisions=[{"stage": "lifecycle", "decision": "refused", "reason": "draining"}]))


router = APIRouter()


@router.get("/readyz", include_in_schema=False)
async def readyz(request: Request) -> JSONResponse:
    """Ready to take traffic, or not and why in one word; never anything about tenants."""
    lifecycle: Lifecycle | None = getattr(request.app.state, "lifecycle", None)
    services = getattr(request.app.state, "services", None)
    if lifecycle is None or services is None:
        return JSONResponse({"status": "not_ready", "reason": "starting"}, status_code=503)
    ready, reason = lifecycle.readiness(services.engine)
    schema: SchemaRevisionCheck | None = getattr(request.app.state, "schema", None)
    if ready and schema is not None and not await schema.is_current():
        ready, reason = False, "schema"
    # Quarantined audit lines do not make a gateway unready (it keeps recording), but an operator must see them.
    return JSONResponse({"status": "ready" if ready else "not_ready", "reason": reason,
                         "audit_quarantined": services.audit.quarantined},
                        status_code=200 if ready else 503)
