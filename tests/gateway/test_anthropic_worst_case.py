"""/v1/messages on input nobody tuned for: a tool_use input nested as deep as the body parser reads is a 400 naming
the block (not a 500 from the JSON encoder), in Anthropic's shape and audited; a call's arguments nested past the
interpreter's depth are no ``input`` rather than an error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key
from sqlalchemy import select

from engine.tool_calls import ToolCall
from gateway.anthropic.message import tool_input
from gateway.anthropic.translate import to_chat_request
from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.errors import APIError
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _tool_turns(arguments: Any) -> dict[str, Any]:
    """A conversation whose assistant turn called ``f`` with the input ``{"k": arguments}``."""
    return {"model": "smollm2-135m-instruct", "max_tokens": 4,
            "tools": [{"name": "f", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f",
                                                            "input": {"k": arguments}}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}]}


def test_a_tool_use_input_nested_past_the_encoders_depth_is_a_400_naming_the_block() -> None:
    with pytest.raises(APIError) as refused:
        to_chat_request(_tool_turns(_nested(5_000)))
    assert refused.value.status == 400 and refused.value.param == "messages.1.content.0.input"


def test_a_tool_use_input_of_ordinary_depth_is_its_arguments() -> None:
    chat = to_chat_request(_tool_turns(_nested(50)))
    call = chat.messages[1].model_dump()["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"k": _nested(50)}


def test_arguments_nested_past_the_interpreters_depth_are_no_input() -> None:
    assert tool_input(ToolCall("f", '{"k": ' + "[" * 100_000 + "]" * 100_000 + "}")) is None
    assert tool_input(ToolCall("f", '{"k": [[1]]}')) == {"k": [[1]]}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


@pytest.mark.parametrize("depth", [980, 1_000])
def test_through_the_api_a_deep_tool_use_input_is_a_400_in_anthropics_shape_and_audited(
        client: TestClient, db: Database, settings: Settings, depth: int) -> None:
    _, issued = new_tenant_with_key(db, settings)
    body = json.dumps(_tool_turns("INPUT")).replace('"INPUT"', "[" * depth + "1" + "]" * depth)
    response = client.post("/v1/messages", content=body.encode(),
                           headers={"x-api-key": issued.api_key, "content-type": "application/json"})
    # Shallower than the encoder's limit in this stack, the request gets as far as the engine (absent here: 503).
    assert response.status_code in (400, 503), response.text
    payload = response.json()
    assert payload["type"] == "error" and set(payload["error"]) == {"type", "message"}
    if response.status_code == 400:
        assert payload["error"]["message"] == "messages.1.content.0.input: tool_use input is nested too deeply"
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        (row,) = session.scalars(select(AuditRecord).where(
            AuditRecord.request_id == response.headers[REQUEST_ID_HEADER]))
    assert row.http_status == response.status_code
