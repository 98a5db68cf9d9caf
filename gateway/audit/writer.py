"""The audit writer: durable on the request path, batched off it.

Guarantee: ``record`` returns once the event is synced to the disk in this process's spool file. The request path awaits
it before a non-streamed response is sent, and before the final ``data: [DONE]`` of a stream (a stream cut by
the client is recorded as it ends). Records are made durable by one thread of the writer's, in batches: the
records asked for while a batch is being written and synced go together in the next (one write, one sync, one
wake-up of each waiting event loop for all of them; a worker-thread hop per record cost the event loop more than the
record itself).

A background thread drains the spool into the database in batches of up to ``batch_size``, every
``flush_interval_s`` or as soon as a whole batch is waiting (not per record: a transaction per record costs the
drain several times what a batch does); if the database is down, records wait in the spool and are retried with
back-off; if the process dies, the next writer to start (or any live one, within ``orphan_scan_interval_s``) adopts
its spool and replays it. Nothing acknowledged is lost; replays are idempotent by event id.

With ``drain="process"`` (the default) the thread only reads the spool and keeps its offsets: each batch is stored
by a child process (``gateway.audit.drain_process``), so the storing never holds the interpreter lock the request
path's event loop needs. ``drain="thread"`` stores in this process, as does a writer whose child cannot start.

A line the store refuses (see ``gateway.audit.quarantine``) is found by storing its batch one record at a time and
is moved to the quarantine; the lines behind it are stored as usual. Only an outage keeps lines waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gateway.audit.drain_process import DrainFailed, DrainProcess
from gateway.audit.event import AuditEvent
from gateway.audit.line_store import LineStore
from gateway.audit.quarantine import Quarantine, describe_failure
from gateway.audit.spool import Spool, StreamJournal, claim_orphans
from gateway.core.db import Database
from gateway.core.stale_cache import stale_decisions

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 5.0
SPOOL_RETRY_S = 5.0  # after a failed append, the spool counts as unwritable this long (unless an append succeeds)
SPACE_CHECK_INTERVAL_S = 1.0
DOWN_STORE_CLOSE_S = 1.0  # how long close() still tries to drain while the database is known to be down
RECORD_THREADS = 32  # records made durable at once outside the record thread (before it starts, after close)
MAX_HELD_LINES = 10_000  # records neither durable store took, kept in memory for retry
# How much nicer than the serving process its drain child runs. A drain batch is tens of milliseconds of CPU that
# nobody waits for (its records are durable in the spool already); at the serving process's own priority it takes a
# core from the event loop for that long, and the requests it overlaps make the latency tail. Nicer, it yields the
# core whenever the loop wakes, and still gets the CPU the loop leaves idle.
DRAIN_NICENESS = 10


class AuditUnavailableError(RuntimeError):
    """Neither the spool nor the database could make an audit record durable."""


@dataclass(slots=True, frozen=True)
class _Asked:
    """A record asked for on an event loop, and the future its caller awaits there."""

    event: AuditEvent
    loop: asyncio.AbstractEventLoop
    waiter: asyncio.Future[None]


class AuditWriter:
    def __init__(self, db: Database, spool_dir: Path, *, batch_size: int = 256, flush_interval_s: float = 0.5,
                 rotate_bytes: int = 8 * 1024 * 1024, orphan_scan_interval_s: float = 30.0,
                 min_free_bytes: int = 16 * 1024 * 1024, on_quarantine: Callable[[], None] | None = None,
                 drain: Literal["process", "thread"] = "process") -> None:
        self._db = db
        self.quarantine = Quarantine(db, spool_dir)
        self._lines = LineStore(db, self.quarantine)
        self._drain_mode = drain
        self.drain_process: DrainProcess | None = None  # while batches are stored by a child process
        self._niced_drain_pid: int | None = None  # the drain child last made nicer (a replaced child is a new pid)
        self._drain_process_tried = False
        self._on_quarantine = on_quarantine
        self._spool_dir = spool_dir
        self._batch_size = batch_size
        self._flush_interval_s = flush_interval_s
        self._rotate_bytes = rotate_bytes
        self._orphan_scan_interval_s = orphan_scan_interval_s
        self._spool: Spool | None = None
        self._journal: StreamJournal | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._drained = threading.Condition()
        self._thread: threading.Thread | None = None
        self.last_error: str | None = None
        self.quarantined = 0  # lines this writer set aside since it started (all of them: the admin API)
        self._min_free_bytes = min_free_bytes
        self._spool_failed_at: float | None = None  # when an append last failed
        self._spool_low = False
        self._next_space_check = 0.0
        self._held: deque[bytes] = deque()
        self._held_lock = threading.Lock()
        self._spooled_since_drain = 0  # records spooled since the drain last woke (approximate: a hint to wake it)
        self.batches_stored = 0  # spooled batches the drain has stored since start
        # Threads for record_sync where the record thread does not take a record (not started yet, or closing).
        self._executor = ThreadPoolExecutor(max_workers=RECORD_THREADS, thread_name_prefix="warden-audit-record")
        # Records waiting for the record thread, then None once it is to stop (put under _asked_lock, so none comes
        # after it). A C-level queue: handing a record over takes one call and wakes the thread only when it waits,
        # where an event and a list cost the loop a Python-level condition (lock, waiter list, notify) per record.
        self._asked: queue.SimpleQueue[_Asked | None] = queue.SimpleQueue()
        self._asked_lock = threading.Lock()
        self._recorder: threading.Thread | None = None
        self._recorder_stop = False

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._spool = Spool(self._spool_dir)
        self._journal = StreamJournal(self._spool.path)
        self._thread = threading.Thread(target=self._run, name="warden-audit-writer", daemon=True)
        self._thread.start()
        self._recorder_stop = False
        self._recorder = threading.Thread(target=self._record_asked, name="warden-audit-record", daemon=True)
        self._recorder.start()

    def close(self, timeout_s: float = 10.0) -> None:
        """Drain what is spooled (best effort within the timeout), then stop. Whatever could not be stored
        stays in the spool file for the next writer to adopt."""
        if self._thread is None or self._spool is None:
            return
        if self._recorder is not None:  # the records already asked for are made durable first; later ones are
            with self._asked_lock:  # each made durable in a thread of their own (``record``)
                self._recorder_stop = True
                self._asked.put(None)
            self._recorder.join(timeout_s)
            self._recorder = None
        # With the store known down, a long wait only delays the shutdown: the spool keeps the records for the
        # next writer to adopt.
        self.flush(timeout_s if self.last_error is None else min(timeout_s, DOWN_STORE_CLOSE_S))
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout_s)
        # With streams still open (their provisional records journalled), the spool stays for an adopter too.
        drained = self._spool.pending_bytes() == 0 and (self._journal is None or self._journal.open_streams == 0)
        if self._journal is not None:
            self._journal.dispose(remove=drained)
        self._spool.close(remove=drained)
        self._thread = None

    # -- request path ----------------------------------------------------------------------------------------
    def record_sync(self, event: AuditEvent) -> None:
        """Durable once this returns: in the spool, or (the spool unwritable: disk full, read-only, I/O error)
        straight in the database. Neither: ``AuditUnavailableError``, and the caller must not acknowledge the
        request; the line is still held in memory and retried, since a stream's client may have seen tokens."""
        assert self._spool is not None, "AuditWriter.start() was not called"
        line = event.to_spool_line()
        try:
            self._spool.append(line)
        except OSError as exc:
            self._spool_failed_at = time.monotonic()
            log.error("audit spool unwritable (%s); storing the record directly", os.strerror(exc.errno or 0)
                      if exc.errno else type(exc).__name__)
            try:
                self._store_lines([line])
            except Exception as store_exc:
                self.last_error = describe_failure(store_exc)
                self._hold(line)
                raise AuditUnavailableError("the audit record could not be made durable") from store_exc
            self._closed(event.event_id)
            return
        self._spool_failed_at = None
        self._closed(event.event_id)
        self._spooled_since_drain += 1
        if self._spooled_since_drain >= self._batch_size:  # a whole batch waits: no need to wait for the interval
            self._wake.set()

    def record_batch_sync(self, events: list[AuditEvent]) -> list[BaseException | None]:
        """``record_sync`` for several events at once: their lines in one append (one write, one sync). Each event's
        outcome, in order: None once durable, else the exception its caller gets. Should the spool refuse the
        append, each event takes ``record_sync``'s own way (the spool again, else the database)."""
        assert self._spool is not None, "AuditWriter.start() was not called"
        outcomes: list[BaseException | None] = [None] * len(events)
        lines: list[bytes] = []
        spooled: list[int] = []
        for i, event in enumerate(events):
            try:
                lines.append(event.to_spool_line())
            except Exception as exc:  # this event's caller fails alone
                outcomes[i] = exc
            else:
                spooled.append(i)
        if not lines:
            return outcomes
        try:
            self._spool.append(b"".join(lines))
        except OSError:
            for i in spooled:
                try:
                    self.record_sync(events[i])
                except Exception as exc:
                    outcomes[i] = exc
            return outcomes
        self._spool_failed_at = None
        for i in spooled:
            self._closed(events[i].event_id)
        self._spooled_since_drain += len(lines)
        if self._spooled_since_drain >= self._batch_size:
            self._wake.set()
        return outcomes

    def _closed(self, event_id: str) -> None:
        if self._journal is not None:
            with contextlib.suppress(OSError):
                self._journal.close(event_id)

    def open_stream(self, event: AuditEvent) -> None:
        """Before a stream's first byte: journal its provisional record (``event``, with the event id its final
        record will carry), which is what gets stored if this process dies before the stream ends."""
        assert self._journal is not None, "AuditWriter.start() was not called"
        try:
            self._journal.open(event.event_id, _with_stale_reads(event).to_spool_line())
        except OSError as exc:  # the final record still goes through record(), with its own fallbacks
            log.error("audit stream journal unwritable (%s)", type(exc).__name__)

    def ensure_available(self) -> None:
        """Before the first byte of a response that cannot be taken back (a stream): refuse unless its record
        will have somewhere durable to go, the spool (writable, with room) or the database (reachable)."""
        if self._spool_healthy() or self.last_error is None:
            return
        raise AuditUnavailableError("neither the audit spool nor the database can take records")

    def _spool_healthy(self) -> bool:
        assert self._spool is not None
        now = time.monotonic()
        if self._spool_failed_at is not None and now - self._spool_failed_at < SPOOL_RETRY_S:
            return False
        if now >= self._next_space_check:
            try:
                self._spool_low = self._spool.free_bytes() < self._min_free_bytes
            except OSError:
                self._spool_low = True
            self._next_space_check = now + SPACE_CHECK_INTERVAL_S
        return not self._spool_low

    def _hold(self, line: bytes) -> None:
        with self._held_lock:
            if len(self._held) >= MAX_HELD_LINES:
                log.error("audit records held in memory are at their bound (%d); dropping the oldest",
                          MAX_HELD_LINES)
                self._held.popleft()
            self._held.append(line)
        self._wake.set()

    def _retry_held(self) -> None:
        """Lines neither the spool nor the database took: spool them (or store them) now."""
        assert self._spool is not None
        while True:
            with self._held_lock:
                if not self._held:
                    return
                line = self._held[0]
            try:
                self._spool.append(line)
                self._spool_failed_at = None
            except OSError:
                self._store_lines([line])  # raises on an outage: kept for the next round
            with self._held_lock:
                self._held.popleft()

    async def record(self, event: AuditEvent) -> None:
        """Returns once ``event`` is durable (``record_sync``'s guarantee), made so by the record thread in a batch
        with the others asked for meanwhile (``record_batch_sync``). A cancelled caller still waits for its record
        to be durable (or to fail) before the cancellation reaches it, so no caller goes on as if a record were kept
        that is not yet."""
        loop = asyncio.get_running_loop()
        event = _with_stale_reads(event)  # in the request's context: its stale reads
        waiter: asyncio.Future[None] = loop.create_future()
        with self._asked_lock:
            taken = self._recorder is not None and not self._recorder_stop
            if taken:
                self._asked.put(_Asked(event, loop, waiter))
        if not taken:  # not started, or closing: a thread of its own (a closed spool falls back to the database)
            waiter = loop.run_in_executor(self._executor, self.record_sync, event)
        try:
            await asyncio.shield(waiter)
        except asyncio.CancelledError:
            await _outlast_cancellation(waiter)
            raise

    def _record_asked(self) -> None:
        """The record thread: makes what was asked for durable, a batch at a time, and answers each batch's waiters
        with one call into each of their event loops."""
        pending = self._asked
        stopping = False
        while not stopping:
            asked: list[_Asked] = []
            item = pending.get()  # what came while the last batch was written goes in this one
            while True:
                if item is None:  # the last thing ever put: stop once what came before it is answered
                    stopping = True
                else:
                    asked.append(item)
                if pending.empty():
                    break
                item = pending.get_nowait()
            if not asked:
                continue
            try:
                outcomes = self.record_batch_sync([a.event for a in asked])
            except Exception as exc:  # not expected (each event's failure is its outcome): fail the batch
                outcomes = [exc] * len(asked)
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
            for a, outcome in zip(asked, outcomes, strict=True):
                by_loop.setdefault(a.loop, []).append((a.waiter, outcome))
            for loop, answers in by_loop.items():
                with contextlib.suppress(RuntimeError):  # a loop closed meanwhile has no one left to answer
                    loop.call_soon_threadsafe(_answer, answers)

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until everything spooled so far is in the database. True on success."""
        deadline = time.monotonic() + timeout_s
        with self._drained:
            while self._spool is not None and self._spool.pending_bytes() > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._wake.set()
                self._drained.wait(min(remaining, self._flush_interval_s))
        return True

    @property
    def pending_bytes(self) -> int:
        with self._held_lock:
            held = sum(len(line) for line in self._held)
        return held + (0 if self._spool is None else self._spool.pending_bytes())

    # -- background ------------------------------------------------------------------------------------------
    def _store_lines(self, lines: list[bytes]) -> None:
        """Store spooled lines here, in this process (the request path's fallback when the spool is unwritable);
        quarantine the ones the store refuses. Raises only on an outage (the lines then stay spooled, or held, and
        are retried: replays are idempotent)."""
        self._count_quarantined(self._lines.store_lines(lines))

    def _store_drained(self, lines: list[bytes]) -> None:
        """``_store_lines`` for the drain thread: in the drain process while there is one. The process is started for
        the first batch, not with the writer: its start (the fork server's imports, once per serving process) then
        never competes with the serving process's own start and first requests for the CPU, and a writer that
        never stores anything (a short-lived app) starts none."""
        if not self._drain_process_tried:
            self._drain_process_tried = True
            self._start_drain_process()
        process = self.drain_process
        if process is None:
            self._store_lines(lines)
            return
        self._lower_drain_priority(process)
        try:
            quarantined = process.store_lines(lines)
        except DrainFailed:
            raise
        except Exception as exc:  # no child could be started again: this process drains from now on
            log.error("audit drain process could not be restarted (%s); draining in the serving process",
                      type(exc).__name__)
            self.drain_process = None
            process.stop()
            self._store_lines(lines)
            return
        self._count_quarantined(quarantined)

    def _lower_drain_priority(self, process: DrainProcess) -> None:
        """Run the drain child ``DRAIN_NICENESS`` nicer than this process, once per child (a child that died is
        replaced by the next batch: that one is made nicer before the batch after it)."""
        pid = process.pid
        if pid is None or pid == self._niced_drain_pid:
            return
        self._niced_drain_pid = pid
        try:
            os.setpriority(os.PRIO_PROCESS, pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + DRAIN_NICENESS))
        except OSError as exc:  # gone already, or not ours to change: it drains at our priority
            log.debug("audit drain process priority unchanged (%s)", type(exc).__name__)

    def _count_quarantined(self, count: int) -> None:
        self.quarantined += count
        if self._on_quarantine is not None:
            for _ in range(count):
                self._on_quarantine()

    def _start_drain_process(self) -> None:
        if self._drain_mode != "process":
            return
        if not DrainProcess.supports(self._db):
            log.info("audit drain stays in the serving process: an in-memory database has no other process")
            return
        process = DrainProcess(self._db, self._spool_dir)
        try:
            process.start()
        except Exception as exc:
            log.error("audit drain process could not start (%s); draining in the serving process",
                      type(exc).__name__)
            return
        self.drain_process = process

    def _stop_drain_process(self) -> None:
        process, self.drain_process = self.drain_process, None
        if process is not None:
            process.stop()

    def _drain_once(self) -> bool:
        """Store one batch. True if there may be more."""
        assert self._spool is not None
        lines, offset = self._spool.read_pending(self._batch_size)
        if not lines:
            return False
        self._store_drained(lines)
        self._spool.commit(offset, self._rotate_bytes)
        self.batches_stored += 1
        return len(lines) >= self._batch_size

    def adopt_orphans(self) -> int:
        """Replay spools left by dead processes. Returns how many events were replayed."""
        replayed = 0
        own = self._spool.path if self._spool is not None else None
        for orphan in claim_orphans(self._spool_dir, own):
            try:
                lines = orphan.lines()
                # Final records first: a stream that finished is recorded as it ended, not as journalled.
                for start in range(0, len(lines), self._batch_size):
                    batch = lines[start:start + self._batch_size]
                    self._store_drained(batch)
                    replayed += len(batch)
                cut_streams = orphan.journal()
                for start in range(0, len(cut_streams), self._batch_size):
                    self._store_drained(cut_streams[start:start + self._batch_size])
            except Exception:
                orphan.release()  # keep the file; try again on the next scan
                raise
            orphan.finish()
            log.info("replayed %d audit events from orphaned spool %s", len(lines), orphan.path.name)
        return replayed

    def _run(self) -> None:
        try:
            self._drain_until_stopped()
        finally:
            self._stop_drain_process()

    def _drain_until_stopped(self) -> None:
        backoff_s = 0.0
        next_orphan_scan = 0.0
        while True:
            self._wake.wait(backoff_s or self._flush_interval_s)
            self._wake.clear()
            self._spooled_since_drain = 0
            try:
                self._retry_held()
                if time.monotonic() >= next_orphan_scan:
                    self.adopt_orphans()
                    next_orphan_scan = time.monotonic() + self._orphan_scan_interval_s
                while self._drain_once():
                    pass
                backoff_s = 0.0
                self.last_error = None
            except Exception as exc:
                # The database is unreachable or refused the batch: the records stay spooled; retry later.
                self.last_error = exc.reason if isinstance(exc, DrainFailed) else describe_failure(exc)
                backoff_s = min(MAX_BACKOFF_S, max(0.1, backoff_s * 2))
                log.warning("audit drain failed, retrying in %.1fs: %s", backoff_s, self.last_error)
            with self._drained:
                self._drained.notify_all()
            if self._stop.is_set() and (self._spool is None or self._spool.pending_bytes() == 0 or backoff_s):
                return


def _answer(answers: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for waiter, outcome in answers:
        if waiter.done():
            continue
        if outcome is None:
            waiter.set_result(None)
        else:
            waiter.set_exception(outcome)


async def _outlast_cancellation(work: asyncio.Future[None]) -> None:
    """Wait for ``work`` to end, whatever cancellations arrive meanwhile (its outcome is the caller's to drop)."""
    while not work.done():
        with contextlib.suppress(BaseException):
            await asyncio.shield(work)


def _with_stale_reads(event: AuditEvent) -> AuditEvent:
    """``event`` with the current request's stale reads among its decisions: a request answered from a stale key or
    policy (a store outage) says so in every record of it, the provisional one a stream journals included. Called in
    the request's context."""
    event.decisions = [*event.decisions, *stale_decisions()]
    return event
