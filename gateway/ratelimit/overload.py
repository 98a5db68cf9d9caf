"""Global admission control for one gateway worker: a bound on requests in flight, a bounded FIFO wait queue, an
optional bound on the engine's own waiting queue, and the per-request deadline.

Rate limits (the rest of this package) share a tenant's allowance fairly; this module protects the process
itself. A request that finds every slot taken waits in line for at most ``queue_timeout_s``; a full line, a wait
that times out, or an engine whose waiting queue is already past its bound is answered at once with a 503 in
OpenAI's error shape (type ``service_unavailable_error``, code ``overloaded``) and ``Retry-After``, so a
saturated gateway sheds load in microseconds instead of letting every request slow down together.

The bounds on requests in flight and in line are per worker process: with ``--workers N`` the host admits N times
``max_inflight_requests``. The bound on the engine's queue is the engine's, and every worker enforces it: each reads
the engine's waiting count live (``engine.metrics.EngineWaitingSource``; an engine host publishes it to all its
callers beside its heartbeat), never from the stats snapshots, which an engine host sends to one worker only.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from engine.metrics import EngineWaitingSource
from engine.protocol import EngineClient
from gateway.core.errors import APIError
from gateway.core.protocols import ClassCheck
from gateway.core.settings import Settings

reads_waiting = ClassCheck[EngineWaitingSource](EngineWaitingSource)

OverloadReason = Literal["queue_full", "queue_timeout", "engine_queue_full"]
# Overload clears as soon as any request ends; a short, fixed hint lets clients (the OpenAI SDKs honour
# Retry-After) come back quickly, and their own backoff spreads them out.
OVERLOAD_RETRY_AFTER_S = 1


class Overloaded(Exception):
    """The gateway refuses the request to protect itself; the HTTP edge answers 503 with Retry-After."""

    def __init__(self, reason: OverloadReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.retry_after_s = OVERLOAD_RETRY_AFTER_S


class GateSlot:
    """One request's place among those in flight. ``release`` is idempotent: whichever of the request's exits
    runs first (response sent, stream ended, error) gives the place to the next in line."""

    __slots__ = ("_gate", "_released")

    def __init__(self, gate: AdmissionGate) -> None:
        self._gate = gate
        self._released = False

    def release(self) -> None:
        if not self._released:
            self._released = True
            self._gate._hand_on()


class _Waiter(asyncio.Future[None]):
    """One request's wait in line. Its cancellation (the waiting task cancelled, or its queue timeout) leaves the
    line's live count at once, as the cancel happens: a task's cancel cancels the future it awaits synchronously,
    while the task itself (and its cleanup) runs only later, and arrivals in between must see the line as it is."""

    __slots__ = ("_gate",)

    def __init__(self, gate: AdmissionGate, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._gate = gate

    def cancel(self, msg: Any | None = None) -> bool:
        if not super().cancel(msg):
            return False
        self._gate._queued -= 1
        return True


class AdmissionGate:
    """At most ``max_inflight`` requests hold a slot; up to ``max_queued`` more wait, first come first served.

    ``queued`` is read on every arrival, so it is a count kept as waiters come and go, not a walk over the line:
    under overload the line is long and arrivals are many. It counts the waiters in line not yet done; one handed
    a slot leaves the count as it is handed (``_hand_on``), one cancelled as it is cancelled (``_Waiter.cancel``).
    """

    def __init__(self, max_inflight: int, max_queued: int, queue_timeout_s: float, *,
                 max_engine_waiting: int | None = None,
                 engine_waiting: Callable[[], int | None] | None = None) -> None:
        if max_inflight < 1:
            raise ValueError(f"max_inflight must be >= 1, got {max_inflight}")
        if max_queued < 0:
            raise ValueError(f"max_queued must be >= 0, got {max_queued}")
        if queue_timeout_s < 0:
            raise ValueError(f"queue_timeout_s must be >= 0, got {queue_timeout_s}")
        self.max_inflight = max_inflight
        self.max_queued = max_queued
        self.queue_timeout_s = queue_timeout_s
        self.max_engine_waiting = max_engine_waiting
        self._engine_waiting = engine_waiting  # the engine's waiting-queue length, None if unknown
        self._in_flight = 0
        self._waiters: deque[_Waiter] = deque()  # may still hold cancelled waiters until they leave
        self._queued = 0  # waiters in ``_waiters`` neither handed a slot nor cancelled

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def queued(self) -> int:
        return self._queued

    def try_acquire(self) -> GateSlot | None:
        """A slot if one is free and nobody is waiting for one, else None (never waits); raises Overloaded when
        the engine's waiting queue is past its bound."""
        self._check_engine_queue()
        if self._in_flight < self.max_inflight and not self._queued:
            self._in_flight += 1
            return GateSlot(self)
        return None

    async def acquire(self) -> GateSlot:
        """A slot now, or after waiting in line; raises Overloaded when the line is full or the wait times out."""
        slot = self.try_acquire()
        if slot is not None:
            return slot
        if self._queued >= self.max_queued:
            raise Overloaded("queue_full", f"The server is overloaded: {self._in_flight} requests in flight and "
                             f"{self._queued} waiting. Retry after {OVERLOAD_RETRY_AFTER_S}s.")
        waiter = _Waiter(self, asyncio.get_running_loop())
        self._waiters.append(waiter)
        self._queued += 1
        try:
            async with asyncio.timeout(self.queue_timeout_s):
                await waiter
        except BaseException as exc:
            if waiter.done() and not waiter.cancelled():
                self._hand_on()  # a slot was handed over just as the wait ended: pass it on, unused
            else:
                waiter.cancel()
                self._drop(waiter)
            if isinstance(exc, TimeoutError):
                raise Overloaded("queue_timeout", f"The server is overloaded: no capacity freed within "
                                 f"{self.queue_timeout_s:g}s. Retry after {OVERLOAD_RETRY_AFTER_S}s.") from None
            raise
        return GateSlot(self)

    def _check_engine_queue(self) -> None:
        if self.max_engine_waiting is None or self._engine_waiting is None:
            return
        waiting = self._engine_waiting()
        if waiting is not None and waiting >= self.max_engine_waiting:
            raise Overloaded("engine_queue_full", f"The server is overloaded: the engine has {waiting} requests "
                             f"waiting. Retry after {OVERLOAD_RETRY_AFTER_S}s.")

    def _hand_on(self) -> None:
        """A slot came free: give it to the longest waiter still waiting, else count it free."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot moves to the waiter; in_flight is unchanged
                self._queued -= 1
                return
        self._in_flight -= 1

    def _drop(self, waiter: _Waiter) -> None:
        with contextlib.suppress(ValueError):  # already handed a slot and popped
            self._waiters.remove(waiter)


@dataclass(frozen=True, slots=True)
class Deadline:
    """A request's deadline on the monotonic clock, counted from its arrival."""

    expires_at: float
    timeout_s: float

    @classmethod
    def after(cls, timeout_s: float, *, started_ns: int | None = None) -> Deadline:
        """``started_ns``: the request's arrival on ``time.perf_counter_ns`` (the middleware's clock)."""
        elapsed = 0.0 if started_ns is None else max(time.perf_counter_ns() - started_ns, 0) / 1e9
        return cls(expires_at=time.monotonic() + timeout_s - elapsed, timeout_s=timeout_s)

    def remaining(self) -> float:
        return max(self.expires_at - time.monotonic(), 0.0)

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.expires_at


