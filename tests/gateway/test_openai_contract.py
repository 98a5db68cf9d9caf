"""OpenAI's contract to the letter: JSON types as OpenAI types them (no lax coercion), OpenAI's bounds, ``param``
named as OpenAI names a field, the OpenAPI document stating the 400s the gateway sends, and all six
``x-ratelimit-*`` headers on every admitted, refused and streamed response.

The validation checks run without an engine: a refused request never reaches one, and one that passes every check
is answered 503 ``engine_unavailable`` (the proof it was accepted). The rate-limit headers need admitted calls, so
they run against the session's live server and real model (slow), read through the official client.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import openai
import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key, unique_name
from live_server import LiveServer

from gateway.adminauth.roles import Role
from gateway.adminauth.setup import mint_local_token
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.openapi_errors import ERROR_SCHEMA, ERROR_SCHEMA_NAME, OPENAI_SURFACE_TAGS
from gateway.core.settings import Settings
from gateway.policystore.service import publish_policy
from gateway.ratelimit.limits import MAX_PER_MINUTE

MODEL = "smollm2-135m-instruct"
CHAT: dict[str, Any] = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
COMPLETION: dict[str, Any] = {"model": MODEL, "prompt": "hi", "max_tokens": 4}
RATE_LIMIT_HEADERS = frozenset(f"x-ratelimit-{what}-{dimension}" for what in ("limit", "remaining", "reset")
                               for dimension in ("requests", "tokens"))


@pytest.fixture(scope="module")
def app_settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    # The default body limit (4 MiB): a 1 MB field must reach validation and be refused there.
    return Settings(database_url=database_url, data_dir=tmp_path_factory.mktemp("contract"),
                    server_secret="contract-test-secret", redis_url=None, key_cache_ttl_s=0.0,
                    policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05, log_format="none")


@pytest.fixture(scope="module")
def client(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings, start_engine=False)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def api_key(db: Database, app_settings: Settings) -> str:
    return new_tenant_with_key(db, app_settings)[1].api_key


def _post(client: TestClient, api_key: str, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, json=body, headers={"Authorization": f"Bearer {api_key}"})


def _refused(response: Any) -> dict[str, Any]:
    assert response.status_code == 400, response.text
    jsonschema.validate(response.json(), ERROR_SCHEMA)
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    return error


# -- strict JSON types ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("path", "field", "value", "param"), [
    ("/v1/chat/completions", "stream", "yes", "stream"),
    ("/v1/chat/completions", "stream", 1, "stream"),
    ("/v1/chat/completions", "max_tokens", "12", "max_tokens"),
    ("/v1/chat/completions", "max_tokens", 12.0, "max_tokens"),
    ("/v1/chat/completions", "max_completion_tokens", True, "max_completion_tokens"),
    ("/v1/chat/completions", "temperature", "0.5", "temperature"),
    ("/v1/chat/completions", "top_p", True, "top_p"),
    ("/v1/chat/completions", "presence_penalty", "0", "presence_penalty"),
    ("/v1/chat/completions", "n", True, "n"),
    ("/v1/chat/completions", "seed", 1.5, "seed"),
    ("/v1/chat/completions", "logprobs", 1, "logprobs"),
    ("/v1/chat/completions", "top_logprobs", "2", "top_logprobs"),
    ("/v1/chat/completions", "stop", 5, "stop"),
    ("/v1/chat/completions", "stop", ["ok", 5], "stop[1]"),
    ("/v1/chat/completions", "user", 5, "user"),
    ("/v1/chat/completions", "metadata", {"a": 1}, "metadata.a"),
    ("/v1/chat/completions", "store", "false", "store"),
    ("/v1/chat/completions", "parallel_tool_calls", 0, "parallel_tool_calls"),
    ("/v1/chat/completions", "messages", [{"role": "user", "content": 5}], "messages[0].content"),
    ("/v1/chat/completions", "messages", [{"role": "user", "content": [{"type": "text", "text": 5}]}],
     "messages[0].content[0].text"),
    ("/v1/chat/completions", "response_format", {"type": "json_schema", "json_schema": {"name": "x", "schema": 5}},
     "response_format.json_schema.schema"),
    ("/v1/completions", "prompt", [1, True], "prompt[1]"),
    ("/v1/completions", "prompt", [[1], [2, "3"]], "prompt[1][1]"),
    ("/v1/completions", "echo", 1, "echo"),
    ("/v1/completions", "logprobs", True, "logprobs"),
    ("/v1/completions", "best_of", "1", "best_of"),
])  # fmt: skip
def test_lax_types_are_a_400_naming_the_param(client: TestClient, api_key: str, path: str, field: str, value: Any,
                                              param: str) -> None:
    base = CHAT if path == "/v1/chat/completions" else COMPLETION
    error = _refused(_post(client, api_key, path, {**base, field: value}))
    assert (error["param"], error["code"]) == (param, "invalid_type"), error
    assert error["message"].startswith(f"Invalid type for '{param}': expected ")
    if isinstance(value, str):
        assert value not in error["message"]  # types are named, never the value sent


@pytest.mark.parametrize("fields", [
    {"temperature": 1, "top_p": 1, "presence_penalty": 0, "frequency_penalty": -2},  # a JSON integer is a number
    {"min_p": 0, "repetition_penalty": 1},
    {"stream": None, "n": None, "logprobs": None, "temperature": None, "stop": None},  # OpenAI's nullable fields
    {"stop": ["a", "b", "c", "d"], "seed": -(2**63), "n": 1},
    {"user": "u" * 256, "safety_identifier": "s" * 128, "prompt_cache_key": "k",
     "metadata": {f"k{i}": "v" * 512 for i in range(16)}, "service_tier": "flex", "store": False},
    {"messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": [{"type": "text",
                                                                                              "text": "hi"}]},
                  {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                                        "function": {"name": "f", "arguments": "{}"}}]},
                  {"role": "tool", "tool_call_id": "c1", "content": "42"}]},
])  # fmt: skip
def test_what_openai_accepts_passes_validation(client: TestClient, api_key: str, fields: dict[str, Any]) -> None:
    response = _post(client, api_key, "/v1/chat/completions", {**CHAT, **fields})
    assert response.status_code == 503 and response.json()["error"]["code"] == "engine_unavailable", response.text


def test_completions_take_openais_nullable_fields(client: TestClient, api_key: str) -> None:
    body = {**COMPLETION, "stream": None, "n": None, "echo": None, "logprobs": None, "best_of": None}
    response = _post(client, api_key, "/v1/completions", body)
    assert response.status_code == 503 and response.json()["error"]["code"] == "engine_unavailable", response.text


# -- OpenAI's bounds -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("fields", "param", "code"), [
    ({"user": "u" * 1_000_000}, "user", "string_above_max_length"),
    ({"safety_identifier": "s" * 129}, "safety_identifier", "string_above_max_length"),
    ({"stop": ["a", "b", "c", "d", "e"]}, "stop", "array_above_max_length"),
    ({"stop": ["a", "x" * 257]}, "stop[1]", "string_above_max_length"),
    ({"stop": ""}, "stop", "string_below_min_length"),
    ({"metadata": {f"k{i}": "v" for i in range(17)}}, "metadata", "object_above_max_length"),
    ({"metadata": {"k": "v" * 513}}, "metadata.k", "string_above_max_length"),
    ({"n": 129}, "n", "integer_above_max_value"),
    ({"seed": 2**63}, "seed", "integer_above_max_value"),
    ({"temperature": 2.5}, "temperature", "decimal_above_max_value"),
    ({"service_tier": "gold"}, "service_tier", "invalid_value"),
])  # fmt: skip
def test_out_of_bounds_values_are_a_400(client: TestClient, api_key: str, fields: dict[str, Any], param: str,
                                        code: str) -> None:
    error = _refused(_post(client, api_key, "/v1/chat/completions", {**CHAT, **fields}))
    assert (error["param"], error["code"]) == (param, code), error
    assert len(error["message"]) < 300  # never the value sent back


def test_a_long_metadata_key_is_refused_and_not_echoed(client: TestClient, api_key: str) -> None:
    key = "k" * 10_000
    error = _refused(_post(client, api_key, "/v1/chat/completions", {**CHAT, "metadata": {key: "v"}}))
    assert error["code"] == "string_above_max_length" and error["param"].startswith("metadata.kkk")
    assert len(error["param"]) < 80 and len(error["message"]) < 300


@pytest.mark.parametrize(("fields", "param", "code"), [
    ({"guided_json": {}}, "guided_json", "unknown_parameter"),
    ({"messages": [{"content": "hi"}]}, "messages[0].role", "missing_required_parameter"),
    ({"messages": [{"role": "user"}]}, "messages[0]", "invalid_value"),  # OpenAI requires a user's content
    ({"messages": [{"role": "assistant", "content": None}]}, "messages[0]", "invalid_value"),
    ({"response_format": {"type": "json_schema", "json_schema": {"schema": {}}}}, "response_format.json_schema.name",
     "missing_required_parameter"),
    ({"response_format": {"type": "grammar"}}, "response_format", "invalid_value"),
    ({"tools": [{"type": "function", "function": {"name": "f"}}], "tool_choice": {"type": "function"}},
     "tool_choice.function", "missing_required_parameter"),
    ({"tools": [{"type": "function", "function": {"name": "bad name"}}]}, "tools[0].function.name", "invalid_value"),
])  # fmt: skip
def test_param_names_the_field_as_openai_does(client: TestClient, api_key: str, fields: dict[str, Any], param: str,
                                              code: str) -> None:
    error = _refused(_post(client, api_key, "/v1/chat/completions", {**CHAT, **fields}))
    assert (error["param"], error["code"]) == (param, code), error


def test_the_official_client_sees_param_and_code(client: TestClient, api_key: str) -> None:
    official = openai.OpenAI(base_url=f"{client.base_url}/v1", api_key=api_key, http_client=client, max_retries=0)
    with pytest.raises(openai.BadRequestError) as refused:
        official.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "hi"}], max_tokens=4,
                                         extra_body={"stream": "yes"})
    assert (refused.value.status_code, refused.value.param, refused.value.code) == (400, "stream", "invalid_type")


@pytest.mark.parametrize(("messages", "valid"), [
    ([{"role": "user"}], False),
    ([{"role": "system", "content": None}, {"role": "user", "content": "hi"}], False),
    ([{"role": "assistant"}], False),
    ([{"role": "assistant", "tool_calls": []}], False),
    ([{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}]}], True),
    ([{"role": "assistant", "content": "hello"}], True),
])  # fmt: skip
def test_the_documented_body_states_which_messages_need_content(messages: list[dict[str, Any]],
                                                                valid: bool) -> None:
    """Clients and the fuzzer's positive cases read the OpenAPI body: it and the gateway agree."""
    from pydantic import ValidationError

    from gateway.openai.schemas import ChatCompletionRequest, openapi_request_body

    schema = openapi_request_body(ChatCompletionRequest)["requestBody"]["content"]["application/json"]["schema"]
    body = {"model": MODEL, "messages": messages}
    try:
        ChatCompletionRequest.model_validate(body)
        accepted = True
    except ValidationError:
        accepted = False
    assert jsonschema.Draft202012Validator(schema).is_valid(body) is valid and accepted is valid


