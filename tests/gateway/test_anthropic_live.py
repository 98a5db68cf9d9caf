"""``/v1/messages`` end to end with the official ``anthropic`` client against the live HTTPS server and the real model:
create and stream, a tool_use -> tool_result -> answer loop, x-api-key and Bearer credentials, and refusals raised as
the client's own exception types from Anthropic's error shape. Every generation is short."""

from __future__ import annotations

import ssl
from typing import Any

import anthropic
import httpx
import httpx2
import pytest
from live_server import LiveServer
from sqlalchemy import select

from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.middleware import OVERHEAD_HEADER
from gateway.policystore.service import publish_policy

pytestmark = pytest.mark.slow

WEATHER_TOOL: dict[str, Any] = {
    "name": "get_weather", "description": "Current weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 20}},
                     "required": ["city"], "additionalProperties": False}}
GREEDY = {"temperature": 0}  # the SDK no longer declares temperature; older clients send it and Warden honours it


def anthropic_client(live: LiveServer, tls: ssl.SSLContext, api_key: str | None = None,
                     auth_token: str | None = None) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=live.base_url, api_key=api_key, auth_token=auth_token, max_retries=0,
                               timeout=300, http_client=httpx2.Client(verify=tls))


def audit_rows(live: LiveServer, db: Database, tenant_id: str) -> list[AuditRecord]:
    assert live.services.audit.flush(30)
    with db.session() as session:
        return list(session.scalars(select(AuditRecord).where(AuditRecord.chain_id == tenant_id)
                                    .order_by(AuditRecord.seq)))


def test_create_and_stream_with_the_official_client(live: LiveServer, db: Database, tenant_client,
                                                    tls_context: ssl.SSLContext, model_id: str) -> None:
    tenant, issued, _openai = tenant_client
    client = anthropic_client(live, tls_context, api_key=issued.api_key)  # x-api-key
    messages: list[Any] = [{"role": "user", "content": "Say hello."}]
    raw = client.messages.with_raw_response.create(model=model_id, max_tokens=6, system="You are terse.",
                                                   messages=messages, extra_body=GREEDY)
    assert float(raw.headers[OVERHEAD_HEADER]) >= 0 and "x-ratelimit-limit-requests" in raw.headers
    message = raw.parse()
    assert message.type == "message" and message.role == "assistant" and message.id.startswith("msg_")
    assert message.model == model_id and message.stop_reason in ("end_turn", "max_tokens")
    (block,) = message.content
    assert block.type == "text" and block.text
    assert message.usage.input_tokens > 0 and 0 < message.usage.output_tokens <= 6

    with client.messages.stream(model=model_id, max_tokens=6, system="You are terse.", messages=messages,
                                extra_body=GREEDY) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed == block.text  # greedy: the same text streamed or not
    assert final.content[0].text == streamed and final.stop_reason == message.stop_reason  # type: ignore[union-attr]
    # The repeat found its prompt in the tenant's prefix cache; input + cache reads is the whole prompt.
    assert final.usage.cache_read_input_tokens and final.usage.cache_read_input_tokens > 0
    assert final.usage.input_tokens + final.usage.cache_read_input_tokens == \
        message.usage.input_tokens + (message.usage.cache_read_input_tokens or 0)

    bearer = anthropic_client(live, tls_context, auth_token=issued.api_key)  # Authorization: Bearer
    assert bearer.messages.create(model=model_id, max_tokens=2, messages=messages).content

    rows = audit_rows(live, db, tenant.id)
    assert [(r.endpoint, r.http_status) for r in rows] == [("messages", 200)] * 3
    assert all(r.key_id == issued.key_id for r in rows)
    assert rows[0].completion_tokens == message.usage.output_tokens


def test_tool_use_then_tool_result_then_answer(live: LiveServer, db: Database, tenant_client,
                                               tls_context: ssl.SSLContext, model_id: str) -> None:
    tenant, issued, _openai = tenant_client
    client = anthropic_client(live, tls_context, api_key=issued.api_key)
    question: dict[str, Any] = {"role": "user", "content": "What is the weather in Paris?"}
    called = client.messages.create(model=model_id, max_tokens=48, messages=[question], tools=[WEATHER_TOOL],
                                    tool_choice={"type": "tool", "name": "get_weather"}, extra_body=GREEDY)
    assert called.stop_reason == "tool_use", called
    (use,) = called.content
    assert use.type == "tool_use" and use.name == "get_weather" and use.id.startswith("toolu_")
    assert isinstance(use.input, dict) and isinstance(use.input.get("city"), str)

    with client.messages.stream(model=model_id, max_tokens=48, messages=[question], tools=[WEATHER_TOOL],
                                tool_choice={"type": "any"}, extra_body=GREEDY) as stream:
        streamed = stream.get_final_message()
    assert streamed.stop_reason == "tool_use" and streamed.content[0].type == "tool_use"
    assert streamed.content[0].input == use.input  # type: ignore[union-attr]

    answer = client.messages.create(model=model_id, max_tokens=8, tools=[WEATHER_TOOL], extra_body=GREEDY,
                                    messages=[question, {"role": "assistant", "content": called.content},
                                              {"role": "user", "content": [{"type": "tool_result",
                                                                            "tool_use_id": use.id,
                                                                            "content": "18 C and sunny"}]}],
                                    tool_choice={"type": "none"})
    assert answer.stop_reason in ("end_turn", "max_tokens")
    assert answer.content and answer.content[0].type == "text" and answer.content[0].text
    rows = audit_rows(live, db, tenant.id)
    assert [(r.endpoint, r.http_status) for r in rows] == [("messages", 200)] * 3


