"""Compliance export: streamed files verify offline; any edit, deletion or truncation is named; memory stays
flat with row count; signed checkpoints catch truncation of the newest records even with the head rewritten."""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from admin_support import auth, token_for
from fastapi.testclient import TestClient
from gateway_support import unique_name
from sqlalchemy import delete, func, select, update

from gateway.adminauth.roles import Role
from gateway.app import create_app
from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditChainHead, AuditRecord
from gateway.audit.store import append_events
from gateway.cli import main
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.export.checkpoints import checkpoint_once, run_checkpoints, verify_checkpoints
from gateway.export.models import AuditCheckpoint
from gateway.export.signing import Signer, load_or_create_signer, load_public_key
from gateway.export.stream import ExportFormat, ExportRequest, begin_export, stream_export
from gateway.export.verify import verify_export
from gateway.tenants.service import create_tenant


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    settings.audit_checkpoint_interval_s = 0  # checkpoints are written explicitly here
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


@pytest.fixture
def platform(settings: Settings) -> dict[str, str]:
    return auth(token_for(settings, Role.PLATFORM_ADMIN))


def _events(tenant_id: str, count: int, *, start_index: int = 0, hours_ago: float = 0.0) -> list[AuditEvent]:
    created = utcnow() - timedelta(hours=hours_ago)
    return [AuditEvent(created_at=created, request_id=f"req-{start_index + i}", endpoint="chat.completions",
                       http_status=200 if i % 7 else 429, latency_ms=10.0 + i / 3, overhead_ms=0.25,
                       tenant_id=tenant_id, key_id="k" * 16, model="smollm2-135m-instruct",
                       error_type=None if i % 7 else "rate_limit_error", prompt_tokens=i % 50, completion_tokens=3,
                       policy_version=1, decisions=[{"stage": "rate_limit", "decision": "admitted"}],
                       content={"mode": "hashes", "prompt_sha256": f"{i:064x}"})
            for i in range(count)]


def _store(db: Database, events: list[AuditEvent], batch: int = 2000) -> None:
    for first in range(0, len(events), batch):
        with db.transaction() as session:
            append_events(events[first:first + batch], session=session)


def _tenant_with_records(client: TestClient, db: Database, count: int) -> str:
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("export"), session=session).id
    _store(db, _events(tenant_id, count))
    return tenant_id


def _download(client: TestClient, headers: dict[str, str], tmp_path: Path, **params: Any) -> tuple[Path, dict]:
    response = client.get("/admin/v1/audit/export", params=params, headers=headers)
    assert response.status_code == 200, response.text
    export_id = response.headers["x-warden-export-id"]
    assert response.headers["link"] == f'</admin/v1/audit/exports/{export_id}/manifest>; rel="manifest"'
    path = tmp_path / f"{export_id}.{params.get('format', 'jsonl')}"
    path.write_bytes(response.content)
    manifest = client.get(f"/admin/v1/audit/exports/{export_id}/manifest", headers=headers)
    assert manifest.status_code == 200, manifest.text
    return path, manifest.json()


