"""The audit drain's CPU per stored batch: this checkout's ``LineStore`` against another tree's, in alternating rounds.

The drain process shares the gateway's cores, so the CPU it spends storing a batch of spooled lines (parsing them,
chaining and hashing each record, the driver's work on the rows) is CPU a serving process does not get. Each tree
runs in a worker process of its own (its tree first on ``sys.path``) that stores batches of ``--batch-size`` lines
into its own chain of one fresh Postgres database when told to; the parent tells them in turn (A B A B ...) so both
meet the same machine load, and reports the median over rounds of each round's median CPU per batch (the worker's
own process time) and of the database server's CPU per batch (its backend process's, read from ``/proc`` over the
round: Postgres on this machine). At the end each tree verifies the chain the other tree stored: records chained by
either must verify with either.

    WARDEN_DATABASE_URL=postgresql+psycopg://... \\
        python -m bench.overhead_drain --baseline-tree /tmp/base --rounds 8 --batches 20

Results: ``--out`` (JSON), default ``/tmp/overhead_drain.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
WARMUP_BATCHES = 5


def _worker(database_url: str, tenant_id: str, batch_size: int) -> None:
    """Run in a tree's worker: read commands on stdin, answer one JSON line each on stdout."""
    from gateway.audit.event import AuditEvent
    from gateway.audit.line_store import LineStore
    from gateway.audit.quarantine import Quarantine
    from gateway.audit.verify import verify_chains
    from gateway.core.clock import utcnow
    from gateway.core.db import Database

    db = Database(database_url)
    store = LineStore(db, Quarantine(db, Path(os.environ.get("TMPDIR", "/tmp")) / f"drain-bench-{os.getpid()}"))
    counter = 0

    def batch() -> list[bytes]:
        # The record a chat completion through the core path leaves: two decisions, no content kept.
        nonlocal counter
        lines = []
        for _ in range(batch_size):
            counter += 1
            lines.append(AuditEvent(
                created_at=utcnow(), request_id=f"req_{uuid.uuid4().hex}", endpoint="chat.completions",
                http_status=200, latency_ms=1.25 + counter % 97 / 7, overhead_ms=0.5 + counter % 13 / 11,
                tenant_id=tenant_id, key_id="k_0123456789abcdef", model="smollm2-135m-instruct",
                finish_reason="length", prompt_tokens=30, completion_tokens=2, policy_version=3,
                decisions=[{"stage": "rate_limit", "decision": "admitted", "remaining": 1000 - counter % 1000},
                           {"stage": "policy", "decision": "allowed", "version": 3}]).to_spool_line())
        return lines

    from sqlalchemy import text

    def backend_cpu_s() -> float | None:
        """The CPU time of the database server process serving this worker's connection (one connection: the
        worker stores one batch at a time), where it runs on this machine."""
        with db.session() as session:
            pid = session.scalar(text("SELECT pg_backend_pid()"))
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    for line in sys.stdin:
        command = json.loads(line)
        if command["do"] == "round":
            cpu_ms = []
            db_before = backend_cpu_s()
            for index in range(WARMUP_BATCHES * command.get("warm", 0) + command["batches"]):
                lines = batch()
                started = time.process_time()
                store.store_lines(lines)
                if index >= WARMUP_BATCHES * command.get("warm", 0):
                    cpu_ms.append((time.process_time() - started) * 1e3)
            db_after = backend_cpu_s()
            answer: dict[str, Any] = {"cpu_ms": cpu_ms, "db_cpu_ms_per_batch": None if db_before is None or db_after
                                      is None else (db_after - db_before) * 1e3 / len(cpu_ms)}
        else:  # verify
            with db.session() as session:
                report = verify_chains(session=session, chain_id=command["chain"])
            answer = {"ok": report.ok, "records": report.records, "broken": [str(b) for b in report.broken]}
        print(json.dumps(answer), flush=True)
    db.dispose()


def _fresh_database(base_url: str) -> tuple[str, Any]:
    from sqlalchemy import create_engine, make_url, text

    from gateway.core.db import normalize_database_url

    url = make_url(normalize_database_url(base_url))
    name = f"warden_drainbench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    return url.set(database=name).render_as_string(hide_password=False), (admin, name)


