"""A tenant cannot poison the audit trail: unsafe text is refused at the edge, every event is fitted for storage,
and a record the store still refuses is quarantined instead of stalling the records behind it.

Runs on the session's database: Postgres in CI (which refuses NUL in text and JSON, the case that used to stall a
host's trail for good), SQLite locally.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key, unique_name
from sqlalchemy import select

from gateway.app import create_app
from gateway.audit.event import ANONYMOUS_CHAIN, AuditEvent
from gateway.audit.line_store import LineStore
from gateway.audit.models import AuditQuarantine, AuditRecord
from gateway.audit.quarantine import Quarantine, is_record_refusal
from gateway.audit.spool import Spool
from gateway.audit.storable import REPLACEMENT
from gateway.audit.verify import verify_chains
from gateway.audit.writer import AuditUnavailableError, AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings
from gateway.core.text_safety import unsafe_body_param, unsafe_path
from gateway.tenants.service import create_tenant

CHAT = {"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


def _event(tenant_id: str | None, **overrides: object) -> AuditEvent:
    fields: dict[str, object] = dict(created_at=utcnow(), request_id=f"req_{unique_name('r')}", endpoint="chat",
                                     http_status=200, latency_ms=1.0, overhead_ms=0.5, tenant_id=tenant_id,
                                     model="m", decisions=[], content=None)
    fields.update(overrides)
    return AuditEvent(**fields)  # type: ignore[arg-type]


def _tenant(db: Database) -> str:
    with db.transaction() as session:
        return create_tenant(unique_name(), session=session).id


def _records(db: Database, **where: object) -> list[AuditRecord]:
    with db.session() as session:
        query = select(AuditRecord)
        for column, value in where.items():
            query = query.where(getattr(AuditRecord, column) == value)
        return list(session.scalars(query.order_by(AuditRecord.seq)))


def _quarantined(db: Database, event_id: str) -> list[AuditQuarantine]:
    with db.session() as session:
        return list(session.scalars(select(AuditQuarantine).where(AuditQuarantine.event_id == event_id)))


@pytest.fixture
def writer(db: Database, tmp_path: Path) -> Iterator[AuditWriter]:
    audit = AuditWriter(db, tmp_path / "spool", flush_interval_s=0.02)
    audit.start()
    yield audit
    audit.close()


# -- the edge ------------------------------------------------------------------------------------------------------
def test_unsafe_text_is_found_wherever_it_hides() -> None:
    assert unsafe_path({"model": "x\x00y"}) == "model"
    assert unsafe_path({"messages": [{"role": "user", "content": "a\ud800"}]}) == "messages[0].content"
    assert unsafe_path({"a": {"b\x00": 1}}) == "a.b\\u0000"  # the path itself never carries the character
    assert unsafe_path({"a": ["ok", {"b": "\udfff"}]}) == "a[1].b"
    assert unsafe_path({"emoji": "\U0001f600 paired surrogates are fine", "n": 0, "x": None}) is None
    # The escape forms JSON allows, in either case; an escaped backslash before "u0000" is text, not a NUL.
    assert unsafe_body_param(b'{"model": "x\\u0000y"}') == "model"
    assert unsafe_body_param(b'{"m": "\\uD83D"}') == "m"
    assert unsafe_body_param(b'{"m": "\\ud83d\\ude00"}') is None
    assert unsafe_body_param(b'{"m": "C:\\\\u0000dir"}') is None
    assert unsafe_body_param(b'{"m": "plain"}') is None
    assert unsafe_body_param(b'not json \\u0000') is None  # the app's own parser answers that one


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


def _post_raw(client: TestClient, path: str, body: bytes, api_key: str | None = None):
    headers = {"content-type": "application/json"}
    if api_key is not None:
        headers["authorization"] = f"Bearer {api_key}"
    return client.post(path, content=body, headers=headers)


@pytest.mark.parametrize(("body", "param"), [
    (b'{"model": "x\\u0000y", "messages": [{"role": "user", "content": "hi"}]}', "model"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "hi \\ud800 there"}]}', "messages[0].content"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "user": "\\u0000"}', "user"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "metadata": {"k\\u0000": "v"}}',
     "metadata.k\\u0000"),
])
def test_a_nul_or_lone_surrogate_anywhere_is_a_400_and_audited(client: TestClient, db: Database, settings: Settings,
                                                               body: bytes, param: str) -> None:
    _, issued = new_tenant_with_key(db, settings)
    response = _post_raw(client, "/v1/chat/completions", body, issued.api_key)
    assert response.status_code == 400, response.text
    assert response.json() == {"error": {
        "message": f"{param}: text may not contain NUL characters or unpaired UTF-16 surrogates",
        "type": "invalid_request_error", "param": param, "code": "invalid_text"}}
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    (row,) = _records(db, request_id=response.headers[REQUEST_ID_HEADER])
    assert row.http_status == 400
    assert row.decisions == [{"stage": "text_safety", "decision": "refused", "param": param}]


def test_unsafe_text_in_the_url_is_a_400(client: TestClient, db: Database, settings: Settings) -> None:
    _, issued = new_tenant_with_key(db, settings)
    auth = {"authorization": f"Bearer {issued.api_key}"}
    for url in ("/v1/models?x=%00", "/v1/mod%00els", "/admin/v1/audit/export?tenant=a%00b"):
        response = client.get(url, headers=auth)
        assert response.status_code == 400, (url, response.text)
        assert response.json()["error"]["code"] == "invalid_text"


def test_after_a_poisoned_request_the_trail_keeps_recording(client: TestClient, db: Database,
                                                             settings: Settings) -> None:
    """The reported failure: one request with a NUL in the model, then normal requests; every one is recorded
    and the chain verifies."""
    tenant, issued = new_tenant_with_key(db, settings)
    ids = [_post_raw(client, "/v1/chat/completions", b'{"model": "x\\u0000y", "messages": []}',
                     issued.api_key).headers[REQUEST_ID_HEADER]]
    for _ in range(2):
        ids.append(client.post("/v1/chat/completions", json=CHAT,
                               headers={"authorization": f"Bearer {issued.api_key}"}).headers[REQUEST_ID_HEADER])
    audit: AuditWriter = client.app.state.services.audit  # type: ignore[attr-defined]
    assert audit.flush(10)
    assert audit.last_error is None
    # Refused at the edge, before any key is read: the first is on the anonymous chain, the others on the tenant's.
    assert [row.request_id for row in _records(db, request_id=ids[0])] == [ids[0]]
    assert {row.request_id for row in _records(db, chain_id=tenant.id)} == set(ids[1:])
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant.id).ok
        assert verify_chains(session=session, chain_id=ANONYMOUS_CHAIN).ok


# -- every event is storable ---------------------------------------------------------------------------------------
def test_events_are_fitted_for_storage_and_stored(db: Database, writer: AuditWriter) -> None:
    tenant_id = _tenant(db)
    event = _event(tenant_id, model="x\x00y" + "m" * 500, request_id="r\ud800",
                   decisions=[{"stage": "k\x00", "why\udc00": ["a\x00"]}],
                   content={"mode": "full", "prompt": [{"role": "user", "content": "nul \x00 and \ud83d alone"}]})
    writer.record_sync(event)
    assert writer.flush(10)
    assert writer.last_error is None
    (row,) = _records(db, event_id=event.event_id)
    assert row.model is not None and row.model.startswith(f"x{REPLACEMENT}y") and len(row.model) == 200
    assert row.request_id == f"r{REPLACEMENT}"
    assert row.decisions == [{"stage": f"k{REPLACEMENT}", f"why{REPLACEMENT}": [f"a{REPLACEMENT}"]}]
    assert row.content == {"mode": "full", "prompt": [{"role": "user",
                                                       "content": f"nul {REPLACEMENT} and {REPLACEMENT} alone"}]}
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok


# -- the quarantine ------------------------------------------------------------------------------------------------
def _raw_line(event: AuditEvent, **raw: object) -> bytes:
    """A spool line as an older or broken writer might have left it: not fitted for storage."""
    from dataclasses import asdict

    fields = asdict(event)
    fields.update(raw)
    return orjson.dumps(fields) + b"\n"


def _spool_raw(writer: AuditWriter, lines: list[bytes]) -> None:
    spool: Spool = writer._spool  # type: ignore[assignment]
    for line in lines:
        spool.append(line)


def test_a_refused_record_is_quarantined_and_the_rest_are_stored(db: Database, writer: AuditWriter) -> None:
    tenant_id = _tenant(db)
    before, poisoned, after = _event(tenant_id), _event(tenant_id), _event(tenant_id)
    missing_tenant = _event(f"no-such-tenant-{unique_name()}"[:36])  # a foreign key the store refuses everywhere
    # Postgres refuses the NUL; SQLite accepts it, so there the unreadable date stands in for a refused value.
    poison = {"model": "x\x00y"} if _is_postgres(db) else {"created_at": "not a date"}
    lines = [before.to_spool_line(), _raw_line(poisoned, **poison), b"this is not an event\n",
             missing_tenant.to_spool_line(), after.to_spool_line()]
    _spool_raw(writer, lines)
    writer._wake.set()
    assert writer.flush(15)
    assert writer.last_error is None
    assert [row.event_id for row in _records(db, chain_id=tenant_id)] == [before.event_id, after.event_id]
    for event in (poisoned, missing_tenant):
        (entry,) = _quarantined(db, event.event_id)
        assert entry.line == next(line for line in lines if event.event_id.encode() in line)  # byte for byte
        assert "x\x00y" not in entry.reason and tenant_id not in entry.reason
    with db.session() as session:
        assert session.scalar(select(AuditQuarantine.id).where(AuditQuarantine.line == b"this is not an event\n"))
        assert verify_chains(session=session, chain_id=tenant_id).ok


def test_a_replayed_batch_does_not_quarantine_its_refused_lines_twice(db: Database, tmp_path: Path) -> None:
    # A drain that dies after quarantining a batch's refused lines but before saying the batch is stored (a killed
    # drain process; a process whose orphaned spool is replayed) has the whole batch stored again.
    tenant_id = _tenant(db)
    kept, missing_tenant = _event(tenant_id), _event(f"no-such-tenant-{unique_name()}"[:36])
    unreadable = f"not an event {unique_name()}\n".encode()
    lines = [kept.to_spool_line(), missing_tenant.to_spool_line(), unreadable]
    store = LineStore(db, Quarantine(db, tmp_path / "spool"))
    assert store.store_lines(lines) == 2
    assert store.store_lines(lines) == 0  # the replay: nothing new set aside, the stored record not doubled
    assert len(_quarantined(db, missing_tenant.event_id)) == 1
    with db.session() as session:
        assert len(session.scalars(select(AuditQuarantine.id).where(AuditQuarantine.line == unreadable)).all()) == 1
    assert [row.event_id for row in _records(db, chain_id=tenant_id)] == [kept.event_id]
    # A different line of the same event (a stream's provisional record, then its final one) is its own entry.
    other_line = missing_tenant.to_spool_line().replace(b'"http_status":200', b'"http_status":499')
    assert store.store_lines([other_line]) == 1
    assert len(_quarantined(db, missing_tenant.event_id)) == 2


def _is_postgres(db: Database) -> bool:
    return db.engine.dialect.name == "postgresql"


def test_outages_are_not_refusals() -> None:
    from sqlalchemy.exc import IntegrityError, OperationalError

    class Unique(Exception):
        sqlstate = "23505"

    class ForeignKey(Exception):
        sqlstate = "23503"

    assert not is_record_refusal(OperationalError("SELECT 1", {}, Exception("connection refused")))
    assert not is_record_refusal(IntegrityError("INSERT", {}, Unique()))  # a racing writer: retried
    assert is_record_refusal(IntegrityError("INSERT", {}, ForeignKey()))
    assert not is_record_refusal(RuntimeError("anything else"))


# -- the spool's disk ----------------------------------------------------------------------------------------------
def test_a_failed_append_leaves_no_torn_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write past RLIMIT_FSIZE is short (then EFBIG): the spool cuts its file back to the last whole line. (The
    zeros written ahead are made few, so the next line needs more of them: that write is the one cut short.)"""
    import resource
    import signal

    from gateway.audit import spool as spool_module

    monkeypatch.setattr(spool_module, "PREALLOCATE_BYTES", 16)
    monkeypatch.setattr(spool_module, "_ZEROS", bytes(16))
    spool = Spool(tmp_path)
    spool.append(b'{"a": 1}\n')
    size = os.path.getsize(spool.path)
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 4, old_limit[1]))
        with pytest.raises(OSError):
            spool.append(b'{"b": "a line that does not fit"}\n')
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)
    assert spool.path.read_bytes() == b'{"a": 1}\n'
    spool.append(b'{"c": 3}\n')
    assert spool.read_pending(10)[0] == [b'{"a": 1}\n', b'{"c": 3}\n']
    spool.close(remove=True)


