"""Analysis workers forked from the fork server that preloads a built analyzer: a worker killed past its scan budget
is replaced by a fork that comes with the analyzer built, whose findings are the in-process analyzer's; and the audit
drain, which shares that fork server and its preload list, still starts and stores.

Run in a fresh interpreter: which modules the fork server preloads is fixed when it starts, once per process, and
in this test process another module's test may have started it already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = r"""
import json, sys, time
from pathlib import Path

import psutil

from bench.guard_budget import digit_groups
from gateway.audit.event import AuditEvent
from gateway.audit.writer import AuditWriter  # the drain registers its modules on import, before any child starts
from gateway.core import forkserver
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.migrate import upgrade_database
from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.budget import ScanBudget, ScanBudgetExceeded
from gateway.guardrails.processes import AnalysisProcesses
from gateway.tenants.service import create_tenant

TEXTS = [
    "Ticket 1042: Dana Kowalski (dana@example.org, +1 415 555 1042) in Denver was charged twice in March.",
    "Bonjour, je suis Amélie Rousseau de Toulouse; Wiryanto Hadiyanto m'a écrit depuis Lyon le 3 mars.",
    "Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, born 12/07/1979, 10 Downing Street, London.",
]


def findings(result):
    return [[repr(finding) for finding in text] for text in result]


report = {}
processes = AnalysisProcesses(1)
report["first"] = findings(processes.analyze_many(TEXTS, ner_enabled=True))
(first_pid,) = processes.worker_pids()
report["first_preloaded"] = processes._workers[0].ready.result()
try:
    processes.analyze_many([digit_groups(200_000, seed=7)], ner_enabled=False, budget=ScanBudget(0.3))
    report["refused"] = False
except ScanBudgetExceeded:
    report["refused"] = True
(pid,) = processes.worker_pids()


def gone(pid):
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


deadline = time.monotonic() + 10
while not gone(first_pid) and time.monotonic() < deadline:  # killed, not burning on
    time.sleep(0.05)
report["replaced"] = pid != first_pid and gone(first_pid)
report["next"] = findings(processes.analyze_many(TEXTS, ner_enabled=True, budget=ScanBudget(2.0)))
report["next_preloaded"] = processes._workers[0].ready.result()
server = psutil.Process(pid).ppid()
report["worker_parent_is_not_us"] = server != psutil.Process().pid
processes.shutdown()
report["in_process"] = findings(PiiAnalyzer().analyze_many(TEXTS, ner_enabled=True))

url = f"sqlite:///{sys.argv[1]}/audit.db"
upgrade_database(url)
db = Database(url)
with db.transaction() as session:
    tenant_id = create_tenant("forkserver-drain", session=session).id
writer = AuditWriter(db, Path(sys.argv[1]) / "spool", flush_interval_s=0.02)
writer.start()
for i in range(5):
    writer.record_sync(AuditEvent(created_at=utcnow(), request_id=f"req_{i}", endpoint="chat.completions",
                                  http_status=200, latency_ms=1.0, overhead_ms=0.5, tenant_id=tenant_id, model="m",
                                  prompt_tokens=i, decisions=[], content={"mode": "none"}))
report["drained"] = writer.flush(60)
drain = writer.drain_process
report["drain_parent_is_the_fork_server"] = drain is not None and drain.pid is not None and (
    psutil.Process(drain.pid).ppid() == server)
writer.close()
from sqlalchemy import func, select
from gateway.audit.models import AuditRecord
with db.session() as session:
    report["stored"] = session.execute(select(func.count()).select_from(AuditRecord)
                                       .where(AuditRecord.chain_id == tenant_id)).scalar_one()
report["preload"] = forkserver.preloaded()
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = Path(__file__).resolve().parents[2]
    env = {key: value for key, value in os.environ.items() if not key.startswith("WARDEN_")}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path_factory.mktemp("forkserver"))], cwd=root,
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_workers_come_built_from_the_fork_server(report: dict[str, object]) -> None:
    assert report["first_preloaded"] is True and report["worker_parent_is_not_us"] is True
    preload = report["preload"]
    assert isinstance(preload, list)
    assert {"__main__", "gateway.audit.drain_process", "gateway.guardrails.warm_analyzer"} <= set(preload)


def test_a_worker_killed_past_its_budget_is_replaced_by_a_built_one_with_the_same_findings(
        report: dict[str, object]) -> None:
    assert report["refused"] is True and report["replaced"] is True
    assert report["next_preloaded"] is True
    assert report["next"] == report["first"] == report["in_process"]
    first = report["first"]
    assert isinstance(first, list) and all(first)  # every text has findings: the comparison has something to compare


def test_the_drain_shares_the_fork_server_and_still_stores(report: dict[str, object]) -> None:
    assert report["drained"] is True and report["drain_parent_is_the_fork_server"] is True
    assert report["stored"] == 5