@pytest.fixture
def public_key(client: TestClient, platform: dict[str, str]) -> Any:
    body = client.get("/admin/v1/audit/public-key", headers=platform).json()
    assert body["algorithm"] == "Ed25519"
    return load_public_key(body["public_key_pem"].encode())


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_verifies_and_every_tampering_is_named(client: TestClient, db: Database, platform: dict[str, str],
                                                      public_key: Any, tmp_path: Path, fmt: str) -> None:
    tenant_id = _tenant_with_records(client, db, 300)
    path, manifest = _download(client, platform, tmp_path, tenant=tenant_id, format=fmt)
    assert (manifest["row_count"], manifest["first_seq"], manifest["last_seq"]) == (300, 1, 300)
    assert manifest["tenant"] == tenant_id and manifest["format"] == fmt
    result = verify_export(path, manifest, public_key)
    assert result.ok, result.problems
    assert result.rows == 300

    lines = path.read_bytes().splitlines(keepends=True)
    header = lines[:1] if fmt == "csv" else []
    body = lines[1:] if fmt == "csv" else lines

    def check(data: bytes, *expected: str) -> None:
        tampered = tmp_path / f"tampered.{fmt}"
        tampered.write_bytes(data)
        outcome = verify_export(tampered, manifest, public_key)
        assert not outcome.ok
        text = "\n".join(outcome.problems)
        for phrase in expected:
            assert phrase in text, text

    # One byte flipped inside a record: the file hash and that record's own hash.
    row = body[120]
    at = row.index(b"req-") + 4
    flipped = row[:at] + bytes([row[at] ^ 0x01]) + row[at + 1:]
    check(b"".join(header + body[:120] + [flipped] + body[121:]), "SHA-256", "seq 121", "edited")
    # A record deleted from the middle: the gap is named.
    check(b"".join(header + body[:50] + body[51:]), "seq 51 is missing", "299 rows")
    # The newest records cut off: counts and last seq against the signed manifest.
    check(b"".join(header + body[:250]), "ending at seq 250", "manifest says 300 rows")
    # The manifest edited to match a truncated file: its signature breaks.
    forged = {**manifest, "row_count": 250}
    outcome = verify_export(path, forged, public_key)
    assert any("signature does not verify" in p for p in outcome.problems)
    # Another key: refused.
    other = load_or_create_signer(tmp_path / "other.pem")
    assert not verify_export(path, manifest, other.public_key).ok


def test_cli_verify_export_exit_codes(client: TestClient, db: Database, platform: dict[str, str], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    tenant_id = _tenant_with_records(client, db, 40)
    path, manifest = _download(client, platform, tmp_path, tenant=tenant_id)
    manifest_path = tmp_path / "manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    key_path = tmp_path / "public.pem"
    key_path.write_text(client.get("/admin/v1/audit/public-key", headers=platform).json()["public_key_pem"])
    assert main(["audit", "verify-export", str(path), str(manifest_path), "--public-key", str(key_path)]) == 0
    assert "40 row(s) checked: ok" in capsys.readouterr().out
    path.write_bytes(path.read_bytes()[:-200])
    assert main(["audit", "verify-export", str(path), str(manifest_path), "--public-key", str(key_path)]) == 2
    out = capsys.readouterr().out
    assert "FAILED" in out and "VERIFICATION FAILED" in out


def test_public_key_as_pem_and_the_cli_reads_either_form(client: TestClient, db: Database, platform: dict[str, str],
                                                         tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = client.get("/admin/v1/audit/public-key", headers=platform).json()
    pem = client.get("/admin/v1/audit/public-key", headers={**platform, "accept": "application/x-pem-file"})
    assert pem.status_code == 200 and pem.headers["content-type"].startswith("application/x-pem-file")
    assert pem.text == document["public_key_pem"]
    ranked = client.get("/admin/v1/audit/public-key",
                        headers={**platform, "accept": "application/x-pem-file;q=0.5, application/json"})
    assert ranked.json() == document  # JSON ranked higher wins
    tenant_id = _tenant_with_records(client, db, 5)
    path, manifest = _download(client, platform, tmp_path, tenant=tenant_id)
    manifest_path = tmp_path / "manifest.json"
    manifest_path.write_text(json.dumps(manifest))
    for name, body in (("public.pem", pem.text), ("public.json", json.dumps(document))):
        key_path = tmp_path / name
        key_path.write_text(body)
        assert main(["audit", "verify-export", str(path), str(manifest_path), "--public-key", str(key_path)]) == 0
        assert "5 row(s) checked: ok" in capsys.readouterr().out
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({**document, "key_id": "0" * 32}))
    assert main(["audit", "verify-export", str(path), str(manifest_path), "--public-key", str(forged)]) != 0
    assert "key_id" in capsys.readouterr().err


def test_csv_round_trips_nulls_backslashes_and_quotes(client: TestClient, db: Database, platform: dict[str, str],
                                                      public_key: Any, tmp_path: Path) -> None:
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name(), session=session).id
    odd = _events(tenant_id, 3)
    odd[0].model, odd[0].key_id = "", None  # empty text vs NULL
    odd[1].model = "\\N"  # looks like the NULL marker
    odd[2].request_id = 'quote " comma , newline \n and é'
    odd[2].content = None
    _store(db, odd)
    path, manifest = _download(client, platform, tmp_path, tenant=tenant_id, format="csv")
    result = verify_export(path, manifest, public_key)
    assert result.ok, result.problems


