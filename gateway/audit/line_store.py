"""Storing spooled audit lines in the database: what a drain does with a batch, wherever the drain runs.

The serving process's drain thread and the drain process (``gateway.audit.drain_process``) both store a batch
through ``LineStore.store_lines``: parse the lines, chain and insert them in one transaction, retry a lost chain
race, and move each line the store refuses to the quarantine (found by storing the batch one record at a time),
so one bad line never holds up the lines behind it. Only an outage raises: the lines then stay spooled and the
whole batch is retried later (replays are idempotent by event id).
"""

from __future__ import annotations

import logging
import time

from sqlalchemy.exc import DBAPIError, IntegrityError

from gateway.audit.event import AuditEvent
from gateway.audit.quarantine import Quarantine, RefusedLine, identify, is_record_refusal, refusal_reason
from gateway.audit.store import ChainConflict, append_events
from gateway.core.db import Database

log = logging.getLogger(__name__)

MAX_CONFLICT_RETRIES = 20


class LineStore:
    def __init__(self, db: Database, quarantine: Quarantine) -> None:
        self._db = db
        self._quarantine = quarantine

    def store_lines(self, lines: list[bytes]) -> int:
        """Store spooled lines; quarantine the ones the store refuses. Returns how many were newly quarantined (a
        replayed batch finds its refused lines there already). Raises only on an outage."""
        quarantined = 0
        events: list[tuple[bytes, AuditEvent]] = []
        for line in lines:
            try:
                events.append((line, AuditEvent.from_spool_line(line)))
            except (ValueError, TypeError, KeyError) as exc:  # not an event (a torn or foreign line)
                quarantined += self._quarantine.put(
                    RefusedLine(line, f"UnreadableLine ({type(exc).__name__})", *identify(line)))
        try:
            self.store_events([event for _, event in events])
            return quarantined
        except Exception as exc:
            if not is_record_refusal(exc):
                raise
        for line, event in events:  # find the refused ones: one record per transaction
            try:
                self.store_events([event])
            except Exception as exc:
                if not is_record_refusal(exc):
                    raise
                quarantined += self._quarantine.put(
                    RefusedLine(line, refusal_reason(exc), event.event_id, event.chain_id))
        return quarantined

    def store_events(self, events: list[AuditEvent]) -> None:
        for attempt in range(MAX_CONFLICT_RETRIES):
            try:
                with self._db.transaction() as session:
                    append_events(events, session=session)
                return
            except (ChainConflict, IntegrityError) as exc:
                if is_record_refusal(exc):
                    raise
                # Another writer appended to the same chain (or created its head) first: re-read and retry.
                log.debug("audit chain race (attempt %d): %s", attempt + 1, exc)
                time.sleep(0.005 * (attempt + 1))
            except DBAPIError as exc:
                # SQLite reports a concurrent writer as "database is locked"; Postgres a serialization failure.
                if "locked" not in str(exc) and "could not serialize" not in str(exc):
                    raise
                time.sleep(0.01 * (attempt + 1))
        raise RuntimeError(f"audit chain still contended after {MAX_CONFLICT_RETRIES} attempts")
