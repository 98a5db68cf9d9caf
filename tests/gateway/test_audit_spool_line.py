"""An audit event's spool line: exactly the JSON of its fields (as ``dataclasses.asdict`` gives them), read back to
an equal event; a line with text the store cannot take is fitted; encoding never changes the event."""

from __future__ import annotations

import copy
from dataclasses import asdict
from datetime import UTC, datetime

import orjson
import pytest

from gateway.audit.event import AuditEvent
from gateway.audit.storable import storable_columns


def _event(text: str) -> AuditEvent:
    return AuditEvent(
        created_at=datetime(2026, 12, 3, 22, 30, 1, 123456, tzinfo=UTC), request_id="req_1",
        endpoint="/v1/chat/completions", http_status=200, latency_ms=3.25, overhead_ms=1.5, tenant_id="tenant-a",
        key_id="key1", model="smollm2-135m-instruct", finish_reason="length", prompt_tokens=77, completion_tokens=2,
        policy_version=3,
        decisions=[{"stage": "auth", "decision": "allowed"},
                   {"stage": "rate_limit", "decision": "admitted", "scopes": [{"scope": "tenant", "rpm": 10}]}],
        content={"prompt": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": text}],
                 "completion": ["Done."]},
    )


@pytest.mark.parametrize("text", ["Ticket 1000: Dana (dana@example.org) cannot log in.", "emoji \U0001F600 é"])
def test_the_line_is_the_json_of_the_fields_and_reads_back(text: str) -> None:
    event = _event(text)
    before = copy.deepcopy(event)
    line = event.to_spool_line()
    assert line == orjson.dumps(asdict(event)) + b"\n"
    assert event == before
    assert AuditEvent.from_spool_line(line) == event


@pytest.mark.parametrize("text", ["a lone surrogate \ud800 here", "a NUL \x00 here"])
def test_text_the_store_cannot_take_is_fitted(text: str) -> None:
    event = _event(text)
    before = copy.deepcopy(event)
    line = event.to_spool_line()
    assert line == orjson.dumps(storable_columns(asdict(event))) + b"\n"
    assert event == before
    assert b"\\u0000" not in line
    assert AuditEvent.from_spool_line(line).content != event.content  # fitted, not stored as given
