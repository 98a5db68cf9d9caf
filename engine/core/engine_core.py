"""``EngineCore``: the step loop on the far side of a pipe, in its own process (or a thread, for tests).

Wire protocol (pickled tuples over ``multiprocessing`` connections):

* in:  ``("add", EngineRequest)``, ``("abort", request_id)``, ``("shutdown",)``
* out: ``("ready", {"model_name", "max_model_len", "vocab_size", "block_size", "pid"})`` once loaded, or
  ``("failed", ErrorInfo)``;
  then ``("outputs", list[RequestOutput])`` per step and ``("rejected", request_id, ErrorInfo)`` for a request
  the engine refused (e.g. a constraint that does not compile); ``("stats", EngineStats)`` at most every
  ``STATS_INTERVAL_S`` while busy and once on going idle (``engine.metrics``). An engine host numbers its
  reporter's snapshots, ``("stats", EngineStats, sequence)``, and the reporter answers ``("stats_read", sequence)``.

The core serves one or more callers (``ClientPort``): outputs go to the caller that added the request, stats to
one reporting caller (an engine host's: ``engine.core.stats_route``, which passes over a caller that stopped
reading). With one pipe (``run_engine_core``) the caller's leaving ends the core; an engine host (``engine.host``)
accepts callers from a socket and keeps serving while they come and go, aborting the requests of one that leaves.

The loop blocks on its inputs only when it has nothing to run, so an idle engine costs no CPU and a busy
one never waits for a caller.

A host's callers are read and written without blocking (``ClientPort.over_socket``: ``frame_reader``,
``frame_writer``): one caller that stops reading (a stopped or frozen gateway worker) fills its socket, and what no
longer fits waits in its port's backlog, flushed in order whenever its socket is writable again (the loop polls for
that beside its inputs), while the loop serves every other caller and its heartbeat keeps beating. The backlog is
bounded: a caller whose backlog exceeds ``max_backlog_bytes`` (``DEFAULT_MAX_BACKLOG_BYTES`` unless the host is told
otherwise) is taken for gone, as one that hung up is: its connection is closed and its requests aborted, so a caller
stopped for good cannot grow the engine's memory without end. It reads what its socket still held, then the end.
 A constrained request's grammar compiles on worker threads
(``engine.structured.pending``) while the loop keeps stepping; the request joins the scheduler once it is ready.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import queue
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from engine.config import EngineConfig
from engine.core.error_info import ErrorInfo
from engine.core.frame_reader import FrameReader
from engine.core.frame_writer import FrameWriter
from engine.core.heartbeat import Heartbeat
from engine.core.stats_route import StatsRoute
from engine.llm_engine import LLMEngine
from engine.metrics import STATS_INTERVAL_S
from engine.outputs import RequestOutput, Usage

log = logging.getLogger(__name__)
GRAMMAR_POLL_S = 0.005  # how often an otherwise idle loop looks at the grammars compiling for it
HOST_IDLE_CHECK_S = 1.0  # how often an idle engine host asks whether to keep serving
DEFAULT_MAX_BACKLOG_BYTES = 64 * 1024 * 1024  # a host caller's unsent bytes beyond which it is taken for gone


@dataclass(eq=False)
class ClientPort:
    """One caller of the core: where its messages arrive, where its outputs go, and the requests it added."""

    inbox: Connection
    outbox: Connection
    requests: set[str] = field(default_factory=set)
    # A host's caller (``over_socket``) is read and written without blocking; a lone pipe's is not.
    reader: FrameReader | None = None
    writer: FrameWriter | None = None

    @classmethod
    def over_socket(cls, conn: Connection) -> ClientPort:
        """A caller on one duplex connection, from now on read and written only without blocking."""
        return cls(conn, conn, reader=FrameReader(conn), writer=FrameWriter(conn))

    @property
    def backlog(self) -> int:
        """Bytes sent to this caller that its socket had no room for yet."""
        return self.writer.pending if self.writer is not None else 0

    def close(self) -> None:
        """Hang up on a non-blocking caller (a lone pipe's ends belong to ``run_engine_core``)."""
        if self.writer is None or self.reader is None:
            return
        self.writer.close()
        self.reader.close()
        self.outbox.close()


class NewCallers:
    """Callers accepted on another thread (an engine host's acceptor), handed to the step loop: a queue, and a pipe
    whose end the loop waits on beside its callers' connections so a new caller wakes it."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[ClientPort] = queue.SimpleQueue()
        self.wakeup, self._wake = mp.Pipe(duplex=False)

    def put(self, port: ClientPort) -> None:
        self._queue.put(port)
        self._wake.send_bytes(b"+")

    def take(self) -> list[ClientPort]:
        while self.wakeup.poll(0):
            self.wakeup.recv_bytes()
        ports = []
        while not self._queue.empty():
            ports.append(self._queue.get_nowait())
        return ports


class EngineCore:
    def __init__(self, engine: LLMEngine, ports: list[ClientPort], *, incoming: NewCallers | None = None,
                 keep_serving: Callable[[], bool] | None = None, heartbeat: Heartbeat | None = None,
                 max_backlog_bytes: int = DEFAULT_MAX_BACKLOG_BYTES) -> None:
        """``incoming``: where an engine host's new callers arrive; without it the core stops when its last caller
        leaves. ``keep_serving`` is asked while idle (a host stops once the process that started it is gone).
        ``heartbeat`` is bumped once per turn of the loop, for supervisors to tell a hung loop from a busy one.
        ``max_backlog_bytes``: how much a non-blocking caller may leave unread before it is taken for gone."""
        self.engine = engine
        self.max_backlog_bytes = max_backlog_bytes
        self.heartbeat = heartbeat
        self.ports = list(ports)
        self.incoming = incoming
        self.keep_serving = keep_serving
        self.running = True
        self._owner: dict[str, ClientPort] = {}
        self._stats_route = StatsRoute[ClientPort]()  # which of a host's callers reports, and what each is sent
        self._stats_sent_at = 0.0
        self._stats_dirty = True  # something changed since the last snapshot went out
        self._compiling: Any = None  # engine.structured.PendingGrammars, made with the first constrained request

    # --- sending ------------------------------------------------------------------------------------------------
    def _send(self, port: ClientPort, message: tuple[Any, ...]) -> None:
        try:
            if port.writer is None:
                port.outbox.send(message)
                return
            port.writer.send(message)  # what its socket has no room for waits in its backlog
        except (OSError, ValueError):  # the caller is gone (broken pipe, closed handle)
            self._lost(port)
            return
        if port.backlog > self.max_backlog_bytes:
            log.warning("an engine caller left %d bytes unread (more than %d): hanging up on it, aborting its %d "
                        "requests", port.backlog, self.max_backlog_bytes, len(port.requests))
            self._lost(port)

    def _flush(self, port: ClientPort) -> None:
        """Write what waits for a caller whose socket has room again."""
        if port.writer is None:
            return
        try:
            port.writer.flush()
        except (OSError, ValueError):
            self._lost(port)

    def _send_outputs(self, outputs: list[RequestOutput]) -> None:
        by_port: dict[ClientPort, list[RequestOutput]] = {}
        for out in outputs:
            port = self._owner.get(out.request_id)
            if port is None:
                continue
            by_port.setdefault(port, []).append(out)
            if out.finished:
                self._forget(out.request_id)
        for port, batch in by_port.items():
            self._send(port, ("outputs", batch))

    def _reject(self, request_id: str, exc: BaseException) -> None:
        port = self._forget(request_id)
        if port is not None:
            self._send(port, ("rejected", request_id, ErrorInfo.of(exc)))

    def _forget(self, request_id: str) -> ClientPort | None:
        port = self._owner.pop(request_id, None)
        if port is not None:
            port.requests.discard(request_id)
        return port

    def _send_stats(self, *, force: bool = False) -> None:
        """A snapshot to the reporting caller: the only caller, or the one a host's ``StatsRoute`` picks (a host's
        callers are one gateway's workers, whose metrics add up: each reporting would count the engine once per
        worker)."""
        now = time.monotonic()
        if not self.ports or not self._stats_dirty or (not force and now - self._stats_sent_at < STATS_INTERVAL_S):
            return
        stats = self.engine.stats()
        if self.incoming is None:
            self._send(self.ports[0], ("stats", stats))
        else:
            for port, message in self._stats_route.route(self.ports, stats, now):
                if port in self.ports:  # not hung up on by an earlier send of this round
                    self._send(port, message)
        self._stats_sent_at = now
        self._stats_dirty = False

    # --- receiving ----------------------------------------------------------------------------------------------
    def _receive(self, timeout: float | None) -> None:
        """Handle every message waiting (after up to ``timeout`` seconds for the first; None: until one comes), and
        flush the backlog of each caller whose socket has room again."""
        poller = select.poll()
        by_fd: dict[int, ClientPort] = {}
        for port in self.ports:
            fd = port.inbox.fileno()
            poller.register(fd, select.POLLIN | (select.POLLOUT if port.backlog else 0))
            by_fd[fd] = port
        wakeup = self.incoming.wakeup.fileno() if self.incoming is not None else -1
        if wakeup >= 0:
            poller.register(wakeup, select.POLLIN)
        for fd, events in poller.poll(None if timeout is None else timeout * 1000):
            if fd == wakeup:
                assert self.incoming is not None
                self.ports.extend(self.incoming.take())
                self._stats_dirty = True
                continue
            port = by_fd[fd]
            if events & select.POLLOUT and port in self.ports:
                self._flush(port)
            if events & ~select.POLLOUT and port in self.ports:  # a message, or the end (POLLHUP, POLLERR)
                self._read(port)

    def _read(self, port: ClientPort) -> None:
        if port.reader is None:
            conn = port.inbox
            try:
                while self.running and port in self.ports and conn.poll(0):
                    self._handle(port, conn.recv())
            except (EOFError, OSError):
                self._lost(port)
            return
        for message in port.reader.read(until_empty=True):
            if not (self.running and port in self.ports):
                return
            self._handle(port, message)
        if port.reader.at_eof:
            self._lost(port)

    def _lost(self, port: ClientPort) -> None:
        """A caller went away: its requests are aborted (their blocks freed); a lone pipe's core stops."""
        if port not in self.ports:
            return
        self.ports.remove(port)
        self._stats_route.forget(port)
        self._stats_dirty = True  # what it was sent unread goes to the reporter in a snapshot, idle engine or not
        port.close()
        for request_id in list(port.requests):
            self._forget(request_id)
            self._abort(request_id)
        if self.incoming is None and not self.ports:
            self.running = False

    def _handle(self, port: ClientPort, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "stats_read":  # changes nothing in the engine: a new snapshot for it would be answered again
            self._stats_route.confirmed(port, message[1], time.monotonic())
            return
        self._stats_dirty = True
        if kind == "add":
            request = message[1]
            self._owner[request.request_id] = port
            port.requests.add(request.request_id)
            try:
                if request.structured is not None:
                    self._pending_grammars().add(request)  # joins the engine in _admit_compiled
                else:
                    self.engine.add_request(request)
            except Exception as exc:  # refused: only this request fails
                self._reject(request.request_id, exc)
        elif kind == "abort":
            if self._owner.get(message[1]) is port:  # a caller stops only its own requests
                out = self._abort(message[1])
                if out is not None:
                    self._send_outputs([out])
        elif kind == "shutdown":
            if self.incoming is None:
                self.running = False
            else:  # a host outlives its callers: this one only leaves
                self._lost(port)

    def _abort(self, request_id: str) -> RequestOutput | None:
        waiting = self._compiling.discard(request_id) if self._compiling is not None else None
        if waiting is not None:
            return RequestOutput(waiting.request_id, finish_reason="abort",
                                 usage=Usage(prompt_tokens=len(waiting.prompt_token_ids), completion_tokens=0))
        return self.engine.abort_request(request_id)

    def _pending_grammars(self) -> Any:
        if self._compiling is None:
            from engine.structured.pending import PendingGrammars

            self._compiling = PendingGrammars(self.engine.grammar_compiler())
        return self._compiling

    def _admit_compiled(self) -> None:
        """Move requests whose grammar compiled into the engine; reject those refused or past the time cap."""
        if not self._compiling:
            return
        for settled in self._compiling.pop_settled():
            request, error = settled.request, settled.error
            if error is None:
                try:
                    self.engine.add_request(request, grammar=settled.grammar)
                except Exception as exc:  # refused: only this request fails
                    error = exc
            if error is not None:
                self._reject(request.request_id, error)
            self._stats_dirty = True

    def _idle_wait_s(self) -> float | None:
        if self._compiling:
            return GRAMMAR_POLL_S  # a settled grammar must not wait for the next message
        return HOST_IDLE_CHECK_S if self.keep_serving is not None else None

    def run(self) -> None:
        while self.running:
            if self.heartbeat is not None:
                self.heartbeat.beat()
                # Every caller reads the engine's queue here to admit by it (only the reporter gets snapshots).
                self.heartbeat.set_waiting(self.engine.num_waiting_requests)
            # Block when idle; otherwise drain whatever arrived and take a step.
            if not self.engine.has_unfinished_requests():
                self._send_stats(force=True)  # going idle: the gauges must not keep the last busy values
                if self.keep_serving is not None and not self.keep_serving():
                    break
                self._receive(self._idle_wait_s())
            if self.running:
                self._receive(0)
            self._admit_compiled()
            if self.running and self.engine.has_unfinished_requests():
                outputs = self.engine.step()
                if outputs:
                    self._send_outputs(outputs)
                self._stats_dirty = True
                self._send_stats()
        if self._compiling is not None:
            self._compiling.close()


def load_engine(config: EngineConfig, status: Connection) -> LLMEngine | None:
    """The engine, or None after sending its starter ``("failed", ErrorInfo)``."""
    try:
        return LLMEngine(config)
    except Exception as exc:
        log.exception("engine failed to start")
        status.send(("failed", ErrorInfo.of(exc)))
        return None


def engine_info(engine: LLMEngine) -> dict[str, Any]:
    """What a caller learns of the engine in its ``("ready", info)`` greeting."""
    return {"model_name": engine.model_name, "max_model_len": engine.max_model_len, "vocab_size": engine.vocab_size,
            "block_size": engine.block_size, "pid": os.getpid()}


def run_engine_core(config: EngineConfig, inbox: Connection, outbox: Connection, *, own_process: bool = True,
                    heartbeat: Heartbeat | None = None) -> None:
    """Entry point of the engine process (and of the in-process variant's thread).

    Its one caller is written with blocking sends, unlike a host's. A send blocks only while that caller does not
    read, and then it holds up nothing but that caller's own work: there is no other caller to starve. It cannot
    deadlock, since the client never blocks sending to the core. The heartbeat stands still meanwhile, but the
    watchdog that reads it runs on the loop that reads the pipe: while that loop does not turn the watchdog does not
    look, and a look after such a gap starts afresh (``gateway.replicas.watchdog``); once it turns, the pipe is read
    and the core goes on. Blocking also bounds what the core holds for a caller that stopped to the pipe's size, with
    no backlog to cap."""
    if own_process:
        # Ctrl-C belongs to the parent, which shuts us down in order.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        logging.basicConfig(level=os.environ.get("WARDEN_ENGINE_LOG", "WARNING"))
    try:
        engine = load_engine(config, outbox)
        if engine is None:
            return
        try:
            outbox.send(("ready", engine_info(engine)))
            EngineCore(engine, [ClientPort(inbox, outbox)], heartbeat=heartbeat).run()
        finally:
            engine.shutdown()  # tensor-parallel workers stop with their driver
    except (EOFError, BrokenPipeError, OSError):
        pass  # the client went away: nothing left to serve
    finally:
        outbox.close()