def build_gate(settings: Settings, engine: Callable[[], EngineClient | None]) -> AdmissionGate:
    """This worker's gate from the settings; ``engine`` yields the engine served now (None until it has started)."""

    def engine_waiting() -> int | None:
        client = engine()
        return client.waiting_requests() if reads_waiting(client) else None

    return AdmissionGate(settings.max_inflight_requests, settings.max_queued_requests, settings.queue_timeout_s,
                         max_engine_waiting=settings.max_engine_waiting_requests, engine_waiting=engine_waiting)


def overloaded_error(exc: Overloaded) -> APIError:
    """The 503 for a request the gate refused: OpenAI's error shape, code ``overloaded``, with Retry-After."""
    return APIError(503, str(exc), type="service_unavailable_error", code="overloaded",
                    headers={"retry-after": str(exc.retry_after_s)},
                    decision={"stage": "admission", "decision": "refused", "reason": exc.reason})


DEADLINE_ERROR_TYPE = "timeout_error"


def deadline_error(deadline: Deadline) -> APIError:
    """The 504 for a request past its deadline (its engine work is aborted); the audit decision says so."""
    return APIError(504, f"The request did not complete within its deadline of {deadline.timeout_s:g}s",
                    type=DEADLINE_ERROR_TYPE, code="request_timeout",
                    decision={"stage": "deadline", "decision": "timeout", "timeout_s": deadline.timeout_s})
