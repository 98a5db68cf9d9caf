"""POST /admin/v1/audit/purge on the session's database (SQLite, or Postgres with its partitions when
WARDEN_DATABASE_URL is set): the same retention round as ``warden audit purge``, for platform-admins only; a dry run
changes nothing, a real one drops expired months and the chain still verifies; a tenant on legal hold is kept."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from admin_support import admin_rows, auth, token_for
from fastapi.testclient import TestClient
from gateway_support import aged_records, chain_seqs, tenant_with_retention
from sqlalchemy import select

from gateway import cli
from gateway.adminauth.roles import Role
from gateway.audit import retention
from gateway.audit.models import AuditChainAnchor, AuditRecord
from gateway.audit.partitions import (
    chain_table,
    is_partitioned,
    maintain_partitions,
    month_partitions,
    month_start,
    month_table,
)
from gateway.audit.retention import PURGE_ENDPOINT
from gateway.audit.verify import verify_chains
from gateway.core.clock import as_utc, utcnow
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings

PURGE = "/admin/v1/audit/purge"
AGED_DAYS = 100  # well past a 30-day retention, well inside ten years


def _records(client: TestClient, db: Database, tenant_id: str, count: int, *, aged: int) -> None:
    """``count`` records, the first ``aged`` of them recorded AGED_DAYS ago (as in test_audit_retention: the writer
    stamps recorded_at, so an old chain is made by moving the stamp back)."""
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]  # the app's writer is idle
    aged_records(db, tenant_id, count, aged=aged, days=AGED_DAYS)
    maintain_partitions(db)  # Postgres: the aged rows move from the chain's default partition to their month's


def _chain(report: dict[str, Any], chain_id: str) -> dict[str, Any] | None:
    return next((c for c in report["chains"] if c["chain_id"] == chain_id), None)


def _verifies(db: Database, chain_id: str) -> None:
    with db.session() as session:
        report = verify_chains(session=session, chain_id=chain_id)
    assert report.ok, report.broken


def test_dry_run_reports_then_purge_drops_and_the_chain_verifies(client: TestClient, db: Database,
                                                                platform: dict[str, str]) -> None:
    short, long = tenant_with_retention(db, 30, prefix="purge"), tenant_with_retention(db, 3650, prefix="purge")
    held = tenant_with_retention(db, 30, legal_hold=True, prefix="purge")
    for tenant_id in (short, long, held):
        _records(client, db, tenant_id, 10, aged=6)
    with db.session() as session:
        partitioned = is_partitioned(session)
        hash_of_6 = session.scalar(select(AuditRecord.record_hash)
                                   .where(AuditRecord.chain_id == short, AuditRecord.seq == 6))
    aged_table = month_table(chain_table(short), month_start(utcnow() - timedelta(days=AGED_DAYS)))

    # A dry run reports what is due and changes nothing: no row goes, no purge record joins the chain.
    dry = client.post(PURGE, json={"dry_run": True}, headers=platform)
    assert dry.status_code == 200, dry.text
    report = dry.json()
    assert report["dry_run"] is True and report["rows"] >= 6
    would = _chain(report, short)
    assert would is not None
    assert (would["rows"], would["first_seq"], would["retention_days"], would["skipped"]) == (6, 7, 30, None)
    assert would["partitions"] == ([aged_table] if partitioned else [])
    assert _chain(report, long) is None  # nothing of it is due
    kept = _chain(report, held)
    assert kept is not None and (kept["skipped"], kept["rows"]) == ("legal hold", 0)
    assert chain_seqs(db, short) == chain_seqs(db, held) == chain_seqs(db, long) == list(range(1, 11))
    with db.session() as session:
        assert session.get(AuditChainAnchor, short) is None

    # The request itself is an admin action record (the platform-admin's: the anonymous chain), apart from the
    # admin.audit.purge records a real purge appends to each purged chain.
    (row,) = admin_rows(client, db, dry.headers[REQUEST_ID_HEADER])
    assert (row.chain_id, row.endpoint, row.http_status) == ("anonymous", "admin.audit.purge_now", 200)
    details = row.decisions[0]["details"]
    assert details["dry_run"] is True and details["chains"][short] == 6 and details["skipped"][held] == "legal hold"

    # The real run drops what the dry run named.
    done = client.post(PURGE, json={"dry_run": False}, headers=platform)
    assert done.status_code == 200, done.text
    report = done.json()
    purged = _chain(report, short)
    assert report["dry_run"] is False and purged == would
    assert _chain(report, held)["skipped"] == "legal hold"  # type: ignore[index]
    assert chain_seqs(db, short) == list(range(7, 12))  # 7..10 remain, 11 is the purge's own record
    assert chain_seqs(db, long) == chain_seqs(db, held) == list(range(1, 11))
    with db.session() as session:
        anchor = session.get(AuditChainAnchor, short)
        assert anchor is not None and (anchor.first_seq, anchor.prev_hash) == (7, hash_of_6)
        assert as_utc(anchor.purged_before) == datetime.fromisoformat(purged["purged_before"])
        record = session.scalar(select(AuditRecord).where(AuditRecord.chain_id == short, AuditRecord.seq == 11))
        assert record is not None and record.endpoint == PURGE_ENDPOINT
        decision = record.decisions[0]
        assert decision["actor"] == "admin:test:platform-admin:None"  # the token's subject (admin_support)
        # The API reports per chain exactly the document the chain's purge record holds.
        assert set(decision["details"]) == set(purged)
        assert {**decision["details"], "purged_before": None} == {**purged, "purged_before": None}
        assert datetime.fromisoformat(decision["details"]["purged_before"]) == datetime.fromisoformat(
            purged["purged_before"])
        if partitioned:  # dropped as a table, not emptied row by row
            assert aged_table not in [m.name for m in month_partitions(short, session=session)]
    for tenant_id in (short, long, held):
        _verifies(db, tenant_id)

    # A second round finds nothing more to do in that chain.
    again = client.post(PURGE, json={"dry_run": False}, headers=platform).json()
    assert _chain(again, short) is None and chain_seqs(db, short) == list(range(7, 12))


def test_a_tenant_on_legal_hold_is_kept_until_the_hold_is_lifted(client: TestClient, db: Database,
                                                                 platform: dict[str, str]) -> None:
    tenant_id = tenant_with_retention(db, 30, legal_hold=True, prefix="purge")
    _records(client, db, tenant_id, 5, aged=3)
    held = client.post(PURGE, json={}, headers=platform)  # dry_run defaults to false
    assert held.status_code == 200
    assert _chain(held.json(), tenant_id)["skipped"] == "legal hold"  # type: ignore[index]
    assert chain_seqs(db, tenant_id) == [1, 2, 3, 4, 5]

    lifted = client.patch(f"/admin/v1/tenants/{tenant_id}", json={"legal_hold": False}, headers=platform)
    assert lifted.status_code == 200
    # No body at all is the same as {} (as for the other admin POSTs with an optional body): a real round.
    purged = _chain(client.post(PURGE, headers=platform).json(), tenant_id)
    assert purged is not None and (purged["rows"], purged["first_seq"], purged["skipped"]) == (3, 4, None)
    assert chain_seqs(db, tenant_id)[0] == 4
    _verifies(db, tenant_id)


def test_only_a_platform_admin_may_purge(client: TestClient, db: Database, settings: Settings) -> None:
    tenant_id = tenant_with_retention(db, 30, prefix="purge")
    _records(client, db, tenant_id, 4, aged=2)
    callers = {"tenant-admin": token_for(settings, Role.TENANT_ADMIN, tenant_id),
               "auditor": token_for(settings, Role.AUDITOR)}
    for name, token in callers.items():
        for body in ({"dry_run": True}, {"dry_run": False}):
            response = client.post(PURGE, json=body, headers=auth(token))
            assert response.status_code == 403, (name, response.text)
            assert response.json()["error"]["code"] == "insufficient_role"
            assert tenant_id not in response.text
    assert client.post(PURGE, json={"dry_run": False}).status_code == 401

    # The refusal is audited where the tenant-admin's own auditors see it: in its chain, which lost nothing (the
    # refusals' records joined it after seq 4) and gained no purge record.
    refused = client.post(PURGE, json={"dry_run": False}, headers=auth(callers["tenant-admin"]))
    (row,) = admin_rows(client, db, refused.headers[REQUEST_ID_HEADER])
    assert (row.chain_id, row.endpoint, row.http_status) == (tenant_id, "admin.audit.purge_now", 403)
    assert row.decisions[0]["decision"] == "refused"
    assert chain_seqs(db, tenant_id)[:4] == [1, 2, 3, 4]
    with db.session() as session:
        assert session.get(AuditChainAnchor, tenant_id) is None
        assert PURGE_ENDPOINT not in session.scalars(select(AuditRecord.endpoint)
                                                     .where(AuditRecord.chain_id == tenant_id)).all()


@pytest.mark.parametrize("body", [{"dry_run": True, "tenant": "x"}, {"dryrun": True}, {"dry_run": "yes"},
                                  {"dry_run": 1}, ["dry_run"]])
def test_a_malformed_body_is_refused_before_anything_runs(client: TestClient, db: Database,
                                                          platform: dict[str, str], body: object) -> None:
    tenant_id = tenant_with_retention(db, 30, prefix="purge")
    _records(client, db, tenant_id, 3, aged=2)
    response = client.post(PURGE, json=body, headers=platform)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and error["message"]
    assert chain_seqs(db, tenant_id) == [1, 2, 3]
    (row,) = admin_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert (row.endpoint, row.http_status) == ("admin.audit.purge_now", 400)


def test_a_chain_whose_purge_fails_is_reported_and_the_others_still_purge(
        client: TestClient, db: Database, platform: dict[str, str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], settings: Settings) -> None:
    broken, fine = tenant_with_retention(db, 30, prefix="purge"), tenant_with_retention(db, 30, prefix="purge")
    for tenant_id in (broken, fine):
        _records(client, db, tenant_id, 4, aged=2)
    real_purge_chain = retention.purge_chain

    def failing(chain_id: str, **kwargs: Any) -> Any:
        if chain_id == broken:
            raise RuntimeError("disk full")
        return real_purge_chain(chain_id, **kwargs)

    monkeypatch.setattr(retention, "purge_chain", failing)
    response = client.post(PURGE, json={"dry_run": False}, headers=platform)
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["failed"] == [broken] and _chain(report, broken) is None
    assert _chain(report, fine)["rows"] == 2  # type: ignore[index]
    assert chain_seqs(db, broken) == [1, 2, 3, 4]  # rolled back whole
    (row,) = admin_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert row.decisions[0]["details"]["failed"] == [broken]

    # The CLI prints the failure and exits non-zero, so a cron job notices.
    monkeypatch.setenv("WARDEN_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("WARDEN_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("WARDEN_SERVER_SECRET", "test-server-secret")
    assert cli.main(["audit", "purge", "--dry-run"]) == 1
    assert f"chain {broken}: FAILED" in capsys.readouterr().out
