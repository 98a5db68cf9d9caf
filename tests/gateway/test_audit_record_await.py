"""``AuditWriter.record`` on the event loop: the event is in the spool when it returns, and a cancelled caller is told
only once its record is durable."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from gateway_support import unique_name
from sqlalchemy import select

from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.writer import AuditWriter
from gateway.core.clock import utcnow
from gateway.core.db import Database


def _event() -> AuditEvent:
    return AuditEvent(created_at=utcnow(), request_id=f"req_{unique_name('r')}", endpoint="chat", http_status=200,
                      latency_ms=1.0, overhead_ms=0.5, tenant_id=None, model="m", decisions=[], content=None)


class _GatedWriter(AuditWriter):
    """Holds each batch of records until ``gate`` opens: a slow disk, on purpose."""

    def __init__(self, db: Database, spool_dir: Path) -> None:
        super().__init__(db, spool_dir, flush_interval_s=60.0)
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.finished: list[str] = []
        self.batches: list[int] = []  # each batch's size

    def record_batch_sync(self, events: list[AuditEvent]) -> list[BaseException | None]:
        self.entered.set()
        self.gate.wait(10)
        outcomes = super().record_batch_sync(events)
        self.finished.extend(event.event_id for event in events)
        self.batches.append(len(events))
        return outcomes


def _spooled_ids(writer: AuditWriter) -> list[str]:
    assert writer._spool is not None
    lines, _ = writer._spool.read_pending(100)
    return [AuditEvent.from_spool_line(line).event_id for line in lines]


def test_a_record_is_in_the_spool_when_it_returns(db: Database, tmp_path: Path) -> None:
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=60.0)
    writer.start()
    try:
        events = [_event() for _ in range(5)]

        async def record_all() -> None:
            await asyncio.gather(*(writer.record(event) for event in events))

        asyncio.run(record_all())
        assert sorted(_spooled_ids(writer)) == sorted(e.event_id for e in events)
    finally:
        writer.close()


def test_a_cancelled_caller_waits_for_its_record_to_be_durable(db: Database, tmp_path: Path) -> None:
    writer = _GatedWriter(db, tmp_path / "spool")
    writer.start()
    event = _event()
    try:
        async def cancel_mid_record() -> tuple[bool, bool, bool]:
            task = asyncio.ensure_future(writer.record(event))
            await asyncio.to_thread(writer.entered.wait, 10)
            task.cancel()
            await asyncio.sleep(0.2)
            waited = not task.done()  # still waiting on the thread, cancelled or not
            task.cancel()  # a second cancellation changes nothing
            await asyncio.sleep(0.05)
            waited_again = not task.done()
            writer.gate.set()
            try:
                await task
            except asyncio.CancelledError:
                return waited, waited_again, True
            return waited, waited_again, False

        waited, waited_again, cancelled = asyncio.run(cancel_mid_record())
        assert waited and waited_again and cancelled
        assert writer.finished == [event.event_id]
        assert _spooled_ids(writer) == [event.event_id]
    finally:
        writer.gate.set()
        writer.close()


def test_records_asked_for_while_a_batch_is_in_flight_go_together_in_the_next(db: Database, tmp_path: Path) -> None:
    writer = _GatedWriter(db, tmp_path / "spool")
    writer.start()
    first, *others = events = [_event() for _ in range(6)]
    try:
        async def record_while_held() -> None:
            held = asyncio.ensure_future(writer.record(first))
            await asyncio.to_thread(writer.entered.wait, 10)  # the first batch is in the (slow) spool
            rest = [asyncio.ensure_future(writer.record(event)) for event in others]
            await asyncio.sleep(0.05)
            assert not held.done() and not any(task.done() for task in rest)  # none answered before it is durable
            writer.gate.set()
            await asyncio.gather(held, *rest)

        asyncio.run(record_while_held())
        assert writer.batches == [1, 5]
        assert sorted(writer.finished) == sorted(e.event_id for e in events)
        assert sorted(_spooled_ids(writer)) == sorted(e.event_id for e in events)
    finally:
        writer.gate.set()
        writer.close()


def test_an_event_that_cannot_be_written_fails_its_own_caller_only(db: Database, tmp_path: Path) -> None:
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=60.0)
    writer.start()
    good, bad = _event(), _event()
    bad.decisions = [{"not json": {1, 2}}]  # a set: orjson refuses it
    try:
        async def record_both() -> tuple[BaseException | None, BaseException | None]:
            return await asyncio.gather(writer.record(good), writer.record(bad), return_exceptions=True)

        outcomes = asyncio.run(record_both())
        assert outcomes[0] is None and isinstance(outcomes[1], TypeError)
        assert _spooled_ids(writer) == [good.event_id]
    finally:
        writer.close()


def test_a_record_asked_for_after_close_is_still_made_durable(db: Database, tmp_path: Path) -> None:
    writer = AuditWriter(db, tmp_path / "spool", flush_interval_s=60.0)
    writer.start()
    before = _event()
    asyncio.run(writer.record(before))
    writer.close()  # the record thread stops; a late record (a request finishing during shutdown) still lands
    late = _event()
    asyncio.run(writer.record(late))
    with db.session() as session:
        stored = set(session.scalars(select(AuditRecord.event_id).where(
            AuditRecord.event_id.in_([before.event_id, late.event_id]))))
    assert stored == {before.event_id, late.event_id}
