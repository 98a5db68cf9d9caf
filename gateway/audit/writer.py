"""The audit writer: durable on the request path, batched off it.

Guarantee: ``record`` returns once the event is fsync'd to this process's spool file. The request path awaits
it before a non-streamed response is sent, and before the final ``data: [DONE]`` of a stream (a stream cut by
the client is recorded as it ends). A background thread drains the spool into the database in batches of up to
``batch_size``; if the database is down, records wait in the spool and are retried with back-off; if the process
dies, the next writer to start (or any live one, within ``orphan_scan_interval_s``) adopts its spool and replays
it. Nothing acknowledged is lost; replays are idempotent by event id.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from sqlalchemy.exc import DBAPIError, IntegrityError
from starlette.concurrency import run_in_threadpool

from gateway.audit.event import AuditEvent
from gateway.audit.spool import Spool, claim_orphans
from gateway.audit.store import ChainConflict, append_events
from gateway.core.db import Database

log = logging.getLogger(__name__)

MAX_CONFLICT_RETRIES = 20
MAX_BACKOFF_S = 5.0


class AuditWriter:
    def __init__(self, db: Database, spool_dir: Path, *, batch_size: int = 256, flush_interval_s: float = 0.2,
                 rotate_bytes: int = 8 * 1024 * 1024, orphan_scan_interval_s: float = 30.0) -> None:
        self._db = db
        self._spool_dir = spool_dir
        self._batch_size = batch_size
        self._flush_interval_s = flush_interval_s
        self._rotate_bytes = rotate_bytes
        self._orphan_scan_interval_s = orphan_scan_interval_s
        self._spool: Spool | None = None
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._drained = threading.Condition()
        self._thread: threading.Thread | None = None
        self.last_error: str | None = None

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> None:
        self._spool = Spool(self._spool_dir)
        self._thread = threading.Thread(target=self._run, name="warden-audit-writer", daemon=True)
        self._thread.start()

    def close(self, timeout_s: float = 10.0) -> None:
        """Drain what is spooled (best effort within the timeout), then stop. Whatever could not be stored
        stays in the spool file for the next writer to adopt."""
        if self._thread is None or self._spool is None:
            return
        self.flush(timeout_s)
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout_s)
        self._spool.close(remove=self._spool.pending_bytes() == 0)
        self._thread = None

    # -- request path ----------------------------------------------------------------------------------------
    def record_sync(self, event: AuditEvent) -> None:
        assert self._spool is not None, "AuditWriter.start() was not called"
        self._spool.append(event.to_spool_line())
        self._wake.set()

    async def record(self, event: AuditEvent) -> None:
        await run_in_threadpool(self.record_sync, event)

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
        return 0 if self._spool is None else self._spool.pending_bytes()

    # -- background ------------------------------------------------------------------------------------------
    def _store(self, events: list[AuditEvent]) -> None:
        for attempt in range(MAX_CONFLICT_RETRIES):
            try:
                with self._db.transaction() as session:
                    append_events(events, session=session)
                return
            except (ChainConflict, IntegrityError) as exc:
                # Another worker appended to the same chain (or created its head) first: re-read and retry.
                log.debug("audit chain race (attempt %d): %s", attempt + 1, exc)
                time.sleep(0.005 * (attempt + 1))
            except DBAPIError as exc:
                # SQLite reports a concurrent writer as "database is locked"; Postgres a serialization failure.
                if "locked" not in str(exc) and "could not serialize" not in str(exc):
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise RuntimeError(f"audit chain still contended after {MAX_CONFLICT_RETRIES} attempts")

    def _drain_once(self) -> bool:
        """Store one batch. True if there may be more."""
        assert self._spool is not None
        lines, offset = self._spool.read_pending(self._batch_size)
        if not lines:
            return False
        self._store([AuditEvent.from_spool_line(line) for line in lines])
        self._spool.commit(offset, self._rotate_bytes)
        return len(lines) >= self._batch_size

    def adopt_orphans(self) -> int:
        """Replay spools left by dead processes. Returns how many events were replayed."""
        replayed = 0
        own = self._spool.path if self._spool is not None else None
        for orphan in claim_orphans(self._spool_dir, own):
            try:
                lines = orphan.lines()
                for start in range(0, len(lines), self._batch_size):
                    batch = lines[start:start + self._batch_size]
                    self._store([AuditEvent.from_spool_line(line) for line in batch])
                    replayed += len(batch)
            except Exception:
                orphan.release()  # keep the file; try again on the next scan
                raise
            orphan.finish()
            log.info("replayed %d audit events from orphaned spool %s", len(lines), orphan.path.name)
        return replayed

    def _run(self) -> None:
        backoff_s = 0.0
        next_orphan_scan = 0.0
        while True:
            self._wake.wait(backoff_s or self._flush_interval_s)
            self._wake.clear()
            try:
                if time.monotonic() >= next_orphan_scan:
                    self.adopt_orphans()
                    next_orphan_scan = time.monotonic() + self._orphan_scan_interval_s
                while self._drain_once():
                    pass
                backoff_s = 0.0
                self.last_error = None
            except Exception as exc:
                # The database is unreachable or refused the batch: the records stay spooled; retry later.
                self.last_error = f"{type(exc).__name__}: {exc}"
                backoff_s = min(MAX_BACKOFF_S, max(0.1, backoff_s * 2))
                log.warning("audit drain failed, retrying in %.1fs: %s", backoff_s, self.last_error)
            with self._drained:
                self._drained.notify_all()
            if self._stop.is_set() and (self._spool is None or self._spool.pending_bytes() == 0 or backoff_s):
                return
