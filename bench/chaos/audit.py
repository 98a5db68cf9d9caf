"""What the audit trail holds after a scenario: the rows present for the request ids the clients saw answered (read
straight from the suite's Postgres), and ``warden audit verify`` over every chain."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Collection
from dataclasses import dataclass

import psycopg

from bench.chaos.warden import WardenServer, cli


def present_request_ids(dsn: str, request_ids: Collection[str]) -> set[str]:
    if not request_ids:
        return set()
    with psycopg.connect(dsn) as connection:
        rows = connection.execute("SELECT DISTINCT request_id FROM audit_records WHERE request_id = ANY(%s)",
                                  (list(request_ids),)).fetchall()
    return {row[0] for row in rows}


def outcomes(dsn: str, request_ids: Collection[str]) -> dict[str, int]:
    """How the audit rows of ``request_ids`` end: ``finish_reason`` or ``error_type`` (or the status), counted."""
    if not request_ids:
        return {}
    with psycopg.connect(dsn) as connection:
        rows = connection.execute(
            "SELECT coalesce(error_type, finish_reason, http_status::text), count(*) FROM audit_records "
            "WHERE request_id = ANY(%s) GROUP BY 1", (list(request_ids),)).fetchall()
    return {str(row[0]): int(row[1]) for row in rows}


def wait_for_rows(dsn: str, request_ids: Collection[str], timeout_s: float) -> set[str]:
    """The ids with a row once all are there or ``timeout_s`` passed (the spool drains in the background). A
    database that cannot be reached counts as no rows yet."""
    deadline = time.monotonic() + timeout_s
    present: set[str] = set()
    while True:
        with contextlib.suppress(psycopg.Error):
            present = present_request_ids(dsn, request_ids)
        if len(present) >= len(set(request_ids)) or time.monotonic() > deadline:
            return present
        time.sleep(0.5)


@dataclass
class VerifyResult:
    ok: bool
    output: str


def verify_chains(warden: WardenServer) -> VerifyResult:
    result = cli(warden.env(direct=True), "audit", "verify")
    lines = (result.stdout.strip() or result.stderr.strip()).splitlines()
    return VerifyResult(result.returncode == 0, lines[-1] if lines else f"exit {result.returncode}")