# -- the admin API: no FastAPI location prefix in param --------------------------------------------------------------
def test_admin_params_carry_no_location_prefix(client: TestClient, db: Database, app_settings: Settings) -> None:
    from gateway.tenants.service import create_tenant

    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("contract"), session=session).id
    admin = {"Authorization": f"Bearer {mint_local_token(app_settings, Role.PLATFORM_ADMIN)}"}
    query = client.get(f"/admin/v1/tenants/{tenant_id}/usage", params={"from": "yesterday"}, headers=admin)
    assert _refused(query)["param"] == "from"
    path = client.get(f"/admin/v1/tenants/{tenant_id}/policy/versions/notanumber", headers=admin)
    assert _refused(path)["param"] == "version"
    body = client.patch(f"/admin/v1/tenants/{tenant_id}", json={"legal_hold": "yes"}, headers=admin)
    assert (_refused(body)["param"], body.json()["error"]["code"]) == ("legal_hold", "invalid_type")



def test_an_admin_refusal_is_audited_without_the_value_sent(client: TestClient, db: Database,
                                                            app_settings: Settings) -> None:
    from sqlalchemy import select

    from gateway.audit.models import AuditRecord
    from gateway.core.middleware import REQUEST_ID_HEADER
    from gateway.tenants.service import create_tenant

    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("contract"), session=session).id
    admin = {"Authorization": f"Bearer {mint_local_token(app_settings, Role.PLATFORM_ADMIN)}"}
    refused = client.patch(f"/admin/v1/tenants/{tenant_id}", json={"legal_hold": "s3cret-in-the-body"},
                           headers=admin)
    _refused(refused)
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        (row,) = session.scalars(select(AuditRecord).where(
            AuditRecord.request_id == refused.headers[REQUEST_ID_HEADER]))
        decisions = str(row.decisions)
    assert "legal_hold" in decisions and "s3cret" not in decisions

