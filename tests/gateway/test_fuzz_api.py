"""Schema fuzzing of the HTTP edge (bench.fuzz at a small, derandomized example count): every admin and /v1
operation of the OpenAPI document, authenticated, against the test database, with the app in-process. No 5xx, no
hangs, every error in OpenAI's shape, forbidden input refused, 2xx bodies as documented; and a NUL byte or a lone
surrogate in any string field is a 400.

``WARDEN_FUZZ_EXAMPLES`` raises the count per operation and mode (the chaos bench runs ``python -m bench.fuzz``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_server import LiveServer

from bench.fuzz import (
    POISONED_REQUESTS,
    Poisoned,
    Principals,
    create_principals,
    fuzz_operation,
    load_schema,
    operations,
    poisoned_failure,
    send_poisoned,
)
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.settings import Settings

EXAMPLES = int(os.environ.get("WARDEN_FUZZ_EXAMPLES", "25"))
# A call slower than this is a hang. Generous: on a loaded CPU the engine compiles a new batch shape for ~35 s.
TIMEOUT_S = 120.0
SERVED_MODEL = "smollm2-135m-instruct"


def _labels(prefix: str) -> list[str]:
    """The operations of the app's OpenAPI document under ``prefix`` (read at collection: no app is started)."""
    app = create_app(Settings(log_format="none", _env_file=None), start_engine=False)  # type: ignore[call-arg]
    return [operation.label for operation in operations(load_schema(app, SERVED_MODEL, allow_nul=False), prefix)]


def _settings(database_url: str, data_dir: Path) -> Settings:
    return Settings(database_url=database_url, data_dir=data_dir, server_secret="fuzz-test-secret", redis_url=None,
                    key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05, log_format="none",
                    audit_checkpoint_interval_s=0.0, audit_maintenance_interval_s=0.0)


class Target:
    """An app under fuzzing, its schema and who calls it."""

    def __init__(self, app: Any, principals: Principals, served_model: str) -> None:
        self.app = app
        self.principals = principals
        self.served_model = served_model
        self.schema = load_schema(app, served_model, allow_nul=True)
        self.by_label = {operation.label: operation for operation in operations(self.schema)}