def test_refusals_raise_the_clients_exceptions_in_anthropics_shape(live: LiveServer, db: Database, tenant_client,
                                                                   tls_context: ssl.SSLContext,
                                                                   model_id: str) -> None:
    tenant, issued, _openai = tenant_client
    client = anthropic_client(live, tls_context, api_key=issued.api_key)
    messages: list[Any] = [{"role": "user", "content": "hi"}]

    def error_of(exc: pytest.ExceptionInfo[anthropic.APIStatusError]) -> dict[str, Any]:
        body = exc.value.body
        assert isinstance(body, dict) and body["type"] == "error" and body["request_id"]
        return body["error"]

    with pytest.raises(anthropic.AuthenticationError) as caught:
        anthropic_client(live, tls_context, api_key="wdn_notakey").messages.create(
            model=model_id, max_tokens=2, messages=messages)
    assert error_of(caught)["type"] == "authentication_error"
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=model_id, max_tokens=2, messages=messages,
                               thinking={"type": "enabled", "budget_tokens": 2048})
    assert error_of(caught) == {"type": "invalid_request_error", "message": "extended thinking is not supported"}
    with pytest.raises(anthropic.BadRequestError, match="image"):
        client.messages.create(model=model_id, max_tokens=2, messages=[{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}])
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.messages.create(model="claude-sonnet-4-5", max_tokens=2, messages=messages)
    assert error_of(caught)["type"] == "not_found_error"

    with httpx.Client(verify=tls_context, timeout=60.0) as raw:
        wrong_version = raw.post(f"{live.base_url}/v1/messages", json={"model": model_id, "max_tokens": 2,
                                                                        "messages": messages},
                                 headers={"x-api-key": issued.api_key, "anthropic-version": "2021-01-01"})
        unversioned = raw.post(f"{live.base_url}/v1/messages", json={"model": model_id, "max_tokens": 2,
                                                                      "messages": messages},
                               headers={"x-api-key": issued.api_key})
    assert wrong_version.status_code == 400 and "anthropic-version" in wrong_version.json()["error"]["message"]
    assert unversioned.status_code == 200 and unversioned.json()["type"] == "message"

    with db.transaction() as session:
        publish_policy(tenant.id, {"rate_limits": {"requests_per_minute": 1}}, session=session)
    client.messages.create(model=model_id, max_tokens=2, messages=messages)  # the one allowed request
    with pytest.raises(anthropic.RateLimitError) as limited:
        client.messages.create(model=model_id, max_tokens=2, messages=messages)
    assert error_of(limited)["type"] == "rate_limit_error"
    assert int(limited.value.response.headers["retry-after"]) >= 1
    with db.transaction() as session:
        publish_policy(tenant.id, {"allowed_models": ["another-model"]}, session=session)
    with pytest.raises(anthropic.PermissionDeniedError) as caught:
        client.messages.create(model=model_id, max_tokens=2, messages=messages)
    assert error_of(caught)["type"] == "permission_error"

    rows = audit_rows(live, db, tenant.id)
    assert all(r.endpoint == "messages" for r in rows)
    assert [r.http_status for r in rows] == [400, 400, 404, 400, 200, 200, 429, 403]  # the 401 is anonymous


def test_a_stop_sequence_is_reported_and_message_start_counts_the_prompt(tenant_client, live: LiveServer,
                                                                         tls_context: ssl.SSLContext,
                                                                         model_id: str) -> None:
    _tenant, issued, _openai = tenant_client
    client = anthropic_client(live, tls_context, api_key=issued.api_key)
    messages: list[Any] = [{"role": "user", "content": "Count from one to ten in words."}]
    free = client.messages.create(model=model_id, max_tokens=8, messages=messages, extra_body=GREEDY)
    text = free.content[0].text  # type: ignore[union-attr]
    # Two characters the greedy answer first writes after its start: the output must end just before them.
    at = next(k for k in range(1, len(text) - 1) if text.find(text[k:k + 2]) == k)
    stop = text[at:at + 2]
    cut = client.messages.create(model=model_id, max_tokens=8, messages=messages, stop_sequences=[stop, "zzqx"],
                                 extra_body=GREEDY)
    assert (cut.stop_reason, cut.stop_sequence) == ("stop_sequence", stop)
    assert cut.content[0].text == text[:at]  # type: ignore[union-attr]

    with client.messages.stream(model=model_id, max_tokens=8, messages=messages, stop_sequences=[stop],
                                extra_body=GREEDY) as stream:
        starts = [event.message.usage for event in stream if event.type == "message_start"]
        final = stream.get_final_message()
    assert (final.stop_reason, final.stop_sequence) == ("stop_sequence", stop)
    assert final.content[0].text == text[:at]  # type: ignore[union-attr]
    (start,) = starts
    whole_prompt = free.usage.input_tokens + (free.usage.cache_read_input_tokens or 0)
    assert start.input_tokens > 0
    assert start.input_tokens + (start.cache_read_input_tokens or 0) == whole_prompt