@pytest.mark.parametrize(("document", "param"), [
    ({"rate_limits": {"fail_open": "yes"}}, "rate_limits.fail_open"),
    ({"rate_limits": {"requests_per_minute": True}}, "rate_limits.requests_per_minute"),
    ({"max_tokens_cap": "12"}, "max_tokens_cap"),
])  # fmt: skip
def test_a_policy_document_takes_its_json_types(client: TestClient, db: Database, app_settings: Settings,
                                                document: dict[str, Any], param: str) -> None:
    from gateway.tenants.service import create_tenant

    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("contract"), session=session).id
    admin = {"Authorization": f"Bearer {mint_local_token(app_settings, Role.PLATFORM_ADMIN)}"}
    refused = client.put(f"/admin/v1/tenants/{tenant_id}/policy", json=document, headers=admin)
    assert (_refused(refused)["param"], refused.json()["error"]["code"]) == (param, "invalid_type")
    stored = client.put(f"/admin/v1/tenants/{tenant_id}/policy", headers=admin,
                        json={"max_tokens_cap": 12, "rate_limits": {"requests_per_minute": 5, "fail_open": True}})
    assert stored.status_code == 201, stored.text



def test_a_policy_document_with_an_integer_wider_than_64_bits_is_a_400(client: TestClient, db: Database,
                                                                      app_settings: Settings) -> None:
    from gateway.tenants.service import create_tenant

    with db.transaction() as session:
        tenant_id = create_tenant(unique_name("contract"), session=session).id
    admin = {"Authorization": f"Bearer {mint_local_token(app_settings, Role.PLATFORM_ADMIN)}"}
    # orjson cannot encode such an integer: the refusal must be the field's 400, not an encoder's 500.
    refused = client.put(f"/admin/v1/tenants/{tenant_id}/policy", headers=admin,
                         json={"rate_limits": {"requests_per_minute": 5, "burst": 2**70}})
    assert _refused(refused)["param"] == "rate_limits.burst"

