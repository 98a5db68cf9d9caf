"""A stream answered from a stale key or policy (a store outage) says so in its provisional record too: the record
journalled before the first byte, stored if the gateway dies mid-stream, carries the same ``stale`` decisions as the
final record, and a request that read nothing stale journals none."""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.audit.event import AuditEvent
from gateway.audit.writer import AuditWriter
from gateway.core.db import Database
from gateway.core.errors import StoreUnavailable
from gateway.core.middleware import RequestTiming
from gateway.core.stale_cache import StaleTolerantCache, begin_stale_tracking
from gateway.openai.call_record import CallRecord

STALE = {"decision": "stale", "reason": "store_unavailable"}


@pytest.fixture
def writer(db: Database, tmp_path: Path) -> Iterator[AuditWriter]:
    audit = AuditWriter(db, tmp_path, flush_interval_s=0.01)
    audit.start()
    yield audit
    audit.close()


def _journalled(tmp_path: Path) -> dict[str, AuditEvent]:
    (journal,) = tmp_path.glob("*.open")
    events = [AuditEvent.from_spool_line(line) for line in journal.read_bytes().splitlines(keepends=True)]
    return {event.request_id: event for event in events}


def _open_stream(writer: AuditWriter, request_id: str, *, outage: bool) -> None:
    """One request's course up to its first byte, in a context of its own as the server gives each request: its
    key and policy read through the caches (the store down: served stale), then its stream journalled."""
    cache: StaleTolerantCache[str, str] = StaleTolerantCache(ttl_s=0.0, stale_window_s=60.0, max_entries=10)
    cache.put("key", "tenant")
    cache.put("policy", "v1")

    def load() -> str:
        if outage:
            raise StoreUnavailable(5, stage="auth")
        return "fresh"

    begin_stale_tracking()
    assert cache.read_through("key", load, stage="auth", retry_after_s=5) is not None
    assert cache.read_through("policy", load, stage="policy", retry_after_s=5) is not None
    record = CallRecord(endpoint="chat.completions", request_id=request_id, timing=RequestTiming(0), model="m")
    writer.open_stream(record.provisional_event())


def test_the_provisional_record_of_a_stale_served_stream_is_flagged(writer: AuditWriter, tmp_path: Path) -> None:
    contextvars.copy_context().run(_open_stream, writer, "req_stale", outage=True)
    contextvars.copy_context().run(_open_stream, writer, "req_fresh", outage=False)
    journalled = _journalled(tmp_path)
    stale = [d for d in journalled["req_stale"].decisions if d.get("decision") == "stale"]
    assert stale == [{"stage": "auth", **STALE}, {"stage": "policy", **STALE}]
    assert journalled["req_stale"].finish_reason == "interrupted"  # still the provisional record
    assert not [d for d in journalled["req_fresh"].decisions if d.get("decision") == "stale"]