def test_an_unwritable_spool_falls_back_to_the_database(db: Database, writer: AuditWriter) -> None:
    tenant_id = _tenant(db)
    spool: Spool = writer._spool  # type: ignore[assignment]
    os.close(spool._fd)
    spool._fd = os.open(os.devnull, os.O_RDONLY)  # every write now fails (EBADF), as on a read-only remount
    try:
        event = _event(tenant_id)
        writer.record_sync(event)  # durable in the database instead
        assert [row.event_id for row in _records(db, event_id=event.event_id)] == [event.event_id]
        writer.ensure_available()  # the database is up: streams may start
    finally:
        os.close(spool._fd)
        spool._fd = os.open(spool.path, os.O_WRONLY)  # as the spool opens it: lines land where it writes them


def test_with_neither_store_a_record_fails_closed_and_is_held(tmp_path: Path) -> None:
    unreachable = Database("sqlite:////nonexistent-dir/warden/unreachable.db")
    writer = AuditWriter(unreachable, tmp_path / "spool", flush_interval_s=0.02)
    writer.start()
    spool: Spool = writer._spool  # type: ignore[assignment]
    os.close(spool._fd)
    spool._fd = os.open(os.devnull, os.O_RDONLY)
    try:
        event = _event(None)
        with pytest.raises(AuditUnavailableError):
            writer.record_sync(event)
        with pytest.raises(AuditUnavailableError):
            writer.ensure_available()  # a stream is refused before its first byte
        assert writer.pending_bytes >= len(event.to_spool_line())  # held, not dropped
    finally:
        os.close(spool._fd)
        spool._fd = os.open(spool.path, os.O_WRONLY)  # as the spool opens it: lines land where it writes them
    deadline = time.monotonic() + 10
    # The spool works again: the held record is spooled (the database is still down). The held line leaves memory
    # only once its append has returned; the line alone is in the file while that append is still syncing.
    while writer._held and time.monotonic() < deadline:
        time.sleep(0.05)
    assert writer.pending_bytes == len(spool.path.read_bytes().split(b"\0", 1)[0])
    assert spool.read_pending(10)[0] == [event.to_spool_line()]
    writer.ensure_available()
    writer._stop.set()
    writer._wake.set()
    unreachable.dispose()


