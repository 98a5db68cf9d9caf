"""The async client of an ``EngineCore`` (``engine.protocol.EngineClient``).

The core's messages are read on an event loop (``loop.add_reader`` on the connection, ``engine.core.frame_reader``): a
delta reaches its request's queue in the callback that reads it, with no reader thread, so no hand-over of the GIL
and no cross-thread wake-up of the loop per message (less CPU per delta, and no wait for the GIL at the tail). The
price on a busy loop: a delta read there queues behind the callbacks already due in that turn of the loop, where a
reader thread's hand-over could land ahead of them (``bench.overhead_client`` measures both).

The loop that reads is the one running where the client was made or, once that loop has stopped or closed, the first
other one that uses it; a caller outside any loop while no loop reads (``stats`` from a plain thread) reads what has
arrived itself. A request on a loop other than the reading one gets its deltas through ``call_soon_threadsafe``.
Reading is eager, as the core sends; while the reading loop is busy, the core's messages wait in the pipe or socket
(a pipe is enlarged to 1 MiB, where the system allows, for that).

Sending never blocks and never fails on a full pipe or socket (``engine.core.frame_writer``): what the core has no
room for yet is written by the reading loop as the core reads. A blocking send would stall the loop, and deadlock it
with a core blocked sending to that loop; a failing one would take a busy core for a dead one.

Liveness: the core is dead only when it has gone away: its process ended (the sentinel, or ``is_core_alive``), its
end of the connection closed (end of stream, a broken pipe, a reset), or its stream is corrupt. Then every waiting
``generate`` gets ``EngineDeadError`` at once, and so does every later call. Nothing else marks it dead: not a slow
answer, not a full pipe, not a loop too busy to read for a while. A core that is alive but makes no progress is
the supervisor's to judge (``gateway.replicas.watchdog``, by its heartbeat), which kills it: then it has ended.

For supervisors (``gateway.replicas.watchdog``): ``has_work`` says whether the core owes this client outputs (requests
sent whose last delta has not arrived; a delta waiting in this process for a slow reader is not the core's work), and
``heartbeat`` is the core's loop counter (``engine.core.heartbeat``), read from shared memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable
from multiprocessing.connection import Connection
from typing import Any

from engine.core.error_info import ErrorInfo
from engine.core.frame_reader import FrameReader
from engine.core.frame_writer import FrameWriter
from engine.core.heartbeat import Heartbeat
from engine.errors import EngineDeadError, InvalidRequestError
from engine.metrics import EngineStats
from engine.outputs import RequestOutput
from engine.request import EngineRequest
from engine.tokenization.tokenizer import Tokenizer
from engine.validation import validate_request

log = logging.getLogger(__name__)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class _Outputs:
    """One request's deltas and errors, in arrival order, for its one reader (``generate``), on the reader's loop.
    What an ``asyncio.Queue`` would do here at a fraction of its cost (no Event, no per-get future while items wait,
    no task accounting): one future at a time, created only when the reader has to wait."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: deque[RequestOutput | Exception] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: RequestOutput | Exception) -> None:
        """From the reader's loop only (another thread goes through ``call_soon_threadsafe``)."""
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():  # (cancelled: its reader is going away)
                waiter.set_result(None)

    async def get(self) -> RequestOutput | Exception:
        items = self._items
        while not items:
            waiter = self._waiter = self._loop.create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return items.popleft()


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
        sentinel: int | None = None,  # a process sentinel: readable once the process has exited
        core_pid: int | None = None,  # the engine process (None when the core runs in a thread)
        heartbeat: Heartbeat | None = None,  # the core's loop counter, when it keeps one
    ) -> None:
        self.core_pid = core_pid
        self.heartbeat = heartbeat
        self.model_name: str = info["model_name"]
        self.max_model_len: int = info["max_model_len"]
        self.vocab_size: int = info["vocab_size"]
        # The KV block size the engine settled on (a replica pool's route keys span it); None from an engine host of
        # an older release, whose greeting lacks it.
        self.block_size: int | None = info.get("block_size")
        self.tokenizer = tokenizer
        self._inbox = inbox
        self._frames = FrameReader(outbox)
        self._writer = FrameWriter(inbox)  # our sends from now on: never blocking, a full pipe is only backpressure
        self._is_core_alive = is_core_alive
        self._stop_core = stop_core
        self._sentinel = sentinel
        self._queues: dict[str, tuple[asyncio.AbstractEventLoop, _Outputs]] = {}
        self._read_lock = threading.Lock()  # one reader at a time: the reading loop, or a caller outside any loop
        self._home: asyncio.AbstractEventLoop | None = None  # the loop whose reader reads the core's messages
        self._dead_reason: str | None = None
        self._owed: set[str] = set()  # requests the core still owes a last delta (set ops are atomic under the GIL)
        self._stats: EngineStats | None = None  # the core's latest snapshot (engine.metrics.EngineStatsSource)
        self._closing = False
        self._watch()

    # --- EngineClient -----------------------------------------------------------------------------
    def is_alive(self) -> bool:
        self._watch()
        return self._dead_reason is None and self._is_core_alive()

    @property
    def dead_reason(self) -> str | None:
        """Why the engine is taken for dead (None while it is not): what a supervisor logs."""
        return self._dead_reason

    def stats(self) -> EngineStats | None:
        self._watch()
        return self._stats

    def waiting_requests(self) -> int | None:
        """The engine's waiting-queue length (``engine.metrics.EngineWaitingSource``): live from its heartbeat, which
        every caller of an engine host reads, else from the last snapshot (sent to a host's reporter only)."""
        if self._dead_reason is not None:
            return None
        if self.heartbeat is not None:
            return self.heartbeat.waiting
        return None if self._stats is None else self._stats.num_requests_waiting

    def has_work(self) -> bool:
        self._watch()
        return bool(self._owed)

    async def generate(self, request: EngineRequest) -> AsyncIterator[RequestOutput]:
        validate_request(request, max_model_len=self.max_model_len, vocab_size=self.vocab_size)
        self._watch()
        self._raise_if_dead()
        rid = request.request_id
        if rid in self._queues:
            raise InvalidRequestError(f"request id {rid!r} is already running", param="request_id")
        loop = asyncio.get_running_loop()
        queue = _Outputs(loop)
        self._queues[rid] = (loop, queue)
        finished = False
        try:
            self._owed.add(rid)  # before sending: a reader elsewhere may see the last delta before we run again
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
            self._watch()
            with contextlib.suppress(EngineDeadError):
                self._send(("abort", request_id))

    async def shutdown(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._watch()  # the core's last messages and its end are read (and our last bytes sent) while it stops
        with contextlib.suppress(EngineDeadError):
            self._send(("shutdown",))
        await asyncio.get_running_loop().run_in_executor(None, self._stop_core, 10.0)
        self._mark_dead("the engine was shut down")
        self._stop_reading()
        with contextlib.suppress(OSError):
            self._inbox.close()

    # --- sending ----------------------------------------------------------------------------------
    def _raise_if_dead(self) -> None:
        if self._dead_reason is not None:
            raise EngineDeadError(self._dead_reason)
        if not self._is_core_alive():
            self._mark_dead("the engine process is not running")
            raise EngineDeadError(self._dead_reason or "engine dead")

    def _send(self, message: tuple[Any, ...]) -> None:
        """Send ``message`` as far as the engine has room now; the rest is written by the reading loop as the engine
        reads (``_flush``). Only a broken connection (the engine's end closed) is the engine's death."""
        try:
            written = self._writer.send(message)
        except (OSError, ValueError) as exc:  # BrokenPipeError and resets are OSErrors; a closed writer: ValueError
            self._mark_dead(f"the engine is unreachable: {exc}")
            raise EngineDeadError(self._dead_reason or "engine dead") from exc
        if not written:
            self._flush_later()

    def _flush_later(self) -> None:
        """Have the reading loop write what waits once the engine makes room (from whichever thread sends). With no
        loop reading, the next one to take the reader over (``_watch``) does."""
        home = self._home
        if home is None or not home.is_running():
            return
        if home is _running_loop():
            self._want_writable(home)
        else:
            with contextlib.suppress(RuntimeError):  # closed meanwhile: the next loop to read takes it over
                home.call_soon_threadsafe(self._want_writable, home)

    def _want_writable(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._writer.fileno >= 0 and self._writer.pending:
            loop.add_writer(self._writer.fileno, self._flush, loop)

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        """The engine made room: write what waits; stop watching once nothing does."""
        try:
            written = self._writer.flush()
        except (OSError, ValueError) as exc:
            self._unwatch_writable(loop)
            self._mark_dead(f"the engine is unreachable: {exc}")
            return
        if written:
            self._unwatch_writable(loop)

    def _unwatch_writable(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._writer.fileno >= 0:
            loop.remove_writer(self._writer.fileno)

    # --- reading ----------------------------------------------------------------------------------
    def _watch(self) -> None:
        """Make sure the core's messages are read: by the loop already reading them while it runs, else by the loop
        running here (which takes the reader over), else, outside any loop, by reading what has arrived now."""
        home = self._home
        if self._frames.fileno < 0 or (home is not None and home.is_running()):
            return
        loop = _running_loop()
        if loop is None:
            self._read(None, until_empty=True)
            return
        if home is not None and not home.is_closed():
            self._unregister(home)  # a stopped loop: it runs no callback while the reader moves
        self._home = loop
        loop.add_reader(self._frames.fileno, self._read, loop)
        if self._sentinel is not None:
            loop.add_reader(self._sentinel, self._core_exited, loop)
        self._want_writable(loop)  # bytes a previous loop had not written yet

    def _unregister(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.remove_reader(self._frames.fileno)
        if self._sentinel is not None:
            loop.remove_reader(self._sentinel)
        self._unwatch_writable(loop)

    def _read(self, here: asyncio.AbstractEventLoop | None, *, until_empty: bool = False) -> None:
        """Read the core's messages that have arrived and deliver them. ``here``: the loop this runs on, if any."""
        with self._read_lock:
            if self._frames.fileno < 0:
                return
            try:
                messages = self._frames.read(until_empty=until_empty)
            except Exception:  # a corrupt stream (unpicklable): nothing after it can be trusted
                log.exception("unreadable message from the engine; the connection is dropped")
                messages, broken = [], True
            else:
                broken = self._frames.at_eof
            for message in messages:
                self._dispatch(message, here)
            if broken:
                self._end_reading()

    def _core_exited(self, here: asyncio.AbstractEventLoop) -> None:
        """The engine process exited: deliver what it sent before, then fail the rest (a child of the process may
        still hold the pipe open, so its end of the stream may never come)."""
        self._read(here, until_empty=True)
        with self._read_lock:
            if self._frames.fileno >= 0:
                self._end_reading()

    def _end_reading(self) -> None:
        """The stream has ended: stop reading and fail whatever still waits. Holds the read lock."""
        self._stop_reading()
        self._mark_dead("the engine was shut down" if self._closing else "the engine process died")

    def _stop_reading(self) -> None:
        home = self._home
        if home is not None and not home.is_closed() and self._frames.fileno >= 0:
            if home.is_running() and home is not _running_loop():
                # the selector is the home loop's own: let its thread both unregister and close
                with contextlib.suppress(RuntimeError):
                    home.call_soon_threadsafe(self._stop_reading_here, home)
                return
            self._unregister(home)
        self._frames.close()
        self._writer.close()

    def _stop_reading_here(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._frames.fileno >= 0:
            self._unregister(loop)
            self._frames.close()
            self._writer.close()

    def _dispatch(self, message: tuple[Any, ...], here: asyncio.AbstractEventLoop | None) -> None:
        kind = message[0]
        if kind == "outputs":
            for out in message[1]:
                if out.finished:
                    self._owed.discard(out.request_id)
                self._deliver(out.request_id, out, here)
        elif kind == "stats":
            self._stats = message[1]
            if len(message) > 2:  # an engine host's reporter says it reads (engine.core.stats_route)
                with contextlib.suppress(EngineDeadError):
                    self._send(("stats_read", message[2]))
        elif kind == "rejected":
            info: ErrorInfo = message[2]
            self._owed.discard(message[1])
            self._deliver(message[1], info.to_exception(), here)

    def _deliver(self, request_id: str, item: RequestOutput | Exception,
                 here: asyncio.AbstractEventLoop | None) -> None:
        entry = self._queues.get(request_id)
        if entry is None:
            return
        loop, queue = entry
        if loop is here:
            queue.put_nowait(item)
            return
        with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody is listening
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def _mark_dead(self, reason: str) -> None:
        if self._dead_reason is None:
            self._dead_reason = reason
        self._owed.clear()
        here = _running_loop()
        for rid in list(self._queues):
            self._deliver(rid, EngineDeadError(self._dead_reason), here)
