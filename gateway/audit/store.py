"""Appending events to their chains in the database: the only code that assigns sequence numbers and hashes.

Correct with any number of gateway workers and replicas: each chain's head row is locked (Postgres
``SELECT ... FOR UPDATE``) for the whole transaction, and the head is advanced with a compare-and-set on
``last_seq`` that also catches a concurrent writer on SQLite (which ignores FOR UPDATE). A lost race raises
``ChainConflict``; the caller rolls back and retries the batch.

Replaying a spool never duplicates a record: a chain's event ids are looked up after its head is locked, so a
record inserted by any other writer is either committed and seen, or that writer still holds the lock. This is
the guarantee on Postgres, where ``audit_records`` is partitioned and can only declare ``event_id`` and ``(chain_id,
seq)`` unique per partition (see ``gateway.audit.partitions``); SQLite keeps both as table-wide constraints.

``recorded_at`` never goes backwards within a chain (a clock behind the last writer's is clamped to the head's
``updated_at``): Postgres partitions by month of ``recorded_at``, and retention relies on each month holding a
contiguous run of the chain.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from operator import itemgetter
from typing import Any, cast

import orjson
from sqlalchemy import Connection, CursorResult, String, Table, any_, bindparam, insert, select, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from gateway.audit.chain import GENESIS_HASH, record_hash_of
from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditChainHead, AuditRecord
from gateway.core.clock import as_utc, utcnow


class ChainConflict(RuntimeError):
    """Another writer advanced the chain head between our read and our update."""


_RECORDS = cast(Table, AuditRecord.__table__)
_HEADS = cast(Table, AuditChainHead.__table__)
# The drain's statements, built once and run as Core statements on the session's connection (same transaction):
# building them per batch and running them through the ORM session cost the drain, and the event loop sharing its
# interpreter lock, more than the database round trips themselves.
_LOCK_HEAD = (select(_HEADS.c.last_seq, _HEADS.c.last_hash, _HEADS.c.updated_at)
              .where(_HEADS.c.chain_id == bindparam("chain")).with_for_update())
# On Postgres the event ids are one array parameter (``= ANY``), so the statement's text is the same for every batch;
# ``IN`` is rewritten with a placeholder per id on each execution and its new text parsed again by the driver.
# SQLite has no arrays: ``IN`` there.
_STORED_POSTGRES = select(_RECORDS.c.event_id).where(
    _RECORDS.c.chain_id == bindparam("chain"), _RECORDS.c.event_id == any_(bindparam("ids", type_=ARRAY(String))))
_STORED_OTHER = select(_RECORDS.c.event_id).where(
    _RECORDS.c.chain_id == bindparam("chain"), _RECORDS.c.event_id.in_(bindparam("ids", expanding=True)))
_ADVANCE_HEAD = (update(_HEADS).where(_HEADS.c.chain_id == bindparam("chain"),
                                      _HEADS.c.last_seq == bindparam("expected_seq"))
                 .values(last_seq=bindparam("new_seq"), last_hash=bindparam("new_hash"),
                         updated_at=bindparam("new_updated_at")))
_INSERT_RECORDS = insert(_RECORDS)
# Postgres takes the rows as one COPY: no statement per row for the driver to bind, and the JSON columns dumped by
# orjson instead of the standard library (the executemany spent more CPU on the rows than the database did).
_COPY_COLUMNS = tuple(column.name for column in _RECORDS.columns if column.name != "id")
_COPY_VALUES = itemgetter(*_COPY_COLUMNS)
_COPY_JSON_AT = tuple(_COPY_COLUMNS.index(name) for name in ("decisions", "content"))
_COPY_RECORDS = f"COPY {_RECORDS.name} ({', '.join(_COPY_COLUMNS)}) FROM STDIN"


def _lock_head(chain_id: str, *, session: Session, connection: Connection) -> tuple[int, str, datetime | None]:
    head = connection.execute(_LOCK_HEAD, {"chain": chain_id}).first()
    if head is not None:
        return int(head.last_seq), head.last_hash, as_utc(head.updated_at)
    # First record of this chain. A concurrent creator makes this INSERT fail on the primary key: the
    # transaction is retried and then finds the row.
    head_row = AuditChainHead(chain_id=chain_id, last_seq=0, last_hash=GENESIS_HASH)
    session.add(head_row)
    session.flush()
    session.expunge(head_row)  # advanced below by a Core UPDATE: the session must not keep serving this first state
    return 0, GENESIS_HASH, None


def append_events(events: Sequence[AuditEvent], *, session: Session, use_copy: bool | None = None) -> int:
    """Chain and insert ``events`` (skipping ones already stored). Returns how many were inserted.
    Runs inside the caller's transaction; on any exception the caller must roll back. ``use_copy``: as in
    ``insert_rows``."""
    if not events:
        return 0
    by_chain: dict[str, dict[str, AuditEvent]] = defaultdict(dict)
    for event in events:
        by_chain[event.chain_id].setdefault(event.event_id, event)

    session.flush()  # what the caller added to this session (a tenant, say) reaches the database before the Core SQL
    inserted = 0
    rows: list[dict[str, Any]] = []
    connection = session.connection()
    stored_query = _STORED_POSTGRES if connection.dialect.name == "postgresql" else _STORED_OTHER
    for chain_id in sorted(by_chain):  # a fixed lock order: two writers never deadlock on heads
        last_seq, last_hash, last_recorded = _lock_head(chain_id, session=session, connection=connection)
        pending = by_chain[chain_id]
        stored = set(connection.execute(stored_query, {"chain": chain_id, "ids": list(pending)}).scalars())
        recorded_at = utcnow() if last_recorded is None else max(utcnow(), last_recorded)
        seq, prev_hash = last_seq, last_hash
        for event in pending.values():
            if event.event_id in stored:
                continue
            seq += 1
            # A plain row, not an ORM object: the drain builds hundreds per second and the ORM's attribute
            # instrumentation cost more than the hash. Every column is set, as the insert below expects.
            row: dict[str, Any] = {
                "event_id": event.event_id, "chain_id": chain_id, "seq": seq, "prev_hash": prev_hash,
                "tenant_id": event.tenant_id, "created_at": event.created_at, "request_id": event.request_id,
                "key_id": event.key_id, "endpoint": event.endpoint, "model": event.model,
                "http_status": event.http_status, "error_type": event.error_type,
                "finish_reason": event.finish_reason, "prompt_tokens": event.prompt_tokens,
                "completion_tokens": event.completion_tokens, "cached_tokens": event.cached_tokens,
                "latency_ms": float(event.latency_ms), "overhead_ms": float(event.overhead_ms),
                "policy_version": event.policy_version, "decisions": event.decisions, "content": event.content,
                "recorded_at": recorded_at,
            }
            row["record_hash"] = prev_hash = record_hash_of(row)
            rows.append(row)
            inserted += 1
        # An UPDATE answers with a cursor result, whose rowcount says whether the expected head was still there.
        advanced = cast("CursorResult[Any]", connection.execute(
            _ADVANCE_HEAD, {"chain": chain_id, "expected_seq": last_seq, "new_seq": seq, "new_hash": prev_hash,
                            "new_updated_at": recorded_at}))
        if advanced.rowcount != 1:
            raise ChainConflict(chain_id)
    if rows:
        insert_rows(rows, connection=connection, use_copy=use_copy)
    return inserted


def insert_rows(rows: list[dict[str, Any]], *, connection: Connection, use_copy: bool | None = None) -> None:
    """Insert plain record rows (every column but the id): a COPY on Postgres (``use_copy`` None or True), else one
    executemany."""
    if use_copy is None:
        use_copy = connection.dialect.name == "postgresql"
    if use_copy:
        _copy_rows(rows, connection=connection)
        return
    # One executemany of a short Core INSERT without RETURNING (the row ids are not read back): the ORM's flush
    # would send one INSERT .. RETURNING of every row's values, whose text the driver parses anew each batch, and
    # the ORM's bulk insert would walk every row through its mapper first.
    connection.execute(_INSERT_RECORDS, rows)


def _json_text(value: Any) -> str:
    # SQL NULL is never written for a JSON column: SQLAlchemy's JSON type stores None as JSON null, and so does this.
    return orjson.dumps(value).decode()


def _copy_rows(rows: list[dict[str, Any]], *, connection: Connection) -> None:
    """The rows as one text COPY on the transaction's own driver connection. A driver error is raised as the
    SQLAlchemy error an INSERT would have raised (``DataError``, ``IntegrityError``, ...), so callers tell a refused
    record from an outage the same way on either path."""
    import psycopg  # only a Postgres connection comes here: an SQLite deployment never loads the driver

    cursor = connection.connection.cursor()
    try:
        with cursor.copy(_COPY_RECORDS) as copy:
            for row in rows:
                values = list(_COPY_VALUES(row))
                for at in _COPY_JSON_AT:
                    values[at] = _json_text(values[at])
                copy.write_row(values)
    except psycopg.Error as exc:
        raise DBAPIError.instance(_COPY_RECORDS, None, exc, psycopg.Error, hide_parameters=True,
                                  dialect=connection.dialect) from exc
    finally:
        cursor.close()
