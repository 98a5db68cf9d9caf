"""The audit writer's promise under group commit, in a real process killed mid-stream: every record it acknowledged
(``AuditWriter.record`` returned) is in the part of its spool an fsync had covered, so a crash of the machine, which
can lose anything written but not yet synced, loses no acknowledged record; and records share fsyncs.

The child runs the real writer on a slow disk: each sync of the spool (``fsync`` or ``fdatasync``) takes 20 ms more, and
is logged, once it has returned, with the end of the lines in the file when it began (what it covered: the file is
written ahead with zeros, so its size is not that end). Records are asked for every millisecond, so
several are always waiting on a sync. The parent kills the child with SIGKILL, then cuts the spool back to the largest
end a finished sync covered (zeroing the bytes after it: the worst a power cut leaves) and reads it back as an
adopter does, looking for every acknowledged record there. A writer
that acknowledged a record before its sync had finished fails this (``early_ack``, checked here too: the check must
find what such a writer loses): with syncs this slow, records written but not yet synced are always in flight when
the kill comes.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gateway.audit.event import AuditEvent
from gateway.audit.spool import claim_orphans

CHILD = r"""
import asyncio, os, sys, time
from pathlib import Path

from gateway.audit.event import AuditEvent
from gateway.audit.writer import AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database

spool_dir, sync_log, ack_log, database = (Path(arg) for arg in sys.argv[1:5])
if sys.argv[5] == "early_ack":  # the broken writer the test must catch: appends return before their sync
    import threading
    from gateway.audit.spool import Spool
    sync_through = Spool._sync_through
    Spool._sync_through = lambda self, seq: threading.Thread(target=sync_through, args=(self, seq)).start()
sync_fd = os.open(sync_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)


def slow_logged(real_sync):
    def sync(fd):
        path = os.readlink(f"/proc/self/fd/{fd}")
        covered = 0
        if path.endswith(".spool"):
            with open(path, "rb") as f:
                data = f.read().split(b"\0", 1)[0]
            covered = data.rfind(b"\n") + 1
        time.sleep(0.02)
        real_sync(fd)
        os.write(sync_fd, f"{path}\t{covered}\n".encode())
    return sync


os.fsync, os.fdatasync = slow_logged(os.fsync), slow_logged(os.fdatasync)


async def main():
    # The drain never runs (a batch of a million, an hour apart): the spool alone holds what was acknowledged.
    writer = AuditWriter(Database(f"sqlite:///{database}"), spool_dir, batch_size=1_000_000, flush_interval_s=3600.0)
    writer.start()
    ack_fd = os.open(ack_log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    in_flight = set()

    async def record(i):
        event = AuditEvent(created_at=utcnow(), request_id=f"req_{i}", endpoint="chat.completions", http_status=200,
                           latency_ms=1.0, overhead_ms=0.5, tenant_id="tenant", model="m", prompt_tokens=i,
                           decisions=[], content={"mode": "none"})
        await writer.record(event)
        os.write(ack_fd, (event.event_id + "\n").encode())

    i = 0
    while True:
        task = asyncio.ensure_future(record(i))
        in_flight.add(task)
        task.add_done_callback(in_flight.discard)
        i += 1
        await asyncio.sleep(0.001)


asyncio.run(main())
"""


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


@pytest.mark.parametrize("writer", ["as_built", "early_ack"])
def test_every_acknowledged_record_survives_a_crash_after_a_kill(tmp_path: Path, writer: str) -> None:
    spool_dir, sync_log, ack_log = tmp_path / "spool", tmp_path / "syncs.log", tmp_path / "acks.log"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(spool_dir), str(sync_log), str(ack_log),
                              str(tmp_path / "audit.db"), writer], cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.monotonic() + 60
        while len(_lines(ack_log)) < 300:
            assert child.poll() is None, "the child ended on its own"
            assert time.monotonic() < deadline, "the child acknowledged too few records"
            time.sleep(0.01)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)

    acknowledged = set(_lines(ack_log))
    (spool,) = spool_dir.glob("*.spool")
    synced = [int(size) for path, size in (line.split("\t") for line in _lines(sync_log)) if path == str(spool)]
    written = spool.read_bytes()
    covered = max(synced)  # a crash may lose every byte no finished sync covered
    spool.write_bytes(written[:covered] + bytes(len(written) - covered))
    (orphan,) = claim_orphans(spool_dir, None)
    kept = {AuditEvent.from_spool_line(line).event_id for line in orphan.lines()}
    orphan.release()
    if writer == "early_ack":  # the check catches a writer that acknowledges before the sync
        assert acknowledged - kept
        return
    assert acknowledged - kept == set()
    assert len(synced) < len(acknowledged)  # records waiting on one sync shared the next

