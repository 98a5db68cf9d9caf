"""The async client of an ``EngineCore`` (``engine.protocol.EngineClient``).

One reader thread receives the core's messages and hands each delta to the asyncio queue of its request.
When the core goes away — its process dies, its thread exits, the pipe breaks — every waiting ``generate``
gets ``EngineDeadError`` at once, and so does every later call.

For supervisors (``gateway.replicas.watchdog``): ``has_work`` says whether the core owes this client outputs (requests
sent whose last delta has not arrived; a delta waiting in this process for a slow reader is not the core's work), and
``heartbeat`` is the core's loop counter (``engine.heartbeat``), read from shared memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from multiprocessing.connection import Connection, wait
from typing import TYPE_CHECKING, Any

from engine.errors import EngineDeadError, InvalidRequestError
from engine.heartbeat import Heartbeat
from engine.metrics import EngineStats
from engine.outputs import RequestOutput
from engine.request import EngineRequest
from engine.tokenizer import Tokenizer
from engine.validation import validate_request

if TYPE_CHECKING:
    # Not imported at run time: engine.core loads the engine (torch) and a client, in the gateway, needs none of it.
    # A rejection's ErrorInfo is unpickled by its class's own module.
    from engine.core import ErrorInfo


class AsyncEngineClient:
    def __init__(
        self,
        *,
        inbox: Connection,  # we send requests here
        outbox: Connection,  # the core's messages arrive here
        tokenizer: Tokenizer,
        info: dict[str, Any],
        is_core_alive: Callable[[], bool],
        stop_core: Callable[[float], None],
        sentinel: Any = None,  # a process sentinel to wake the reader when the process dies
        core_pid: int | None = None,  # the engine process (None when the core runs in a thread)
        heartbeat: Heartbeat | None = None,  # the core's loop counter, when it keeps one
    ) -> None:
        self.core_pid = core_pid
        self.heartbeat = heartbeat
        self.model_name: str = info["model_name"]
        self.max_model_len: int = info["max_model_len"]
        self.vocab_size: int = info["vocab_size"]
        self.tokenizer = tokenizer
        self._inbox = inbox
        self._outbox = outbox
        self._is_core_alive = is_core_alive
        self._stop_core = stop_core
        self._sentinel = sentinel
        self._queues: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Queue]] = {}
        self._send_lock = threading.Lock()
        self._dead_reason: str | None = None
        self._owed: set[str] = set()  # requests the core still owes a last delta (set ops are atomic under the GIL)
        self._stats: EngineStats | None = None  # the core's latest snapshot (engine.metrics.EngineStatsSource)
        self._closing = False
        self._reader = threading.Thread(target=self._read_loop, name="engine-client-reader", daemon=True)
        self._reader.start()

    # --- EngineClient -----------------------------------------------------------------------------
    def is_alive(self) -> bool:
        return self._dead_reason is None and self._is_core_alive()

    def stats(self) -> EngineStats | None:
        return self._stats

    def has_work(self) -> bool:
        return bool(self._owed)

    async def generate(self, request: EngineRequest) -> AsyncIterator[RequestOutput]:
        validate_request(request, max_model_len=self.max_model_len, vocab_size=self.vocab_size)
        self._raise_if_dead()
        rid = request.request_id
        if rid in self._queues:
            raise InvalidRequestError(f"request id {rid!r} is already running", param="request_id")
        queue: asyncio.Queue = asyncio.Queue()
        self._queues[rid] = (asyncio.get_running_loop(), queue)
        finished = False
        try:
            self._owed.add(rid)  # before sending: the reader may see the last delta before we run again
            self._send(("add", request))
            while True:
                item = await queue.get()
                if isinstance(item, Exception):
                    finished = True
                    raise item
                finished = item.finished
                yield item
                if finished:
                    return
        finally:
            self._queues.pop(rid, None)
            self._owed.discard(rid)
            if not finished and self._dead_reason is None:
                # the caller stopped listening (disconnect, cancellation): free the request's blocks
                with contextlib.suppress(EngineDeadError):
                    self._send(("abort", rid))

    async def abort(self, request_id: str) -> None:
        self._owed.discard(request_id)  # an aborted request is no longer work the caller waits for
        if self._dead_reason is None:
            with contextlib.suppress(EngineDeadError):
                self._send(("abort", request_id))

    async def shutdown(self) -> None:
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(EngineDeadError):
            self._send(("shutdown",))
        await asyncio.get_running_loop().run_in_executor(None, self._stop_core, 10.0)
        self._mark_dead("the engine was shut down")
        with contextlib.suppress(OSError):
            self._inbox.close()

    # --- plumbing ---------------------------------------------------------------------------------
    def _raise_if_dead(self) -> None:
        if self._dead_reason is not None:
            raise EngineDeadError(self._dead_reason)
        if not self._is_core_alive():
            self._mark_dead("the engine process is not running")
            raise EngineDeadError(self._dead_reason or "engine dead")

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            with self._send_lock:
                self._inbox.send(message)
        except (OSError, EOFError, ValueError) as exc:  # BrokenPipeError is an OSError; closed handle: ValueError
            self._mark_dead(f"the engine is unreachable: {exc}")
            raise EngineDeadError(self._dead_reason or "engine dead") from exc

    def _deliver(self, request_id: str, item: RequestOutput | Exception) -> None:
        entry = self._queues.get(request_id)
        if entry is None:
            return
        loop, queue = entry
        with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody is listening
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def _mark_dead(self, reason: str) -> None:
        if self._dead_reason is None:
            self._dead_reason = reason
        self._owed.clear()
        for rid in list(self._queues):
            self._deliver(rid, EngineDeadError(self._dead_reason))

    def _read_loop(self) -> None:
        waitables = [self._outbox] + ([self._sentinel] if self._sentinel is not None else [])
        while True:
            try:
                ready = wait(waitables)
                # the process exited: drain anything it sent first, then stop
                if self._outbox not in ready and not self._outbox.poll(0):
                    break
                message = self._outbox.recv()
            except (EOFError, OSError, TypeError, ValueError):
                # Gone: the peer closed it (EOF, a reset), or this process closed it under a blocked wait or
                # recv (shutdown() from the event loop's thread), which fails with TypeError or ValueError on the
                # handle it no longer has. Either way the end, never a dead reader that leaves streams waiting.
                break
            if message[0] == "outputs":
                for out in message[1]:
                    if out.finished:
                        self._owed.discard(out.request_id)
                    self._deliver(out.request_id, out)
            elif message[0] == "stats":
                self._stats = message[1]
            elif message[0] == "rejected":
                info: ErrorInfo = message[2]
                self._owed.discard(message[1])
                self._deliver(message[1], info.to_exception())
        reason = "the engine was shut down" if self._closing else "the engine process died"
        self._mark_dead(reason)