# -- the OpenAPI document ------------------------------------------------------------------------------------------
def test_openapi_states_400_in_the_error_shape_never_422(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas[ERROR_SCHEMA_NAME] == ERROR_SCHEMA
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    error_ref = {"$ref": f"#/components/schemas/{ERROR_SCHEMA_NAME}"}
    checked = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "422" not in responses, (method, path)
            own_shape = not OPENAI_SURFACE_TAGS.intersection(operation.get("tags", ())) and path.startswith("/v1/")
            if own_shape and not operation.get("parameters"):
                continue  # a surface with its own error shape (Anthropic's) parses and documents its body itself
            if "requestBody" in operation or operation.get("parameters"):
                assert responses["400"]["content"]["application/json"]["schema"] == error_ref, (method, path)
                checked += 1
    assert checked >= 20
    for path in ("/v1/chat/completions", "/v1/completions"):
        assert {"400", "401", "429", "503"} <= set(document["paths"][path]["post"]["responses"])


# -- x-ratelimit-* on every admitted, refused and streamed response (live server, real model) -------------------------
def _assert_six(headers: Any, *, requests: tuple[int, int] | None = None,
                tokens_limit: int | None = None) -> None:
    assert set(headers.keys()) >= RATE_LIMIT_HEADERS, dict(headers)
    for name in RATE_LIMIT_HEADERS:
        value = headers[name]
        assert value.isdigit() if "reset" not in name else value.endswith(("ms", "s")), (name, value)
    if requests is not None:
        assert (int(headers["x-ratelimit-limit-requests"]), int(headers["x-ratelimit-remaining-requests"])) == requests
    if tokens_limit is not None:
        assert int(headers["x-ratelimit-limit-tokens"]) == tokens_limit


@pytest.mark.slow
def test_every_v1_response_carries_all_six_rate_limit_headers(live: LiveServer, db: Database, tenant_client,
                                                              model_id: str) -> None:
    tenant, _issued, official = tenant_client
    messages = [{"role": "user", "content": "hi"}]

    # No limits at all (the default policy): both dimensions unlimited, streamed or not.
    raw = official.chat.completions.with_raw_response.create(model=model_id, messages=messages, max_tokens=2)
    _assert_six(raw.headers, requests=(MAX_PER_MINUTE, MAX_PER_MINUTE), tokens_limit=MAX_PER_MINUTE)
    assert raw.headers["x-ratelimit-reset-tokens"] == "0ms"
    with official.chat.completions.with_streaming_response.create(model=model_id, messages=messages, max_tokens=2,
                                                                  stream=True) as streamed:
        _assert_six(streamed.headers, requests=(MAX_PER_MINUTE, MAX_PER_MINUTE))
        assert "[DONE]" in streamed.read().decode()
    raw = official.completions.with_raw_response.create(model=model_id, prompt="hi", max_tokens=2)
    _assert_six(raw.headers, tokens_limit=MAX_PER_MINUTE)

    # Only tokens limited: the requests dimension still comes, unlimited.
    with db.transaction() as session:
        publish_policy(tenant.id, {"rate_limits": {"tokens_per_minute": 100_000}}, session=session)
    raw = official.chat.completions.with_raw_response.create(model=model_id, messages=messages, max_tokens=2)
    _assert_six(raw.headers, requests=(MAX_PER_MINUTE, MAX_PER_MINUTE), tokens_limit=100_000)
    assert int(raw.headers["x-ratelimit-remaining-tokens"]) < 100_000

    # Only requests limited: admitted, then refused, both with all six.
    with db.transaction() as session:
        publish_policy(tenant.id, {"rate_limits": {"requests_per_minute": 1}}, session=session)
    with official.chat.completions.with_streaming_response.create(model=model_id, messages=messages, max_tokens=2,
                                                                  stream=True) as streamed:
        _assert_six(streamed.headers, requests=(1, 0), tokens_limit=MAX_PER_MINUTE)
        streamed.read()
    with pytest.raises(openai.RateLimitError) as limited:
        official.chat.completions.create(model=model_id, messages=messages, max_tokens=2)
    _assert_six(limited.value.response.headers, requests=(1, 0), tokens_limit=MAX_PER_MINUTE)
    assert int(limited.value.response.headers["retry-after"]) >= 1


# -- null max_tokens: OpenAI's default ---------------------------------------------------------------------------------
def test_null_max_tokens_is_accepted_through_the_official_client(client: TestClient, api_key: str) -> None:
    official = openai.OpenAI(base_url=f"{client.base_url}/v1", api_key=api_key, http_client=client, max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "hi"}]
    calls = [
        lambda: official.chat.completions.create(model=MODEL, messages=messages, max_tokens=None),
        lambda: official.chat.completions.create(model=MODEL, messages=messages, max_completion_tokens=None),
        lambda: official.chat.completions.create(model=MODEL, messages=messages, max_tokens=None,
                                                 max_completion_tokens=None, stream=True),
        lambda: official.completions.create(model=MODEL, prompt="hi", max_tokens=None),
        lambda: official.completions.create(model=MODEL, prompt="hi", max_tokens=None, stream=True),
    ]
    for call in calls:
        # the client sends an explicit None as null; accepted, the request reaches the (absent) engine
        with pytest.raises(openai.InternalServerError) as unavailable:
            call()
        assert (unavailable.value.status_code, unavailable.value.code) == (503, "engine_unavailable")


