"""The audit trail: hash chains, tamper detection, concurrent writers, and the durability guarantee."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from gateway_support import unique_name
from sqlalchemy import delete, select, update

from gateway.audit.chain import GENESIS_HASH, record_hash_of
from gateway.audit.event import ANONYMOUS_CHAIN, AuditEvent
from gateway.audit.models import AuditChainHead, AuditRecord
from gateway.audit.spool import SPOOL_SUFFIX
from gateway.audit.store import append_events
from gateway.audit.verify import verify_chains
from gateway.audit.writer import AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.tenants.service import create_tenant

UNREACHABLE_DB = "sqlite:////nonexistent-dir/warden/unreachable.db"


def _event(tenant_id: str | None, i: int = 0, **overrides: object) -> AuditEvent:
    fields: dict[str, object] = dict(
        created_at=utcnow(), request_id=f"req_{i}", endpoint="chat.completions", http_status=200,
        latency_ms=12.5 + i, overhead_ms=0.75, tenant_id=tenant_id, key_id="k" * 16, model="m",
        prompt_tokens=10 + i, completion_tokens=3, cached_tokens=0, policy_version=1,
        decisions=[{"stage": "rate_limit", "decision": "admitted", "score": 0.1}],
        content={"mode": "redacted", "prompt": [{"role": "user", "content": f"héllo {i} <EMAIL_ADDRESS>"}],
                 "completions": ["hi"]},
    )
    fields.update(overrides)
    return AuditEvent(**fields)  # type: ignore[arg-type]


def _tenant(db: Database) -> str:
    with db.transaction() as session:
        return create_tenant(unique_name(), session=session).id


def _append(db: Database, events: list[AuditEvent]) -> None:
    with db.transaction() as session:
        append_events(events, session=session)


def _rows(db: Database, chain_id: str) -> list[AuditRecord]:
    with db.session() as session:
        return list(session.scalars(select(AuditRecord).where(AuditRecord.chain_id == chain_id)
                                    .order_by(AuditRecord.seq)))


def test_chain_links_each_record_to_the_previous(db: Database) -> None:
    tenant_id = _tenant(db)
    _append(db, [_event(tenant_id, i) for i in range(3)])
    _append(db, [_event(tenant_id, 3), _event(None, 4)])
    rows = _rows(db, tenant_id)
    assert [r.seq for r in rows] == [1, 2, 3, 4]
    assert rows[0].prev_hash == GENESIS_HASH
    assert all(b.prev_hash == a.record_hash for a, b in itertools.pairwise(rows))
    assert all(record_hash_of(r) == r.record_hash for r in rows)  # stable across the database round trip
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok
        assert verify_chains(session=session, chain_id=ANONYMOUS_CHAIN).ok


def test_replaying_the_same_events_does_not_duplicate_them(db: Database) -> None:
    tenant_id = _tenant(db)
    events = [_event(tenant_id, i) for i in range(2)]
    _append(db, events)
    _append(db, [*events, _event(tenant_id, 9)])
    assert [r.seq for r in _rows(db, tenant_id)] == [1, 2, 3]


@pytest.mark.parametrize("tamper", ["edit", "edit_decisions", "delete_middle", "delete_last", "reorder"])
def test_tampering_is_detected_and_the_first_broken_link_named(db: Database, tamper: str) -> None:
    tenant_id = _tenant(db)
    _append(db, [_event(tenant_id, i) for i in range(4)])
    with db.transaction() as session:
        where = (AuditRecord.chain_id == tenant_id)
        if tamper == "edit":
            session.execute(update(AuditRecord).where(where, AuditRecord.seq == 2).values(completion_tokens=999))
        elif tamper == "edit_decisions":
            session.execute(update(AuditRecord).where(where, AuditRecord.seq == 2).values(decisions=[]))
        elif tamper == "delete_middle":
            session.execute(delete(AuditRecord).where(where, AuditRecord.seq == 2))
        elif tamper == "delete_last":
            session.execute(delete(AuditRecord).where(where, AuditRecord.seq == 4))
        else:  # swap the contents of 2 and 3 by renumbering
            session.execute(update(AuditRecord).where(where, AuditRecord.seq == 2).values(seq=-2))
            session.execute(update(AuditRecord).where(where, AuditRecord.seq == 3).values(seq=2))
            session.execute(update(AuditRecord).where(where, AuditRecord.seq == -2).values(seq=3))
    with db.session() as session:
        report = verify_chains(session=session, chain_id=tenant_id)
    assert not report.ok
    (broken,) = report.broken
    assert broken.chain_id == tenant_id
    assert broken.seq == (4 if tamper == "delete_last" else 2)


def test_deleting_a_whole_chain_is_detected_through_its_head(db: Database) -> None:
    tenant_id = _tenant(db)
    _append(db, [_event(tenant_id, 0)])
    with db.transaction() as session:
        session.execute(delete(AuditRecord).where(AuditRecord.chain_id == tenant_id))
    with db.session() as session:
        report = verify_chains(session=session, chain_id=tenant_id)
        head = session.get(AuditChainHead, tenant_id)
    assert head is not None and not report.ok


def _worker_appends(database_url: str, spool_dir: str, tenant_id: str, count: int) -> None:
    db = Database(database_url)
    writer = AuditWriter(db, Path(spool_dir), batch_size=3, flush_interval_s=0.01)
    writer.start()
    for i in range(count):
        writer.record_sync(_event(tenant_id, i))
    assert writer.flush(60)
    writer.close()
    db.dispose()


def test_several_worker_processes_share_one_chain_without_gaps(db: Database, database_url: str,
                                                               tmp_path: Path) -> None:
    tenant_id = _tenant(db)
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_worker_appends, args=(database_url, str(tmp_path), tenant_id, 15))
               for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
        assert w.exitcode == 0
    rows = _rows(db, tenant_id)
    assert [r.seq for r in rows] == list(range(1, 46))
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok
    assert not list(tmp_path.glob(f"*{SPOOL_SUFFIX}"))  # drained spools are removed on close


async def test_a_recorded_event_is_on_disk_before_the_database_has_it(tmp_path: Path) -> None:
    """The guarantee the request path relies on: once record() returns, the event survives anything."""
    writer = AuditWriter(Database(UNREACHABLE_DB), tmp_path, flush_interval_s=0.01)
    writer.start()
    event = _event(None, 7)
    await writer.record(event)
    assert not writer.flush(0.3)  # the database is down: nothing drained...
    (spool,) = tmp_path.glob(f"*{SPOOL_SUFFIX}")
    assert event.event_id.encode() in spool.read_bytes()  # ...but the event is on disk
    deadline = time.monotonic() + 30  # the drain's first round starts its drain process first
    while writer.last_error is None and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert writer.last_error is not None
    writer.close(timeout_s=0.2)
    assert spool.exists()  # not drained, so kept for adoption


def test_events_of_a_killed_process_are_replayed_by_the_next_writer(db: Database, database_url: str,
                                                                    tmp_path: Path) -> None:
    tenant_id = _tenant(db)
    # A gateway process records three events while its database is unreachable, then dies without any cleanup.
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pathlib import Path
        from gateway.audit.writer import AuditWriter
        from gateway.core.db import Database
        from test_gateway_audit import _event
        writer = AuditWriter(Database({UNREACHABLE_DB!r}), Path({str(tmp_path)!r}), flush_interval_s=0.01)
        writer.start()
        ids = []
        for i in range(3):
            event = _event({tenant_id!r}, i)
            writer.record_sync(event)
            ids.append(event.event_id)
        print(",".join(ids), flush=True)
        os._exit(0)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    recorded_ids = done.stdout.strip().split(",")
    assert len(list(tmp_path.glob(f"*{SPOOL_SUFFIX}"))) == 1

    survivor = AuditWriter(db, tmp_path, flush_interval_s=0.01)
    survivor.start()  # adopts the orphaned spool on its first pass
    try:
        assert survivor.flush(30)
        for _ in range(300):
            if len(_rows(db, tenant_id)) == 3:
                break
            time.sleep(0.05)
    finally:
        survivor.close()
    rows = _rows(db, tenant_id)
    assert sorted(r.event_id for r in rows) == sorted(recorded_ids)
    assert not list(tmp_path.glob(f"*{SPOOL_SUFFIX}"))
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok
