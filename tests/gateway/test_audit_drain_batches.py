"""The audit drain stores records in batches: every flush interval, or at once when a whole batch waits — never a
transaction per record as each is spooled."""

from __future__ import annotations

import time
from pathlib import Path

from gateway_support import unique_name
from sqlalchemy import func, select

from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.writer import AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.tenants.service import create_tenant


def _event(tenant_id: str) -> AuditEvent:
    return AuditEvent(created_at=utcnow(), request_id=f"req_{unique_name('r')}", endpoint="chat", http_status=200,
                      latency_ms=1.0, overhead_ms=0.5, tenant_id=tenant_id, model="m", decisions=[], content=None)


def _stored(db: Database, tenant_id: str) -> int:
    with db.session() as session:
        return int(session.scalar(select(func.count()).select_from(AuditRecord)
                                  .where(AuditRecord.tenant_id == tenant_id)) or 0)


def _wait_until(predicate, timeout_s: float) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_records_spooled_one_by_one_are_stored_together_at_the_interval(db: Database, tmp_path: Path) -> None:
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name(), session=session).id
    writer = AuditWriter(db, tmp_path / "spool", batch_size=100, flush_interval_s=1.0)
    writer.start()
    try:
        time.sleep(0.1)  # the drain's first look (an empty spool) is behind it
        before = writer.batches_stored
        for _ in range(5):
            writer.record_sync(_event(tenant_id))  # durable in the spool when this returns
        assert _stored(db, tenant_id) == 0 and writer.batches_stored == before  # not a transaction per record
        # The interval, plus the first batch's start of the drain process (seconds on a loaded machine).
        assert _wait_until(lambda: _stored(db, tenant_id) == 5, timeout_s=30.0)
        assert writer.batches_stored == before + 1  # all five in one batch
    finally:
        writer.close()


def test_a_whole_batch_waiting_is_stored_without_waiting_for_the_interval(db: Database, tmp_path: Path) -> None:
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name(), session=session).id
    writer = AuditWriter(db, tmp_path / "spool", batch_size=4, flush_interval_s=60.0)
    writer.start()
    try:
        time.sleep(0.1)
        for _ in range(4):
            writer.record_sync(_event(tenant_id))
        assert _wait_until(lambda: _stored(db, tenant_id) == 4, timeout_s=10.0)  # long before the 60 s interval
        assert writer.flush(timeout_s=5.0)
    finally:
        writer.close()
