"""The audit drain's database work, in a process of its own.

Storing a batch (parsing the lines, chaining and hashing them, the driver's parameter handling) costs tens of
microseconds a record, and in the serving process every one of them holds the interpreter lock its event loop needs:
requests that overlapped a drain batch made the gateway's latency tail. So the serving process keeps what makes a
record durable (the fsync'd spool) and what says how far the spool is stored (its offsets, rotation, orphan
adoption); it hands each batch of spooled lines to this child and waits on a pipe, without the lock, for the reply.

The child stores a batch with ``LineStore`` (quarantine included) and answers how many lines it quarantined, or why
it could not store them (an outage: the lines stay spooled). A child that dies mid-batch leaves no half of it behind
(its transaction dies with its connection); the batch is sent again to a new child, and replays are idempotent by
event id. Children come from a fork server started once per serving process with these modules already imported,
so a child starts in milliseconds and never inherits the serving process's threads.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import threading
from multiprocessing.connection import Connection
from pathlib import Path

from gateway.audit.line_store import LineStore
from gateway.audit.quarantine import Quarantine, describe_failure
from gateway.core import forkserver
from gateway.core.db import Database, StoreTimeouts
from gateway.telemetry.logs import JsonFormatter, LogFormat, RedactingTextFormatter, configure_logging

log = logging.getLogger(__name__)

STOP_TIMEOUT_S = 5.0
# The fork server imports the drain's modules (SQLAlchemy, the models, the drivers) once; each child forked from it
# starts with them loaded. The list is shared with the guardrails' analysis workers (``gateway.core.forkserver``).
_CONTEXT = forkserver.context()
forkserver.preload([__name__, "sqlalchemy.dialects.postgresql.psycopg", "sqlalchemy.dialects.sqlite"])


class DrainFailed(RuntimeError):
    """The drain process could not store a batch; ``reason`` says why (as ``describe_failure`` does)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class DrainProcess:
    """The serving process's handle on its drain child: one batch in flight at a time."""

    def __init__(self, db: Database, spool_dir: Path) -> None:
        url = db.engine.url
        if url.get_backend_name() == "sqlite" and url.database and not os.path.isabs(url.database):
            # Children are forked from the fork server, in the directory it started in: a relative path would move.
            url = url.set(database=os.path.abspath(url.database))
        self._url = url.render_as_string(hide_password=False)
        self._timeouts = db.timeouts
        self._spool_dir = spool_dir.absolute()
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        self._lock = threading.Lock()  # the pipe carries one request and its reply at a time
        self.starts = 0  # children started, restarts included

    @staticmethod
    def supports(db: Database) -> bool:
        """A private in-memory SQLite database exists only in this process: no child could reach it."""
        url = db.engine.url
        return not (url.get_backend_name() == "sqlite" and url.database in (None, "", ":memory:"))

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Start a child; raises whatever keeps one from starting."""
        ours, theirs = _CONTEXT.Pipe()
        log_format, log_level = _log_setup()
        process = _CONTEXT.Process(target=serve, args=(theirs, self._url, self._timeouts, self._spool_dir,
                                                       log_format, log_level),
                                   name="warden-audit-drain", daemon=True)
        try:
            process.start()
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()  # the child holds its end now: its death is an EOF on ours
        self._process, self._conn = process, ours
        self.starts += 1

    def store_lines(self, lines: list[bytes]) -> int:
        """Store ``lines`` in the child (``LineStore.store_lines``): how many it quarantined. A child that dies is
        replaced and the batch sent again once; ``DrainFailed`` when the store is out, or the new child dies too."""
        with self._lock:
            return self._store_lines(lines)

    def _store_lines(self, lines: list[bytes]) -> int:
        for attempt in range(2):
            if self._conn is None:
                self.start()
            assert self._conn is not None
            try:
                self._conn.send(lines)
                reply: tuple[str, int | str] = self._conn.recv()
            except (EOFError, OSError):
                exitcode = self._discard()
                log.warning("audit drain process ended (exit code %s) during a batch; %s", exitcode,
                            "starting another" if attempt == 0 else "giving up on this round")
                continue
            kind, value = reply
            if kind == "ok":
                assert isinstance(value, int)
                return value
            raise DrainFailed(str(value))
        raise DrainFailed("the audit drain process ended during the batch")

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """Ask the child to end (its pipe closes) and wait for it; one that does not end in time is killed."""
        with self._lock:
            conn, process = self._conn, self._process
            self._conn = self._process = None
        if conn is not None:
            conn.close()
        if process is not None:
            process.join(timeout_s)
            if process.exitcode is None:
                process.kill()
                process.join(timeout_s)
            with contextlib.suppress(ValueError):
                process.close()

    def _discard(self) -> int | None:
        """Forget a child that died; its exit code."""
        conn, process = self._conn, self._process
        self._conn = self._process = None
        if conn is not None:
            conn.close()
        if process is None:
            return None
        process.join(STOP_TIMEOUT_S)
        if process.exitcode is None:  # the pipe broke but it lives on: it must not store a batch sent elsewhere
            process.kill()
            process.join(STOP_TIMEOUT_S)
        exitcode = process.exitcode
        with contextlib.suppress(ValueError):
            process.close()
        return exitcode


def _log_setup() -> tuple[LogFormat, str]:
    """How the serving process logs (the format ``configure_logging`` gave its root logger, and the level), for its
    child to log alike: a forked child starts from the fork server's bare logging, not the serving process's."""
    root = logging.getLogger()
    level = logging.getLevelName(root.getEffectiveLevel())
    for handler in root.handlers:
        if isinstance(handler.formatter, JsonFormatter):
            return "json", level
        if isinstance(handler.formatter, RedactingTextFormatter):
            return "text", level
    return "none", level


def serve(conn: Connection, url: str, timeouts: StoreTimeouts, spool_dir: Path, log_format: LogFormat = "none",
          log_level: str = "INFO") -> None:
    """The child: store each batch received, answer, and end when the serving process closes the pipe."""
    # The serving process decides when its drain stops (a terminal's Ctrl-C reaches the whole process group).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if log_format != "none":
        configure_logging(log_format, log_level)
    db = Database(url, timeouts=timeouts)
    store = LineStore(db, Quarantine(db, spool_dir))
    try:
        while True:
            try:
                lines: list[bytes] = conn.recv()
            except (EOFError, OSError):
                return
            try:
                reply: tuple[str, int | str] = ("ok", store.store_lines(lines))
            except Exception as exc:
                reply = ("failed", describe_failure(exc))
            try:
                conn.send(reply)
            except OSError:
                return
    finally:
        db.dispose()
        conn.close()