def test_operators_see_the_quarantine_in_the_admin_api(client: TestClient, db: Database, settings: Settings) -> None:
    from gateway.adminauth.roles import Role
    from gateway.adminauth.setup import mint_local_token

    tenant, _ = new_tenant_with_key(db, settings)
    other, _ = new_tenant_with_key(db, settings)
    writer: AuditWriter = client.app.state.services.audit  # type: ignore[attr-defined]
    refused = _event(tenant.id)
    _spool_raw(writer, [_raw_line(refused, created_at="not a date")])
    writer._wake.set()
    assert writer.flush(10)

    def get(role: Role, tenant_id: str | None, query: str):
        token = mint_local_token(settings, role, tenant_id=tenant_id, subject=f"test:{role.value}")
        return client.get(f"/admin/v1/audit/quarantine{query}", headers={"authorization": f"Bearer {token}"})

    response = get(Role.PLATFORM_ADMIN, None, f"?tenant={tenant.id}")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["total"] == 1
    (entry,) = body["records"]
    assert (entry["event_id"], entry["chain_id"]) == (refused.event_id, tenant.id)
    assert entry["reason"].startswith("UnreadableLine") and refused.event_id in entry["line"]
    assert get(Role.TENANT_ADMIN, tenant.id, "").json()["total"] == 1  # its own chain by default
    assert get(Role.TENANT_ADMIN, other.id, "").json()["total"] == 0
    assert get(Role.TENANT_ADMIN, other.id, f"?tenant={tenant.id}").status_code == 404  # never another tenant's


