"""Retention purge on the session's database (SQLite, or Postgres with its partitions when WARDEN_DATABASE_URL is
set): expired months of non-held tenants go, the chain is re-anchored and still verifies, in the database, through
its signed checkpoints and in an export; every purge is an audit record."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from pathlib import Path

import pytest
from gateway_support import aged_records, chain_seqs, tenant_with_retention, unique_name
from sqlalchemy import select, text, update

from gateway.audit.chain import record_hash_of
from gateway.audit.models import AuditChainAnchor, AuditRecord
from gateway.audit.partitions import chain_table, is_partitioned, maintain_partitions, month_partitions, month_start
from gateway.audit.retention import PURGE_ENDPOINT, purge_expired, run_maintenance
from gateway.audit.verify import verify_chains
from gateway.cli import main
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.export.checkpoints import checkpoint_once, verify_checkpoints
from gateway.export.models import AuditExport
from gateway.export.signing import load_or_create_signer
from gateway.export.stream import ExportFormat, ExportRequest, begin_export, stream_export
from gateway.export.verify import verify_export
from gateway.tenants.models import Tenant

AGED_DAYS = 100


def _purged(results: list, chain_id: str):  # type: ignore[no-untyped-def]
    return next((p for p in results if p.chain_id == chain_id), None)


def test_purge_drops_expired_months_of_tenants_not_on_hold(db: Database, settings: Settings, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    short = tenant_with_retention(db, 30, prefix="retention")
    long = tenant_with_retention(db, 3650, prefix="retention")
    held = tenant_with_retention(db, 30, legal_hold=True, prefix="retention")
    for tenant_id in (short, long, held):
        aged_records(db, tenant_id, 10, aged=6, days=AGED_DAYS)
    maintain_partitions(db)  # Postgres: the aged rows sit in each chain's default partition until now
    signer = load_or_create_signer(tmp_path / "signing.pem")
    checkpoint_once(db, signer)
    with db.session() as session:
        partitioned = is_partitioned(session)
        aged_month = month_start(utcnow() - timedelta(days=AGED_DAYS))
        if partitioned:
            for tenant_id in (short, long, held):
                months = [m.start for m in month_partitions(tenant_id, session=session)]
                assert aged_month in months and month_start(utcnow()) in months
                default_rows = session.scalar(text(f"SELECT count(*) FROM {chain_table(tenant_id)}_default"))
                assert default_rows == 0
        hash_of_6 = session.scalar(select(AuditRecord.record_hash)
                                   .where(AuditRecord.chain_id == short, AuditRecord.seq == 6))

    # A dry run names what is due and changes nothing.
    monkeypatch.setenv("WARDEN_DATABASE_URL", settings.database_url)
    assert main(["audit", "purge", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"chain {short}: would drop 6 record(s)" in out and "dry run" in out
    assert f"chain {held}: kept records before" in out and "legal hold" in out
    assert long not in out
    assert chain_seqs(db, short) == list(range(1, 11))

    results = purge_expired(db, default_days=90).chains
    purge = _purged(results, short)
    assert purge is not None and purge.skipped is None and (purge.rows, purge.first_seq) == (6, 7)
    assert _purged(results, long) is None  # 100 days is well inside ten years
    assert _purged(results, held).skipped == "legal hold"
    # The purged chain keeps 7..10 and gains the purge's own record; the others keep everything.
    assert chain_seqs(db, short) == list(range(7, 12))
    assert chain_seqs(db, long) == chain_seqs(db, held) == list(range(1, 11))
    with db.session() as session:
        anchor = session.get(AuditChainAnchor, short)
        assert anchor is not None and (anchor.first_seq, anchor.prev_hash) == (7, hash_of_6)
        record = session.scalar(select(AuditRecord).where(AuditRecord.chain_id == short, AuditRecord.seq == 11))
        assert record is not None and record.endpoint == PURGE_ENDPOINT and record.tenant_id == short
        assert record.record_hash == record_hash_of(record)
        assert record.decisions[0]["details"]["rows"] == 6 and record.decisions[0]["actor"] == "system:retention"
        if partitioned:
            months = [m.start for m in month_partitions(short, session=session)]
            assert aged_month not in months and month_start(utcnow()) in months
            assert aged_month in [m.start for m in month_partitions(long, session=session)]
        for tenant_id in (short, long, held):  # (other tests leave deliberately tampered chains behind)
            report = verify_chains(session=session, chain_id=tenant_id)
            assert report.ok, report.broken
            assert verify_checkpoints(signer.public_key, session=session, chain_id=tenant_id) == []

    # `warden audit verify` agrees, and an export of what remains verifies offline.
    assert main(["audit", "verify", "--tenant", short]) == 0
    assert "ok" in capsys.readouterr().out
    request = ExportRequest(export_id=unique_name("export"), format=ExportFormat.JSONL, tenant_id=short,
                            start=None, end=None, requested_by="test")
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"".join(stream_export(db, signer, request, begin_export(db, request))))
    with db.session() as session:
        manifest = session.get(AuditExport, request.export_id).manifest  # type: ignore[union-attr]
    assert manifest["first_seq"] == 7
    result = verify_export(path, manifest, signer.public_key)
    assert result.ok and result.rows == 5, result.problems

    # A second round finds nothing more to do.
    assert _purged(purge_expired(db, default_days=90).chains, short) is None
    assert chain_seqs(db, short) == list(range(7, 12))


def test_a_chain_purged_entirely_stays_verifiable(db: Database) -> None:
    tenant_id = tenant_with_retention(db, 30, prefix="retention")
    aged_records(db, tenant_id, 4, aged=4, days=AGED_DAYS)
    (purge,) = [p for p in purge_expired(db, default_days=90).chains if p.chain_id == tenant_id]
    assert (purge.rows, purge.first_seq) == (4, 5)
    assert chain_seqs(db, tenant_id) == [5]  # only the purge's own record
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok


def test_lifting_a_legal_hold_lets_the_next_round_purge(db: Database) -> None:
    tenant_id = tenant_with_retention(db, 30, legal_hold=True, prefix="retention")
    aged_records(db, tenant_id, 5, aged=3, days=AGED_DAYS)
    assert _purged(purge_expired(db, default_days=90).chains, tenant_id).skipped == "legal hold"
    with db.transaction() as session:
        session.execute(update(Tenant).where(Tenant.id == tenant_id).values(legal_hold=False))
    purge = _purged(purge_expired(db, default_days=90).chains, tenant_id)
    assert purge is not None and (purge.rows, purge.first_seq) == (3, 4)
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok


async def test_the_periodic_task_makes_partitions_and_purges(db: Database) -> None:
    tenant_id = tenant_with_retention(db, 30, prefix="retention")
    aged_records(db, tenant_id, 3, aged=2, days=AGED_DAYS)
    task = asyncio.create_task(run_maintenance(db, interval_s=0.05, default_days=90, purge=True))
    try:
        for _ in range(200):
            await asyncio.sleep(0.05)
            if chain_seqs(db, tenant_id) == [3, 4]:
                break
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert chain_seqs(db, tenant_id) == [3, 4]  # the two aged records went; the purge record joined