def test_time_range_selects_a_contiguous_verifiable_run(client: TestClient, db: Database, platform: dict[str, str],
                                                        public_key: Any, tmp_path: Path) -> None:
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name(), session=session).id
    _store(db, _events(tenant_id, 10, hours_ago=48) + _events(tenant_id, 20, start_index=10, hours_ago=24)
           + _events(tenant_id, 5, start_index=30))
    start = (utcnow() - timedelta(hours=30)).isoformat()
    end = (utcnow() - timedelta(hours=12)).isoformat()
    path, manifest = _download(client, platform, tmp_path, tenant=tenant_id, **{"from": start, "to": end})
    assert (manifest["first_seq"], manifest["last_seq"], manifest["row_count"]) == (11, 30, 20)
    assert verify_export(path, manifest, public_key).ok
    bad = client.get("/admin/v1/audit/export", params={"tenant": tenant_id, "from": end, "to": start},
                     headers=platform)
    assert bad.status_code == 400


def test_export_of_every_chain_for_auditors(client: TestClient, db: Database, settings: Settings,
                                            public_key: Any, tmp_path: Path) -> None:
    first = _tenant_with_records(client, db, 5)
    second = _tenant_with_records(client, db, 7)
    auditor = auth(token_for(settings, Role.AUDITOR))
    path, manifest = _download(client, auditor, tmp_path)
    parts = {c["chain_id"]: c["rows"] for c in manifest["chains"]}
    assert parts[first] == 5 and parts[second] == 7 and manifest["first_seq"] is None
    assert verify_export(path, manifest, public_key).ok
    # An auditor reads; it does not administer.
    assert client.post("/admin/v1/audit/checkpoints", headers=auditor).status_code == 403


def test_checkpoints_detect_truncation_of_the_newest_records(client: TestClient, db: Database,
                                                             platform: dict[str, str], public_key: Any,
                                                             tmp_path: Path) -> None:
    tenant_id = _tenant_with_records(client, db, 50)
    assert client.post("/admin/v1/audit/checkpoints", headers=platform).json()["written"] >= 1
    _store(db, _events(tenant_id, 10, start_index=50))
    assert client.post("/admin/v1/audit/checkpoints", headers=platform).json()["written"] >= 1
    with db.session() as session:
        assert verify_checkpoints(public_key, session=session, chain_id=tenant_id) == []
    latest = client.get("/admin/v1/audit/checkpoints", params={"tenant": tenant_id}, headers=platform).json()
    assert [(c["seq"], c["chain_id"]) for c in latest] == [(60, tenant_id)]
    # The admin calls above are audited into this chain too: let them land before the tampering, so no
    # legitimate append races the attacker's delete (which would leave a gap rather than a clean truncation).
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]

    # Someone with database access deletes the newest 5 records and rewrites the head to match: the chain
    # itself now verifies, but the signed checkpoint contradicts it.
    with db.transaction() as session:
        session.execute(delete(AuditRecord).where(AuditRecord.chain_id == tenant_id, AuditRecord.seq > 55))
        last_hash = session.scalar(select(AuditRecord.record_hash).where(AuditRecord.chain_id == tenant_id,
                                                                         AuditRecord.seq == 55))
        session.execute(update(AuditChainHead).where(AuditChainHead.chain_id == tenant_id)
                        .values(last_seq=55, last_hash=last_hash))
    with db.session() as session:
        (problem,) = verify_checkpoints(public_key, session=session, chain_id=tenant_id)
    assert "newest records were removed" in str(problem)

    path, manifest = _download(client, platform, tmp_path, tenant=tenant_id)
    result = verify_export(path, manifest, public_key)
    assert any("newest records are missing" in p for p in result.problems), result.problems