def _drop_database(handle: Any) -> None:
    from sqlalchemy import text

    admin, name = handle
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


class _Worker:
    def __init__(self, tree: Path, database_url: str, tenant_id: str, batch_size: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", "--database-url", database_url,
             "--tenant", tenant_id, "--batch-size", str(batch_size)],
            cwd=tree, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise RuntimeError(f"worker ended (exit code {self.process.wait()})")
        result: dict[str, Any] = json.loads(answer)
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-tree", type=Path, required=False, help="a checkout of the code to compare with")
    parser.add_argument("--baseline-label", default="baseline")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--batches", type=int, default=20, help="batches per round")
    parser.add_argument("--batch-size", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("/tmp/overhead_drain.json"))
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--database-url", help=argparse.SUPPRESS)
    parser.add_argument("--tenant", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker(args.database_url, args.tenant, args.batch_size)
        return

    sys.path.insert(0, str(ROOT))
    from bench.provenance import write_results
    from gateway.core.db import Database
    from gateway.core.migrate import upgrade_database
    from gateway.tenants.service import create_tenant

    base_url = os.environ.get("WARDEN_DATABASE_URL", "")
    if not base_url.startswith(("postgresql", "postgres")):
        raise SystemExit("set WARDEN_DATABASE_URL to a Postgres server: the drain's COPY path is Postgres's")
    database_url, handle = _fresh_database(base_url)
    trees = {"this": ROOT}
    if args.baseline_tree is not None:
        trees[args.baseline_label] = args.baseline_tree.resolve()
    workers: dict[str, _Worker] = {}
    try:
        upgrade_database(database_url)
        db = Database(database_url)
        tenants = {}
        with db.transaction() as session:
            for label in trees:
                tenants[label] = create_tenant(f"drain-bench-{label}-{uuid.uuid4().hex[:6]}", session=session).id
        db.dispose()
        workers = {label: _Worker(tree, database_url, tenants[label], args.batch_size) for label, tree in trees.items()}
        medians: dict[str, list[float]] = {label: [] for label in trees}
        db_cpu: dict[str, list[float]] = {label: [] for label in trees}
        for round_index in range(args.rounds):
            for label, worker in workers.items():
                answer = worker.ask({"do": "round", "batches": args.batches, "warm": int(round_index == 0)})
                medians[label].append(statistics.median(answer["cpu_ms"]))
                if answer["db_cpu_ms_per_batch"] is not None and round_index > 0:  # the first round warms up
                    db_cpu[label].append(answer["db_cpu_ms_per_batch"])
            print(f"round {round_index + 1}: " + ", ".join(f"{label} {values[-1]:.2f} ms"
                                                            for label, values in medians.items()), flush=True)
        cross = {}
        for label, worker in workers.items():  # each tree verifies every chain, its own and the other's
            for chain_label, tenant_id in tenants.items():
                cross[f"{label} verifies {chain_label}"] = worker.ask({"do": "verify", "chain": tenant_id})
    finally:
        for worker in workers.values():
            worker.close()
        _drop_database(handle)
    summary = {label: {"cpu_ms_per_batch_median": round(statistics.median(values), 3),
                       "cpu_us_per_record": round(statistics.median(values) / args.batch_size * 1e3, 2),
                       "round_medians_ms": [round(v, 3) for v in values],
                       "db_server_cpu_ms_per_batch_median": round(statistics.median(db_cpu[label]), 2)
                       if db_cpu[label] else None} for label, values in medians.items()}
    report = {"batch_size": args.batch_size, "rounds": args.rounds, "batches_per_round": args.batches,
              "load_average": os.getloadavg(), "trees": {label: str(tree) for label, tree in trees.items()},
              "results": summary, "cross_verification": cross}
    print(json.dumps({"results": summary, "cross_verification": cross}, indent=2))
    if not all(check["ok"] for check in cross.values()):
        raise SystemExit("a chain failed to verify")
    write_results(args.out, report)


if __name__ == "__main__":
    main()
