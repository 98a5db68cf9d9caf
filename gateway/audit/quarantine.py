"""The audit quarantine: where a spooled line goes when the store refuses it, so it never blocks the lines behind it.

A refusal is told apart from an outage by what the database says about the record itself: a data exception
(SQLSTATE class 22: a NUL, a value too long, out of range) or an integrity violation other than the unique
violation a racing writer causes (class 23: a tenant that no longer exists), and a line that is not an event at all.
An outage (connection lost, timeout, serialization failure) is never a refusal: those lines stay spooled and are
retried. A quarantined line is kept byte for byte in ``audit_quarantine`` (binary, which every backend accepts); if
even that insert fails, in a file under the spool directory. Operators see the count in ``/readyz``, the metric
``warden:audit_quarantined_total``, a log line (the reason, never the values) and the admin API.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import func, select
from sqlalchemy.exc import DataError, IntegrityError, InterfaceError, OperationalError, StatementError
from sqlalchemy.orm import Session

from gateway.audit.models import AuditQuarantine
from gateway.core.db import Database

log = logging.getLogger(__name__)

UNIQUE_VIOLATION = "23505"
FALLBACK_DIR = "quarantine"


@dataclass(frozen=True, slots=True)
class RefusedLine:
    line: bytes
    reason: str
    event_id: str | None = None
    chain_id: str | None = None


def is_record_refusal(exc: BaseException) -> bool:
    """Whether the store refused these values (retrying cannot help) rather than being unavailable."""
    if isinstance(exc, DataError):
        return True
    if isinstance(exc, IntegrityError):
        sqlstate = getattr(exc.orig, "sqlstate", None)
        if sqlstate is not None:
            return sqlstate != UNIQUE_VIOLATION
        return "UNIQUE constraint failed" not in str(exc.orig)  # SQLite names the constraint kind instead
    # A value the driver could not even bind (e.g. a string it cannot encode) fails before the database sees it.
    return isinstance(exc, StatementError) and isinstance(exc.orig, ValueError | TypeError | UnicodeError)


def refusal_reason(exc: BaseException) -> str:
    """The exception class and SQLSTATE: enough to act on, never the refused values."""
    orig = getattr(exc, "orig", None)
    name = type(orig).__name__ if orig is not None else type(exc).__name__
    sqlstate = getattr(orig, "sqlstate", None)
    return f"{name} (SQLSTATE {sqlstate})" if sqlstate else name


def describe_failure(exc: BaseException) -> str:
    """A failed drain for logs and health: the refusal reason, plus the driver's message for a connection failure
    (which names hosts and timeouts, never values)."""
    reason = refusal_reason(exc)
    if isinstance(exc, OperationalError | InterfaceError):
        message = str(getattr(exc, "orig", exc)).strip().splitlines()
        return f"{reason}: {message[0][:200]}" if message else reason
    return reason


def identify(line: bytes) -> tuple[str | None, str | None]:
    """The event id and chain of a spooled line, where it can be read."""
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    event_id = data.get("event_id")
    tenant = data.get("tenant_id")
    return (str(event_id)[:64] if event_id is not None else None,
            str(tenant)[:64] if tenant is not None else "anonymous")


class Quarantine:
    def __init__(self, db: Database, spool_dir: Path) -> None:
        self._db = db
        self._fallback_dir = spool_dir / FALLBACK_DIR

    def put(self, refused: RefusedLine) -> bool:
        """Durable once this returns: in the table, else fsync'd to the fallback file. False when the table already
        holds this line: a batch is stored again after a drain died before saying it was stored (a killed drain
        process, an orphaned spool replayed), and its refused lines must not be quarantined twice."""
        try:
            with self._db.transaction() as session:
                if _already_quarantined(session, refused):
                    log.info("audit record already quarantined (event %s, chain %s)", refused.event_id or "unknown",
                             refused.chain_id or "unknown")
                    return False
                session.add(AuditQuarantine(event_id=refused.event_id, chain_id=refused.chain_id,
                                            reason=refused.reason[:200], line=refused.line))
            table_failure = None
        except Exception as exc:  # the table refused it too, or the store went away meanwhile: keep it on disk
            table_failure = type(exc).__name__
        log.error("audit record quarantined (event %s, chain %s): %s", refused.event_id or "unknown",
                  refused.chain_id or "unknown", refused.reason)
        if table_failure is None:
            return True
        log.error("audit quarantine table unavailable (%s); keeping the line in %s", table_failure, self._fallback_dir)
        self._fallback_dir.mkdir(parents=True, exist_ok=True)
        path = self._fallback_dir / f"quarantine-{os.getpid()}.jsonl"
        entry = orjson.dumps({"reason": refused.reason, "event_id": refused.event_id, "chain_id": refused.chain_id,
                              "line": refused.line.decode("utf-8", "backslashreplace")}) + b"\n"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, entry)
            os.fsync(fd)
        finally:
            os.close(fd)
        return True


def _already_quarantined(session: Session, refused: RefusedLine) -> bool:
    """Whether this very line is in the table (the same event id, or none, and the same bytes)."""
    same_event = (AuditQuarantine.event_id.is_(None) if refused.event_id is None
                  else AuditQuarantine.event_id == refused.event_id)
    return session.scalar(select(AuditQuarantine.id).where(same_event, AuditQuarantine.line == refused.line)
                          .limit(1)) is not None


def quarantined(session: Session, *, chain_id: str | None, limit: int) -> tuple[int, list[dict[str, Any]]]:
    """How many lines are quarantined in scope (one chain, or every chain with None), and the newest ``limit``
    of them, each with its spooled line as text for an operator to inspect and replay."""
    scope = select(AuditQuarantine)
    if chain_id is not None:
        scope = scope.where(AuditQuarantine.chain_id == chain_id)
    total = session.scalar(select(func.count()).select_from(scope.subquery())) or 0
    rows = session.scalars(scope.order_by(AuditQuarantine.id.desc()).limit(limit))
    return int(total), [{"id": row.id, "quarantined_at": row.quarantined_at.isoformat(), "event_id": row.event_id,
                         "chain_id": row.chain_id, "reason": row.reason,
                         "line": row.line.decode("utf-8", "backslashreplace").rstrip("\n")} for row in rows]
