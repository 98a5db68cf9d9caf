"""The drain's two ways of inserting records: a COPY on Postgres and an executemany elsewhere store the same rows,
chained and hashed the same way, and a hash never changes with how it is computed (chains stored before must still
verify)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from gateway_support import unique_name
from sqlalchemy import select

from gateway.audit.chain import record_hash_of
from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.quarantine import is_record_refusal
from gateway.audit.store import append_events
from gateway.audit.verify import verify_chains
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.tenants.service import create_tenant

# Values whose JSON text differs between encoders (a small float orjson writes without an exponent, a large one,
# negative zero, escapes and non-ASCII text, nested keys out of order): both paths must store and hash them alike.
AWKWARD_DECISIONS: list[dict[str, Any]] = [
    {"stage": "policy", "decision": "allowed", "score": 1e-05, "big": 1e16, "zero": -0.0, "z": [1, 2.5, None, True]},
    {"stage": "rate_limit", "remaining": 2**62, "note": "quote \" backslash \\ tab \t"},
]
AWKWARD_CONTENT: dict[str, Any] = {"prompt": [{"role": "user", "content": "héllo \u2028 \x01 東京 🙂"}],
                                   "b": {"y": 1, "x": [{}, []]}, "a": None}


def _events(tenant_id: str, count: int) -> list[AuditEvent]:
    return [AuditEvent(created_at=utcnow(), request_id=f"req_{i}", endpoint="chat.completions", http_status=200,
                       latency_ms=1e-05 * (i + 1), overhead_ms=0.75 + i, tenant_id=tenant_id, key_id="k" * 16,
                       model="m", finish_reason="length", prompt_tokens=i, policy_version=None if i % 2 else 3,
                       decisions=AWKWARD_DECISIONS if i % 2 else [],
                       content=None if i % 3 == 0 else AWKWARD_CONTENT)
            for i in range(count)]


def _tenant(db: Database) -> str:
    with db.transaction() as session:
        return create_tenant(unique_name(), session=session).id


def _stored(session: Any, chain_id: str) -> list[dict[str, Any]]:
    """Every column of the chain's rows as read back, except the row id and recorded_at (neither is hashed)."""
    records = session.scalars(select(AuditRecord).where(AuditRecord.chain_id == chain_id).order_by(AuditRecord.seq))
    return [{column.name: getattr(record, column.name) for column in AuditRecord.__table__.columns
             if column.name not in ("id", "recorded_at")} for record in records]


def test_copy_and_executemany_store_identical_rows_and_chains(db: Database) -> None:
    if db.engine.dialect.name != "postgresql":
        pytest.skip("COPY is the Postgres path; SQLite always stores with the executemany")
    tenant_id = _tenant(db)
    events = _events(tenant_id, 12)
    stored: dict[bool, list[dict[str, Any]]] = {}
    for use_copy in (True, False):  # the same events at the same chain positions, each then rolled back
        with db.session() as session, session.begin():
            assert append_events(events, session=session, use_copy=use_copy) == 12
            stored[use_copy] = _stored(session, tenant_id)
            # None in a JSON column is JSON null on both paths, never SQL NULL (which reads back the same).
            sql_nulls = session.scalars(select(AuditRecord.content.is_(None))
                                        .where(AuditRecord.chain_id == tenant_id)).all()
            assert not any(sql_nulls)
            session.rollback()
    assert len(stored[True]) == 12
    assert stored[True] == stored[False]
    assert [row["content"] for row in stored[True][:3]] == [None, AWKWARD_CONTENT, AWKWARD_CONTENT]
    assert stored[True][1]["decisions"] == AWKWARD_DECISIONS


@pytest.mark.parametrize("use_copy", [True, False])
def test_records_with_awkward_values_verify_after_the_round_trip(db: Database, use_copy: bool) -> None:
    if use_copy and db.engine.dialect.name != "postgresql":
        pytest.skip("COPY is the Postgres path")
    tenant_id = _tenant(db)
    with db.transaction() as session:
        append_events(_events(tenant_id, 7), session=session, use_copy=use_copy)
    with db.transaction() as session:  # a second batch links to the first
        append_events(_events(tenant_id, 5), session=session, use_copy=use_copy)
    with db.session() as session:
        report = verify_chains(session=session, chain_id=tenant_id)
        assert report.ok, report.broken
        assert report.records == 12
        assert [row["seq"] for row in _stored(session, tenant_id)] == list(range(1, 13))


def test_a_row_the_copy_refuses_is_a_refusal_not_an_outage(db: Database) -> None:
    if db.engine.dialect.name != "postgresql":
        pytest.skip("COPY is the Postgres path")
    # A tenant that does not exist breaks the records' foreign key: the database refuses the row itself.
    orphan = AuditEvent(created_at=utcnow(), request_id="req_orphan", endpoint="chat", http_status=200,
                        latency_ms=1.0, overhead_ms=0.5, tenant_id=f"t_missing_{unique_name()}")
    with pytest.raises(Exception) as raised, db.transaction() as session:
        append_events([orphan], session=session, use_copy=True)
    assert is_record_refusal(raised.value)
    assert getattr(raised.value, "orig", None) is not None and raised.value.orig.sqlstate == "23503"  # type: ignore[attr-defined]
    tenant_id = _tenant(db)  # the connection went back to the pool usable
    with db.transaction() as session:
        assert append_events(_events(tenant_id, 2), session=session, use_copy=True) == 2


def test_the_hash_of_a_record_is_the_one_stored_chains_were_built_with() -> None:
    # Computed once by the chain code every stored record was hashed with: a faster encoder, or a different way of
    # reading the row, must still produce exactly these bytes, or every existing chain would fail to verify.
    row: dict[str, Any] = {"event_id": "0b7d7c1e-6f5c-4f43-9d1a-1f2e3d4c5b6a", "chain_id": "tenant_golden", "seq": 7,
           "prev_hash": "ab" * 32, "tenant_id": "tenant_golden",
           "created_at": datetime(2026, 12, 5, 6, 30, 1, 234567, tzinfo=UTC), "request_id": "req_golden",
           "key_id": "k_0123456789abcdef", "endpoint": "chat.completions", "model": "smollm2-135m-instruct",
           "http_status": 200, "error_type": None, "finish_reason": "length", "prompt_tokens": 30,
           "completion_tokens": 2, "cached_tokens": 0, "latency_ms": 1e-05, "overhead_ms": 0.75, "policy_version": 3,
           "decisions": [{"stage": "policy", "decision": "allowed", "score": 1e16, "z": [1, 2.5, None, True]}],
           "content": {"prompt": [{"role": "user", "content": "héllo \u2028 \x01 \"q\" 東京"}], "a": {"b": -0.0}}}
    golden = "714d9c31b50aacd5f6956623723ad5f22a5a1f4cceb2fb469349cff9c37b847a"
    assert record_hash_of(row) == golden
    record = AuditRecord(**{name: value for name, value in row.items()})  # the verifier reads records, not rows
    assert record_hash_of(record) == golden
    row["content"]["a"]["b"] = 0.0  # and the hash still sees every value
    assert record_hash_of(row) != golden