def test_null_max_tokens_of_a_completion_is_openais_default_of_16(app_settings: Settings) -> None:
    from gateway.openai.schemas import CompletionRequest

    assert CompletionRequest.model_validate({**COMPLETION, "max_tokens": None}).max_tokens == 16
    assert CompletionRequest.model_validate({"model": MODEL, "prompt": "hi"}).max_tokens == 16
    schema = CompletionRequest.model_json_schema()["properties"]["max_tokens"]
    assert (schema["type"], schema["default"]) == (["integer", "null"], 16)


@pytest.mark.slow
def test_null_max_tokens_generates_openais_default_length(live: LiveServer, db: Database, tenant_client,
                                                           model_id: str) -> None:
    tenant, _issued, official = tenant_client
    # completions: null is 16 tokens (generated through EOS, so the count is the limit's)
    completion = official.completions.create(model=model_id, prompt="Once upon a time", max_tokens=None,
                                             extra_body={"ignore_eos": True})
    assert completion.usage is not None and completion.usage.completion_tokens == 16
    assert completion.choices[0].finish_reason == "length"
    # chat: null (either name) is what the context has left, within the key's cap
    with db.transaction() as session:
        publish_policy(tenant.id, {"max_tokens_cap": 5}, session=session)
    chat = official.chat.completions.create(model=model_id, messages=[{"role": "user", "content": "Count to 100."}],
                                            max_tokens=None, max_completion_tokens=None,
                                            extra_body={"ignore_eos": True})
    assert chat.usage is not None and chat.usage.completion_tokens == 5
    assert chat.choices[0].finish_reason == "length"