def test_manifest_exists_only_for_a_complete_export(client: TestClient, db: Database, settings: Settings,
                                                    platform: dict[str, str]) -> None:
    tenant_id = _tenant_with_records(client, db, 30)
    signer: Signer = client.app.state.admin.signer  # type: ignore[attr-defined]
    request = ExportRequest(export_id=str(uuid.uuid4()), format=ExportFormat.JSONL, tenant_id=tenant_id,
                            start=None, end=None, requested_by="test")
    parts = begin_export(db, request)
    manifest_url = f"/admin/v1/audit/exports/{request.export_id}/manifest"
    assert client.get(manifest_url, headers=platform).status_code == 409  # still streaming
    chunks = stream_export(db, signer, request, parts)
    next(chunks)
    chunks.close()  # the client went away mid-stream
    response = client.get(manifest_url, headers=platform)
    assert response.status_code == 409 and "failed" in response.json()["error"]["message"]
    # A tenant-admin of another tenant cannot even learn that the export exists.
    with db.transaction() as session:
        other = create_tenant(unique_name(), session=session).id
    assert client.get(manifest_url, headers=auth(token_for(settings, Role.TENANT_ADMIN, other))).status_code == 404


def _peak_bytes_streaming(db: Database, signer: Signer, tenant_id: str) -> tuple[int, int]:
    request = ExportRequest(export_id=str(uuid.uuid4()), format=ExportFormat.JSONL, tenant_id=tenant_id,
                            start=None, end=None, requested_by="test")
    parts = begin_export(db, request)
    gc.collect()
    tracemalloc.start()
    try:
        size = sum(len(chunk) for chunk in stream_export(db, signer, request, parts))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return size, peak


@pytest.mark.slow
def test_export_memory_does_not_grow_with_rows(client: TestClient, db: Database, public_key: Any,
                                               tmp_path: Path) -> None:
    small = _tenant_with_records(client, db, 2_000)
    large = _tenant_with_records(client, db, 20_000)
    signer: Signer = client.app.state.admin.signer  # type: ignore[attr-defined]
    small_size, small_peak = _peak_bytes_streaming(db, signer, small)
    large_size, large_peak = _peak_bytes_streaming(db, signer, large)
    print(f"export peak traced memory: {small_peak / 1e6:.1f} MB for {small_size / 1e6:.1f} MB of output, "
          f"{large_peak / 1e6:.1f} MB for {large_size / 1e6:.1f} MB")
    assert large_size > 9 * small_size
    # Ten times the rows (about 10 MB of output), not ten times the memory: the peak is a few pages of rows
    # and one output chunk either way.
    assert large_peak < 2 * small_peak + 2_000_000, (small_peak, large_peak)

    with db.session() as session:
        assert session.scalar(select(func.count()).select_from(AuditRecord)
                              .where(AuditRecord.chain_id == large)) == 20_000
    checkpoint_once(db, signer)
    path, manifest = _download(client, auth(token_for(client.app.state.services.settings,  # type: ignore[attr-defined]
                                                      Role.PLATFORM_ADMIN)), tmp_path, tenant=large)
    result = verify_export(path, manifest, public_key)
    assert result.ok and result.rows == 20_000


async def test_the_app_writes_checkpoints_periodically(db: Database, settings: Settings, tmp_path: Path) -> None:
    with db.transaction() as session:
        tenant_id = create_tenant(unique_name(), session=session).id
    _store(db, _events(tenant_id, 3))
    signer = load_or_create_signer(tmp_path / "key.pem")
    task = asyncio.create_task(run_checkpoints(db, signer, interval_s=0.05))
    try:
        for _ in range(200):
            await asyncio.sleep(0.05)
            with db.session() as session:
                if session.scalar(select(AuditCheckpoint.seq).where(AuditCheckpoint.chain_id == tenant_id)):
                    break
    finally:
        task.cancel()
    with db.session() as session:
        seqs = list(session.scalars(select(AuditCheckpoint.seq).where(AuditCheckpoint.chain_id == tenant_id)))
    assert seqs == [3]  # one per head movement, not one per round
