"""/v1/messages at the HTTP edge without an engine: every refusal, made before routing (body size, invalid text) or
in the request path (bad JSON, bad key, no engine), is in Anthropic's error shape; other paths keep OpenAI's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key

from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings

BODY = {"model": "smollm2-135m-instruct", "max_tokens": 4, "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    settings.max_body_bytes = 4096
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


def anthropic_error(response: Any, status: int, error_type: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["type"] == "error" and set(body["error"]) == {"type", "message"}
    assert body["error"]["type"] == error_type and body["error"]["message"]
    assert body["request_id"] == response.headers[REQUEST_ID_HEADER]
    return body["error"]["message"]


def test_edge_refusals_are_in_anthropics_shape(client: TestClient, db: Database, settings: Settings) -> None:
    _tenant, issued = new_tenant_with_key(db, settings)
    headers = {"x-api-key": issued.api_key}
    too_big = client.post("/v1/messages", headers=headers,
                          json={**BODY, "messages": [{"role": "user", "content": "x" * 10_000}]})
    assert "larger than 4096" in anthropic_error(too_big, 413, "request_too_large")
    nul = client.post("/v1/messages", headers=headers, json={**BODY, "messages": [{"role": "user", "content": "a\0"}]})
    assert "messages" in anthropic_error(nul, 400, "invalid_request_error")
    # The same refusals elsewhere keep OpenAI's shape.
    chat = client.post("/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "a\0"}]})
    assert chat.status_code == 400 and chat.json()["error"]["code"] == "invalid_text"


def test_request_path_refusals_are_in_anthropics_shape(client: TestClient, db: Database,
                                                       settings: Settings) -> None:
    _tenant, issued = new_tenant_with_key(db, settings)
    anthropic_error(client.post("/v1/messages", json=BODY, headers={"x-api-key": "wdn_nope"}), 401,
                    "authentication_error")
    anthropic_error(client.post("/v1/messages", json=BODY), 401, "authentication_error")
    bad_json = client.post("/v1/messages", content=b"{not json", headers={"x-api-key": issued.api_key,
                                                                         "content-type": "application/json"})
    anthropic_error(bad_json, 400, "invalid_request_error")
    no_engine = client.post("/v1/messages", json=BODY, headers={"Authorization": f"Bearer {issued.api_key}"})
    anthropic_error(no_engine, 503, "overloaded_error")
    assert int(no_engine.headers["retry-after"]) >= 1


def test_an_unexpected_failure_is_a_500_in_anthropics_shape_and_says_nothing_of_its_cause(
        client: TestClient, db: Database, settings: Settings, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    from gateway.anthropic.surface import MessagesSurface

    def broken(_self: MessagesSurface, _body: dict[str, Any]) -> Any:
        raise RuntimeError("secret detail of a bug")

    monkeypatch.setattr(MessagesSurface, "parse", broken)
    _tenant, issued = new_tenant_with_key(db, settings)
    failed = client.post("/v1/messages", json=BODY, headers={"x-api-key": issued.api_key})
    message = anthropic_error(failed, 500, "api_error")
    assert "secret" not in message and "secret" not in failed.text
    assert any("unhandled error on POST /v1/messages" in r.getMessage() for r in caplog.records)
