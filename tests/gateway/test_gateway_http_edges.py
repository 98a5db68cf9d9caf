"""The HTTP edge without an engine: error shapes, refusals and their audit records, headers, body limit.

Everything here is decided before a request would reach the engine, so the app runs with none (/v1 calls
that pass every check get 503, which is itself one of the contract's statuses).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key
from sqlalchemy import select

from gateway.app import create_app
from gateway.audit.event import ANONYMOUS_CHAIN
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.middleware import OVERHEAD_HEADER, REQUEST_ID_HEADER
from gateway.core.settings import Settings


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    settings.max_body_bytes = 4096
    with TestClient(create_app(settings, start_engine=False)) as test_client:
        yield test_client


def _audit_rows(client: TestClient, db: Database, request_id: str) -> list[AuditRecord]:
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        return list(session.scalars(select(AuditRecord).where(AuditRecord.request_id == request_id)))


def _assert_openai_error(response, status: int, code: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["message"]
    if code is not None:
        assert error["code"] == code
    assert OVERHEAD_HEADER in response.headers and float(response.headers[OVERHEAD_HEADER]) >= 0
    return error


CHAT = {"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


def test_missing_and_bad_keys_get_401_and_are_audited(client: TestClient, db: Database, settings: Settings) -> None:
    response = client.post("/v1/chat/completions", json=CHAT)
    _assert_openai_error(response, 401, "invalid_api_key")
    (row,) = _audit_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert (row.http_status, row.chain_id, row.content) == (401, ANONYMOUS_CHAIN, None)

    tenant, issued = new_tenant_with_key(db, settings)
    wrong = issued.api_key[:-2] + "zz"
    response = client.post("/v1/chat/completions", json=CHAT, headers={"Authorization": f"Bearer {wrong}"})
    _assert_openai_error(response, 401)
    (row,) = _audit_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert (row.http_status, row.tenant_id, row.key_id) == (401, tenant.id, issued.key_id)


@pytest.mark.parametrize(("body", "param"), [
    ({**CHAT, "guided_json": {"type": "object"}}, "guided_json"),
    ({**CHAT, "cache_salt": "mine"}, "cache_salt"),
    ({**CHAT, "tools": [{"type": "function", "function": {"name": "bad name"}}]}, "tools[0].function.name"),
    ({**CHAT, "temperature": 7}, "temperature"),
    ({**CHAT, "max_tokens": 0}, "max_tokens"),
    ({**CHAT, "messages": []}, "messages"),
    ({**CHAT, "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]},
     None),
    ({**CHAT, "logit_bias": {"1": 5}}, "logit_bias"),
    ({**CHAT, "top_logprobs": 3}, None),
    ({**CHAT, "stream_options": {"include_usage": True}}, None),
    ({"model": "x"}, "messages"),
])
def test_invalid_parameters_get_400_never_500(client: TestClient, db: Database, settings: Settings,
                                              body: dict, param: str | None) -> None:
    _tenant, issued = new_tenant_with_key(db, settings)
    response = client.post("/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {issued.api_key}"})
    error = _assert_openai_error(response, 400)
    assert error["type"] == "invalid_request_error"
    if param is not None:
        assert error["param"] == param
    (row,) = _audit_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert row.http_status == 400


def test_harmless_fields_are_accepted(client: TestClient, db: Database, settings: Settings) -> None:
    _tenant, issued = new_tenant_with_key(db, settings)
    body = {**CHAT, "user": "u-1", "metadata": {"a": "b"}, "store": False, "service_tier": "auto",
            "parallel_tool_calls": True}
    response = client.post("/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {issued.api_key}"})
    _assert_openai_error(response, 503, "engine_unavailable")  # got past validation: only the engine is missing


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b"\xff\xfe", b""])
def test_malformed_bodies_get_400(client: TestClient, db: Database, settings: Settings, raw: bytes) -> None:
    _tenant, issued = new_tenant_with_key(db, settings)
    response = client.post("/v1/completions", content=raw, headers={"Authorization": f"Bearer {issued.api_key}",
                                                                      "content-type": "application/json"})
    _assert_openai_error(response, 400)


def test_oversized_body_gets_413_and_is_audited(client: TestClient, db: Database) -> None:
    body = {**CHAT, "messages": [{"role": "user", "content": "x" * 10_000}]}
    response = client.post("/v1/chat/completions", json=body)
    _assert_openai_error(response, 413, "request_too_large")
    (row,) = _audit_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert row.http_status == 413


def test_unknown_routes_and_methods_keep_the_error_shape(client: TestClient) -> None:
    _assert_openai_error(client.get("/v1/nope"), 404)
    _assert_openai_error(client.get("/v1/chat/completions"), 405)


def test_call_routes_are_matched_first_and_stay_documented(client: TestClient) -> None:
    """The /v1 call routes are plain routes ahead of the included routers (``gateway.openai.router.hot_routes``),
    while the OpenAPI document still describes them from their APIRoutes."""
    first = [(route.path, route.methods) for route in client.app.router.routes[:2]]  # type: ignore[attr-defined]
    assert first == [("/v1/chat/completions", {"POST"}), ("/v1/completions", {"POST"})]
    paths = client.get("/openapi.json").json()["paths"]
    assert "requestBody" in paths["/v1/chat/completions"]["post"]
    assert "requestBody" in paths["/v1/completions"]["post"]
    refused = client.get("/v1/completions")
    _assert_openai_error(refused, 405)
    assert refused.headers["allow"] == "POST"


def test_client_request_id_is_kept_when_sane(client: TestClient) -> None:
    response = client.get("/v1/models", headers={"x-request-id": "abc-123"})
    assert response.headers[REQUEST_ID_HEADER] == "abc-123"
    response = client.get("/v1/models", headers={"x-request-id": "bad id with spaces"})
    assert response.headers[REQUEST_ID_HEADER].startswith("req_")