@pytest.fixture(scope="module")
def admin_target(database_url: str, db: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """No engine: the admin API never needs one, and a /v1 call that passes every check answers 503."""
    from schemathesis.python import asgi

    settings = _settings(database_url, tmp_path_factory.mktemp("fuzz-admin"))
    app = create_app(settings, start_engine=False)
    yield Target(app, create_principals(db, settings), SERVED_MODEL)
    asgi.shutdown_lifespans()


@pytest.fixture(scope="module")
def public_target(live: LiveServer, database_url: str, db: Database,
                  tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    """The session's real engine and guardrails, shared with the live server."""
    from schemathesis.python import asgi

    services = live.services
    settings = _settings(database_url, tmp_path_factory.mktemp("fuzz-public"))
    app = create_app(settings, engine=services.engine, input_guard=services.input_guard,
                     output_guard=services.output_guard)
    yield Target(app, create_principals(db, settings), services.engine.model_name)
    asgi.shutdown_lifespans()


def _assert_clean(target: Target, label: str) -> None:
    report = fuzz_operation(target.by_label[label], target.principals, examples=EXAMPLES, timeout_s=TIMEOUT_S)
    assert report.cases > 0
    details = "\n".join(f"[{f.check}] {f.status}: {f.message}\n    {f.request}" for f in report.failures[:10])
    assert not report.failures, f"{len(report.failures)} failures in {report.cases} cases:\n{details}"


@pytest.mark.parametrize("label", _labels("/admin/"))
def test_admin_api_survives_fuzzing(admin_target: Target, label: str) -> None:
    _assert_clean(admin_target, label)


@pytest.mark.slow
@pytest.mark.parametrize("label", _labels("/v1/"))
def test_public_api_survives_fuzzing(public_target: Target, label: str) -> None:
    _assert_clean(public_target, label)


@pytest.mark.parametrize("case", POISONED_REQUESTS, ids=lambda case: case.name)
def test_nul_and_lone_surrogates_are_refused(admin_target: Target, case: Poisoned) -> None:
    response = send_poisoned(admin_target.app, case, admin_target.principals, admin_target.served_model, TIMEOUT_S)
    failure = poisoned_failure(response)
    assert failure is None, failure


def test_public_operations_document_their_bodies() -> None:
    """/v1 handlers parse their bodies themselves; the OpenAPI document still describes them, $defs inlined."""
    app = create_app(Settings(log_format="none", _env_file=None), start_engine=False)  # type: ignore[call-arg]
    paths = app.openapi()["paths"]
    for path, required in (("/v1/chat/completions", {"model", "messages"}), ("/v1/completions", {"model", "prompt"})):
        schema = paths[path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        assert set(schema["required"]) == required and schema["additionalProperties"] is False
        assert "$ref" not in str(schema) and "$defs" not in str(schema)
    chat = paths["/v1/chat/completions"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    message = chat["properties"]["messages"]["items"]
    assert message["properties"]["role"]["enum"] == ["system", "developer", "user", "assistant", "tool"]


@pytest.mark.parametrize("body", [
    {"messages": [{"role": "user", "content": "hi", "tool_call_id": "c1"}]},
    {"messages": [{"role": "tool", "content": "42"}]},
    {"messages": [{"role": "user", "content": "hi", "tool_calls": [
        {"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}]},
    {"messages": [{"role": "user", "content": "hi"}], "top_logprobs": 2},
    {"messages": [{"role": "user", "content": "hi"}], "tool_choice": "auto"},
    {"messages": [{"role": "user", "content": "hi"}], "stream_options": {"include_usage": True}},
    {"messages": [{"role": "user", "content": "hi"}], "logit_bias": {"1": 5}},
])
def test_the_documented_body_refuses_what_the_gateway_refuses(body: dict[str, Any]) -> None:
    """Cross-field rules are in the OpenAPI document too: what it allows is what the gateway accepts (so clients,
    and the fuzzer's positive cases, can trust it)."""
    import jsonschema
    from pydantic import ValidationError

    from gateway.core.errors import APIError
    from gateway.openai.schemas import ChatCompletionRequest, openapi_request_body
    from gateway.openai.structured import engine_constraint

    def gateway_accepts(request: dict[str, Any]) -> bool:
        try:
            engine_constraint(ChatCompletionRequest.model_validate(request))
        except (ValidationError, APIError):
            return False
        return True

    schema = openapi_request_body(ChatCompletionRequest)["requestBody"]["content"]["application/json"]["schema"]
    request = {"model": SERVED_MODEL, **body}
    assert not jsonschema.Draft202012Validator(schema).is_valid(request) and not gateway_accepts(request)
    fixed = {"model": SERVED_MODEL, "messages": [{"role": "user", "content": "hi"}]}
    assert jsonschema.Draft202012Validator(schema).is_valid(fixed) and gateway_accepts(fixed)


# -- what fuzzing found, kept as plain regression tests ------------------------------------------------------------
def _admin_call(target: Target, method: str, url: str, **kwargs: Any) -> Any:
    from schemathesis.python import asgi

    with asgi.get_client(target.app) as client:
        return client.request(method, url, headers=target.principals.admin_headers, timeout=TIMEOUT_S, **kwargs)


def _assert_400(response: Any, param: str | None = None) -> None:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"} and error["type"] == "invalid_request_error"
    if param is not None:  # FastAPI's location prefix stays on path and query parameters ("query.from")
        assert error["param"] in {param, f"query.{param}", f"path.{param}"}, error


@pytest.mark.parametrize("version", ["2147483648", "15794338868821882", "0", "-1"])
def test_policy_versions_outside_the_column_are_a_400(admin_target: Target, version: str) -> None:
    # Postgres INTEGER columns: a larger version used to reach the query and fail there as a 500.
    tenant = f"/admin/v1/tenants/{admin_target.principals.pinned['tenant_id']}"
    _assert_400(_admin_call(admin_target, "GET", f"{tenant}/policy/versions/{version}"), "version")
    _assert_400(_admin_call(admin_target, "POST", f"{tenant}/policy/versions/{version}/activate"), "version")
    _assert_400(_admin_call(admin_target, "GET", f"{tenant}/policy/diff", params={"from": version, "to": 1}), "from")
    assert _admin_call(admin_target, "GET", f"{tenant}/policy/versions/2147483647").status_code == 404


@pytest.mark.parametrize("value", ["2024", "1700000000", "1.5", "yesterday"])
def test_date_times_must_be_iso_8601(admin_target: Target, value: str) -> None:
    # Pydantic reads a number as Unix seconds: ?from=2024 silently meant 1970-01-01T00:33:44Z.
    tenant_id = admin_target.principals.pinned["tenant_id"]
    _assert_400(_admin_call(admin_target, "GET", f"/admin/v1/tenants/{tenant_id}/usage", params={"from": value}),
                "from")
    _assert_400(_admin_call(admin_target, "GET", "/admin/v1/audit/export", params={"to": value}), "to")
    number = float(value) if value.replace(".", "", 1).isdigit() else value
    _assert_400(_admin_call(admin_target, "POST", f"/admin/v1/tenants/{tenant_id}/keys",
                            json={"expires_at": number}), "expires_at")


def test_iso_8601_date_times_are_read(admin_target: Target) -> None:
    tenant_id = admin_target.principals.pinned["tenant_id"]
    for value in ("2026-01-31", "2026-01-31T10:00:00Z", "2026-01-31T10:00:00+02:00", "2026-01-31T10:00:00.5"):
        response = _admin_call(admin_target, "GET", f"/admin/v1/tenants/{tenant_id}/usage", params={"from": value})
        assert response.status_code == 200, (value, response.text)
    issued = _admin_call(admin_target, "POST", f"/admin/v1/tenants/{tenant_id}/keys",
                         json={"expires_at": "2999-01-31T10:00:00Z"})
    assert issued.status_code == 201 and issued.json()["key"]["expires_at"].startswith("2999-01-31T10:00:00")


@pytest.mark.parametrize(("path", "field", "value"), [
    ("/v1/completions", "top_p", True),
    ("/v1/completions", "max_tokens", "8"),
    ("/v1/completions", "prompt", [True, 1]),
    ("/v1/chat/completions", "temperature", "0.5"),
    ("/v1/chat/completions", "stream", 1),
    ("/v1/chat/completions", "n", 2.0),
    ("/v1/chat/completions", "logprobs", "true"),
])
def test_v1_fields_take_their_json_types(admin_target: Target, path: str, field: str, value: Any) -> None:
    # Pydantic's lax mode read "top_p": true as 1.0 (and "8" as 8) and served the request.
    from schemathesis.python import asgi

    base: dict[str, Any] = ({"model": SERVED_MODEL, "prompt": "hi"} if path == "/v1/completions"
                            else {"model": SERVED_MODEL, "messages": [{"role": "user", "content": "hi"}]})
    with asgi.get_client(admin_target.app) as client:
        refused = client.post(path, json={**base, field: value}, headers=admin_target.principals.v1_headers)
        served = client.post(path, json={**base, "temperature": 1}, headers=admin_target.principals.v1_headers)
    _assert_400(refused)
    assert refused.json()["error"]["param"].startswith(field)  # a union names its first branch: "prompt.str"
    assert served.status_code == 503, served.text  # parsed and admitted; this app has no engine


def test_admin_bodies_take_their_json_types(admin_target: Target) -> None:
    tenant = f"/admin/v1/tenants/{admin_target.principals.pinned['tenant_id']}"
    _assert_400(_admin_call(admin_target, "PATCH", tenant, json={"legal_hold": "yes"}), "legal_hold")
    _assert_400(_admin_call(admin_target, "POST", "/admin/v1/tenants", json={"name": 12}), "name")
    key_id = admin_target.principals.pinned["key_id"]
    _assert_400(_admin_call(admin_target, "POST", f"{tenant}/keys/{key_id}/rotate", json={"grace_seconds": "60"}),
                "grace_seconds")
    assert _admin_call(admin_target, "PATCH", tenant, json={"legal_hold": False}).status_code == 200


@pytest.mark.parametrize("penalty", [5e-324, 1e-40, 0.009])
def test_a_repetition_penalty_the_engine_cannot_hold_is_a_400(admin_target: Target, penalty: float) -> None:
    # 5e-324 is a positive double but 0 in the engine's float32 tensors: logits divided by it became inf and a
    # json_schema request failed its grammar, a 500 engine_error.
    from schemathesis.python import asgi

    body = {"model": SERVED_MODEL, "messages": [{"role": "user", "content": "hi"}], "repetition_penalty": penalty}
    with asgi.get_client(admin_target.app) as client:
        refused = client.post("/v1/chat/completions", json=body, headers=admin_target.principals.v1_headers)
        served = client.post("/v1/chat/completions", json={**body, "repetition_penalty": 0.01},
                             headers=admin_target.principals.v1_headers)
    _assert_400(refused, "repetition_penalty")
    assert served.status_code == 503, served.text  # parsed and admitted; this app has no engine