# -- a gateway killed mid-stream -----------------------------------------------------------------------------------
def test_a_stream_cut_by_a_killed_gateway_is_recorded_as_interrupted(db: Database, tmp_path: Path) -> None:
    """A process journals two streams' provisional records; one stream ends (its final record spooled), then the
    process dies. The next writer stores the finished stream's final record and the cut one's provisional record:
    one record per stream, each under the event id the stream was given."""
    import subprocess
    import sys
    import textwrap

    tenant_id = _tenant(db)
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pathlib import Path
        from gateway.audit.writer import AuditWriter
        from gateway.core.db import Database
        from gateway.core.middleware import RequestTiming
        from gateway.openai.call_record import CallRecord
        writer = AuditWriter(Database("sqlite:////nonexistent-dir/warden/unreachable.db"), Path({str(tmp_path)!r}))
        writer.start()
        records = [CallRecord(endpoint="chat.completions", request_id=f"req_{{i}}", timing=RequestTiming(0),
                              tenant_id={tenant_id!r}, model="m", prompt_tokens=7) for i in range(2)]
        for record in records:
            writer.open_stream(record.provisional_event())
        records[0].completion_tokens = 5
        records[0].finish_reason = "stop"
        writer.record_sync(records[0].to_event(200))
        print(",".join(record.event_id for record in records), flush=True)
        os._exit(0)  # killed: no close, no drain
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    finished_id, cut_id = done.stdout.strip().split(",")
    survivor = AuditWriter(db, tmp_path, flush_interval_s=0.01)
    survivor.start()
    try:
        deadline = time.monotonic() + 30
        while len(_records(db, chain_id=tenant_id)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        survivor.close()
    rows = {row.event_id: row for row in _records(db, chain_id=tenant_id)}
    assert set(rows) == {finished_id, cut_id}
    assert (rows[finished_id].error_type, rows[finished_id].completion_tokens) == (None, 5)
    cut = rows[cut_id]
    assert (cut.http_status, cut.error_type, cut.finish_reason, cut.prompt_tokens) == (200, "interrupted",
                                                                                      "interrupted", 7)
    assert not list(tmp_path.glob("*.spool")) and not list(tmp_path.glob("*.open"))
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant_id).ok


def test_a_process_that_ends_its_streams_leaves_no_journal(db: Database, tmp_path: Path) -> None:
    from gateway.core.middleware import RequestTiming
    from gateway.openai.call_record import CallRecord

    writer = AuditWriter(db, tmp_path, flush_interval_s=0.01)
    writer.start()
    record = CallRecord(endpoint="chat.completions", request_id="req_j", timing=RequestTiming(0), model="m")
    writer.open_stream(record.provisional_event())
    (journal,) = tmp_path.glob("*.open")
    assert record.event_id.encode() in journal.read_bytes()
    writer.record_sync(record.to_event(200))
    assert journal.stat().st_size == 0  # no stream open: the journal starts over
    writer.close()
    assert not list(tmp_path.glob("*.open")) and not list(tmp_path.glob("*.spool"))
