"""The audit drain in a process of its own: it stores what is spooled, survives being killed mid-batch without losing
or doubling a record, and ends with its writer."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gateway_support import unique_name
from sqlalchemy import func, select

from gateway.audit.drain_process import DrainProcess
from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.verify import verify_chains
from gateway.audit.writer import DRAIN_NICENESS, AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.tenants.service import create_tenant


def _event(tenant_id: str, i: int) -> AuditEvent:
    return AuditEvent(created_at=utcnow(), request_id=f"req_{i}", endpoint="chat.completions", http_status=200,
                      latency_ms=1.0 + i, overhead_ms=0.5, tenant_id=tenant_id, model="m", prompt_tokens=i,
                      decisions=[{"stage": "rate_limit", "decision": "admitted"}],
                      content={"mode": "redacted", "prompt": [{"role": "user", "content": f"record {i}"}]})


def _tenant(db: Database) -> str:
    with db.transaction() as session:
        return create_tenant(unique_name(), session=session).id


def _seqs_and_ids(db: Database, tenant_id: str) -> tuple[list[int], list[str]]:
    with db.session() as session:
        rows = session.execute(select(AuditRecord.seq, AuditRecord.event_id)
                               .where(AuditRecord.chain_id == tenant_id).order_by(AuditRecord.seq)).all()
    return [row.seq for row in rows], [row.event_id for row in rows]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_drain_stores_from_a_child_process_that_ends_with_the_writer(db: Database, tmp_path: Path) -> None:
    tenant_id = _tenant(db)
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=0.02)
    writer.start()
    try:
        events = [_event(tenant_id, i) for i in range(20)]
        for event in events:
            writer.record_sync(event)
        assert writer.flush(60)
        process = writer.drain_process
        assert process is not None and process.pid is not None and process.pid != os.getpid()
        child = process.pid
        assert _alive(child)
        assert sorted(_seqs_and_ids(db, tenant_id)[1]) == sorted(e.event_id for e in events)
    finally:
        writer.close()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:  # reaped by close(): gone, not a zombie either
        time.sleep(0.02)
    assert not _alive(child)
    assert writer.drain_process is None


def test_the_drain_child_runs_nicer_than_the_serving_process_so_its_batches_yield_the_core(
        db: Database, tmp_path: Path) -> None:
    tenant_id = _tenant(db)
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=0.02)
    writer.start()
    try:
        writer.record_sync(_event(tenant_id, 0))
        assert writer.flush(60)
        process = writer.drain_process
        assert process is not None and process.pid is not None
        own = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == min(19, own + DRAIN_NICENESS) > own or own == 19
        assert os.getpriority(os.PRIO_PROCESS, 0) == own  # the serving process keeps its own priority
    finally:
        writer.close()


def test_the_thread_drain_stores_in_the_serving_process(db: Database, tmp_path: Path) -> None:
    tenant_id = _tenant(db)
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=0.02, drain="thread")
    writer.start()
    try:
        events = [_event(tenant_id, i) for i in range(5)]
        for event in events:
            writer.record_sync(event)
        assert writer.flush(30)
        assert writer.drain_process is None
        assert sorted(_seqs_and_ids(db, tenant_id)[1]) == sorted(e.event_id for e in events)
    finally:
        writer.close()


def test_a_drain_process_killed_mid_batch_loses_and_doubles_nothing(db: Database, tmp_path: Path) -> None:
    """SIGKILL the child again and again while it stores batches: each batch it was storing is sent again to its
    replacement, and the chain ends with every record once, in an unbroken sequence that verifies."""
    tenant_id = _tenant(db)
    writer = AuditWriter(db, tmp_path / "spool", batch_size=50, flush_interval_s=60.0)
    writer.start()
    try:
        events = [_event(tenant_id, i) for i in range(1500)]
        for start in range(0, len(events), 100):
            writer.record_batch_sync(events[start:start + 100])  # 30 whole batches wait: the drain runs at once
        writer._wake.set()
        deadline = time.monotonic() + 60
        while writer.drain_process is None and time.monotonic() < deadline:  # its first child is up
            time.sleep(0.01)
        kills = 0
        while writer.pending_bytes > 0 and kills < 6 and time.monotonic() < deadline:
            time.sleep(0.03)
            process = writer.drain_process
            pid = None if process is None else process.pid
            if pid is not None and _alive(pid):
                os.kill(pid, signal.SIGKILL)
                kills += 1
        assert kills >= 2  # the drain was still busy: the kills landed while it stored batches
        assert writer.flush(120)
        assert writer.drain_process is not None and writer.drain_process.starts >= 2  # a dead child is replaced
        seqs, ids = _seqs_and_ids(db, tenant_id)
        assert seqs == list(range(1, len(events) + 1))  # none doubled, no gap
        assert sorted(ids) == sorted(e.event_id for e in events)  # none lost
        with db.session() as session:
            assert verify_chains(session=session, chain_id=tenant_id).ok
            assert session.scalar(select(func.count()).select_from(AuditRecord)
                                  .where(AuditRecord.chain_id == tenant_id)) == len(events)
    finally:
        writer.close()


def test_a_drain_process_that_cannot_start_leaves_the_drain_in_the_serving_process(
        db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No process to be had (the process table full: ``fork`` fails with EAGAIN): the records are still stored."""
    def no_process(self: DrainProcess) -> None:
        raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN))

    monkeypatch.setattr(DrainProcess, "start", no_process)
    tenant_id = _tenant(db)
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=0.02)
    writer.start()
    try:
        events = [_event(tenant_id, i) for i in range(5)]
        for event in events:
            writer.record_sync(event)
        assert writer.flush(30)
        assert writer.drain_process is None and writer.last_error is None
        assert sorted(_seqs_and_ids(db, tenant_id)[1]) == sorted(e.event_id for e in events)
    finally:
        writer.close()


_LOGGING_PROBE = """
import sys
from pathlib import Path
from gateway.audit.drain_process import DrainProcess
from gateway.core.db import Database
from gateway.telemetry.logs import configure_logging

configure_logging(sys.argv[3])
db = Database(sys.argv[1])
process = DrainProcess(db, Path(sys.argv[2]))
try:
    assert process.store_lines([sys.argv[4].encode() + b"\\n"]) == 1  # not an event: the child logs its quarantine
finally:
    process.stop()
    db.dispose()
"""


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_the_drain_process_logs_in_the_serving_process_format(database_url: str, tmp_path: Path,
                                                              log_format: str) -> None:
    # A fresh interpreter: its fork server (and so the child) writes to the stderr captured here.
    result = subprocess.run([sys.executable, "-c", _LOGGING_PROBE, database_url, str(tmp_path / "spool"), log_format,
                             f"not an event {unique_name()}"],
                            cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if "audit record quarantined" in line]
    assert len(lines) == 1, result.stderr
    if log_format == "json":
        entry = json.loads(lines[0])
        assert entry["logger"] == "gateway.audit.quarantine" and entry["level"] == "error"
        assert entry["message"].startswith("audit record quarantined")
    else:
        assert " ERROR gateway.audit.quarantine: audit record quarantined" in lines[0]
