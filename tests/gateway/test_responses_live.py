"""/v1/responses end to end with the official `openai` client (``responses.create`` / ``.stream`` / ``.retrieve`` /
``.delete``) against the session's live HTTPS server and the real model; every generation is greedy and short."""

from __future__ import annotations

import json

import httpx
import jsonschema
import openai
import pytest
from gateway_support import new_tenant_with_key
from live_server import LiveServer, client_for
from sqlalchemy import select

from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.policystore.service import publish_policy
from gateway.responses_api.models import StoredResponse

pytestmark = pytest.mark.slow

WEATHER = {"type": "function", "name": "get_weather", "description": "Current weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string", "enum": ["Paris", "London"]}},
                          "required": ["city"], "additionalProperties": False}}
ANSWER = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
          "additionalProperties": False}


def _endpoints(live: LiveServer, db: Database, tenant_id: str) -> list[tuple[str, int]]:
    assert live.services.audit.flush(30)
    with db.session() as session:
        rows = session.scalars(select(AuditRecord).where(AuditRecord.chain_id == tenant_id)
                               .order_by(AuditRecord.seq))
        return [(row.endpoint, row.http_status) for row in rows]


def test_create_retrieve_delete_and_their_audit(live: LiveServer, db: Database, tenant_client, model_id: str) -> None:
    tenant, _, client = tenant_client
    response = client.responses.create(model=model_id, input="Say hello.", instructions="Be brief.",
                                       max_output_tokens=8, temperature=0)
    assert response.id.startswith("resp_") and response.object == "response"
    assert response.status in ("completed", "incomplete") and response.output_text
    assert response.output[0].type == "message" and response.output[0].role == "assistant"
    usage = response.usage
    assert usage is not None and usage.input_tokens > 0 and 0 < usage.output_tokens <= 8
    assert usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.input_tokens_details.cached_tokens >= 0 and usage.output_tokens_details.reasoning_tokens == 0

    stored = client.responses.retrieve(response.id)
    assert stored.id == response.id and stored.output_text == response.output_text
    client.responses.delete(response.id)
    with pytest.raises(openai.NotFoundError) as gone:
        client.responses.retrieve(response.id)
    assert gone.value.body["code"] == "response_not_found"  # type: ignore[index]
    with pytest.raises(openai.NotFoundError):
        client.responses.delete(response.id)

    unstored = client.responses.create(model=model_id, input="Hi", max_output_tokens=4, temperature=0, store=False)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(unstored.id)
    assert _endpoints(live, db, tenant.id) == [
        ("responses", 200), ("responses.retrieve", 200), ("responses.delete", 200), ("responses.retrieve", 404),
        ("responses.delete", 404), ("responses", 200), ("responses.retrieve", 404)]


def test_streamed_text_and_json_schema_output(tenant_client, model_id: str) -> None:
    _, _, client = tenant_client
    events = list(client.responses.create(model=model_id, input="Count: one, two,", max_output_tokens=6,
                                          temperature=0, stream=True))
    kinds = [event.type for event in events]
    assert kinds[:2] == ["response.created", "response.in_progress"]
    assert kinds[-1] in ("response.completed", "response.incomplete")
    assert "response.output_text.delta" in kinds and "response.output_item.done" in kinds
    assert [event.sequence_number for event in events] == list(range(len(events)))
    final = events[-1].response  # type: ignore[union-attr]
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")  # type: ignore[union-attr]
    assert final.output_text == text and final.usage.output_tokens <= 6

    structured = client.responses.create(model=model_id, input="Is the sky blue? Answer in JSON.", temperature=0,
                                         max_output_tokens=16,
                                         text={"format": {"type": "json_schema", "name": "answer", "schema": ANSWER,
                                                          "strict": True}})
    assert structured.status == "completed"
    jsonschema.validate(json.loads(structured.output_text), ANSWER)

    with client.responses.stream(model=model_id, input="Is water wet? Answer in JSON.", temperature=0,
                                 max_output_tokens=16, text={"format": {"type": "json_schema", "name": "answer",
                                                                        "schema": ANSWER}}) as stream:
        streamed = stream.get_final_response()
    jsonschema.validate(json.loads(streamed.output_text), ANSWER)


def test_function_call_loop_by_items_and_by_previous_response_id(tenant_client, model_id: str) -> None:
    _, _, client = tenant_client
    question = [{"role": "user", "content": "What is the weather in Paris?"}]
    called = client.responses.create(model=model_id, input=question, tools=[WEATHER], tool_choice="required",
                                     max_output_tokens=48, temperature=0)
    [call] = called.output
    assert call.type == "function_call" and call.name == "get_weather" and call.call_id.startswith("call_")
    jsonschema.validate(json.loads(call.arguments), WEATHER["parameters"])
    result = {"type": "function_call_output", "call_id": call.call_id, "output": '{"sky": "sunny"}'}

    # The stateless loop: the client sends the whole conversation back, its own items and the model's.
    by_items = client.responses.create(model=model_id, input=[*question, call, result],
                                       tools=[WEATHER], tool_choice="none", max_output_tokens=8, temperature=0)
    assert by_items.output[0].type == "message" and by_items.output_text
    # The stateful loop: the server replays the stored conversation.
    continued = client.responses.create(model=model_id, previous_response_id=called.id, input=[result],
                                        tools=[WEATHER], tool_choice="none", max_output_tokens=8, temperature=0)
    assert continued.previous_response_id == called.id and continued.output_text
    assert continued.usage is not None and by_items.usage is not None
    assert continued.usage.input_tokens == by_items.usage.input_tokens  # the same conversation reached the model

    with client.responses.stream(model=model_id, input=question, tools=[WEATHER], max_output_tokens=48,
                                 tool_choice={"type": "function", "name": "get_weather"}, temperature=0) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert "response.function_call_arguments.delta" in kinds and "response.output_text.delta" not in kinds
    [streamed_call] = final.output
    assert streamed_call.type == "function_call" and streamed_call.name == "get_weather"
    jsonschema.validate(json.loads(streamed_call.arguments), WEATHER["parameters"])
    # A streamed response is stored with the call ids the client saw.
    follow_up = client.responses.create(
        model=model_id, previous_response_id=final.id, tools=[WEATHER], tool_choice="none", max_output_tokens=4,
        input=[{"type": "function_call_output", "call_id": streamed_call.call_id, "output": "rain"}], temperature=0)
    assert follow_up.output_text


def test_another_tenants_response_is_not_found(live: LiveServer, db: Database, tls_context, tenant_client,
                                               model_id: str) -> None:
    _, _, owner = tenant_client
    mine = owner.responses.create(model=model_id, input="Hi", max_output_tokens=4, temperature=0)
    _, other_key = new_tenant_with_key(db, live.settings)
    other = client_for(live, tls_context, other_key.api_key)
    for attempt in (lambda: other.responses.retrieve(mine.id), lambda: other.responses.delete(mine.id)):
        with pytest.raises(openai.NotFoundError) as caught:
            attempt()
        assert caught.value.body["code"] == "response_not_found"  # type: ignore[index]
    with pytest.raises(openai.NotFoundError) as caught:
        other.responses.create(model=model_id, input="Go on", previous_response_id=mine.id, max_output_tokens=4)
    assert caught.value.body["param"] == "previous_response_id"  # type: ignore[index]
    assert owner.responses.retrieve(mine.id).id == mine.id  # still there for its owner


def test_input_items_list_the_conversation_a_response_was_given(live: LiveServer, db: Database, tls_context,
                                                                  tenant_client, model_id: str) -> None:
    tenant, _, client = tenant_client
    first = client.responses.create(model=model_id, input="Hi", instructions="Be brief.", max_output_tokens=4,
                                    temperature=0)
    second = client.responses.create(model=model_id, input="Go on", previous_response_id=first.id,
                                     max_output_tokens=4, temperature=0)
    listed = client.responses.input_items.list(second.id, order="asc")
    assert [(item.type, getattr(item, "role", None)) for item in listed.data] == [
        ("message", "user"), ("message", "assistant"), ("message", "user")]
    texts = [item.content[0].text for item in listed.data]  # type: ignore[union-attr]
    assert texts == ["Hi", first.output_text, "Go on"]  # instructions are not an input item
    assert listed.has_more is False and listed.first_id == listed.data[0].id
    paged = list(client.responses.input_items.list(second.id, order="asc", limit=1))  # follows `after`
    assert [item.id for item in paged] == [item.id for item in listed.data]
    newest = client.responses.input_items.list(second.id, limit=1)  # desc by default
    assert newest.data[0].id == listed.data[-1].id and newest.has_more is True

    other_tenant, other_key = new_tenant_with_key(db, live.settings)
    with pytest.raises(openai.NotFoundError) as caught:
        client_for(live, tls_context, other_key.api_key).responses.input_items.list(second.id)
    assert caught.value.body["code"] == "response_not_found"  # type: ignore[index]
    with pytest.raises(openai.BadRequestError) as bad:
        client.responses.input_items.list(second.id, limit=0)
    assert bad.value.body["param"] == "limit"  # type: ignore[index]
    assert _endpoints(live, db, tenant.id) == [("responses", 200)] * 2 + [("responses.input_items", 200)] * 5 + [
        ("responses.input_items", 400)]
    assert _endpoints(live, db, other_tenant.id) == [("responses.input_items", 404)]


@pytest.mark.parametrize(("fields", "param"), [
    ({"tools": [{"type": "web_search"}]}, "tools[0].type"),
    ({"background": True}, "background"),
    ({"reasoning": {"effort": "low"}}, "reasoning"),
    ({"truncation": "auto"}, "truncation"),
    ({"include": ["reasoning.encrypted_content"]}, "include"),
    ({"extra_body": {"top_logprobs": 2}}, "top_logprobs"),
    ({"text": {"format": {"type": "json_schema", "name": "bad", "schema": {"type": "nonsense"}}}}, "text.format"),
    ({"max_output_tokens": 100_000}, "max_output_tokens"),
])
def test_unsupported_params_are_400s_naming_them(live: LiveServer, db: Database, tenant_client, model_id: str,
                                                 fields: dict, param: str) -> None:  # type: ignore[type-arg]
    tenant, _, client = tenant_client
    with db.transaction() as session:
        publish_policy(tenant.id, {"max_tokens_cap": 64}, session=session)
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=model_id, input="Hi", **fields)
    assert caught.value.body["param"] == param  # type: ignore[index]


def test_strict_types_over_raw_http(live: LiveServer, tls_context, tenant_client, model_id: str) -> None:
    _, issued, _ = tenant_client
    with httpx.Client(verify=tls_context, base_url=live.base_url, timeout=120) as http:
        answer = http.post("/v1/responses", headers={"authorization": f"Bearer {issued.api_key}"},
                           json={"model": model_id, "input": "Hi", "stream": "yes"})
        assert answer.status_code == 400
        assert answer.json()["error"]["param"] == "stream"
        unauthenticated = http.get("/v1/responses/resp_x")
        assert unauthenticated.status_code == 401 and unauthenticated.json()["error"]["type"] == "authentication_error"
        query = http.get("/v1/responses/resp_x?include[]=x", headers={"authorization": f"Bearer {issued.api_key}"})
        assert query.status_code == 400 and query.json()["error"]["param"] == "include[]"


def test_stored_content_follows_the_audit_content_policy(live: LiveServer, db: Database, tenant_client,
                                                         model_id: str) -> None:
    tenant, _, client = tenant_client
    secret = "Call me at jane.doe@example.com please."
    with db.transaction() as session:
        publish_policy(tenant.id, {"audit_content": "redacted", "pii_input": {"entities": {"EMAIL_ADDRESS": "mask"},
                                                                              "ner_enabled": False}},
                       session=session)
    redacted = client.responses.create(model=model_id, input=secret, max_output_tokens=4, temperature=0)
    with db.session() as session:
        row = session.get(StoredResponse, redacted.id)
        assert row is not None and row.content_mode == "redacted" and row.conversation is not None
        assert "jane.doe@example.com" not in json.dumps(row.conversation)

    with db.transaction() as session:
        publish_policy(tenant.id, {"audit_content": "hashes"}, session=session)
    hashed = client.responses.create(model=model_id, input="Hi", max_output_tokens=4, temperature=0)
    assert hashed.output_text  # the caller gets its answer; only the stored copy has no content
    stored = client.responses.retrieve(hashed.id)
    assert stored.output == []
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model=model_id, input="Go on", previous_response_id=hashed.id, max_output_tokens=4)
    assert caught.value.body["param"] == "previous_response_id"  # type: ignore[index]


def test_the_tenants_policy_governs_responses_as_it_governs_chat(live: LiveServer, db: Database, tls_context,
                                                                 tenant_client, model_id: str) -> None:
    tenant, _, client = tenant_client
    raw = client.responses.with_raw_response.create(model=model_id, input="Hi", max_output_tokens=2, temperature=0)
    assert float(raw.headers["x-warden-overhead-ms"]) >= 0 and "x-ratelimit-limit-requests" in raw.headers

    with db.transaction() as session:
        publish_policy(tenant.id, {"output_deny_patterns": ["(?s).+"]}, session=session)
    denied = client.responses.create(model=model_id, input="Say hello.", max_output_tokens=4, temperature=0)
    assert denied.output_text == "<DENIED_CONTENT>"  # rewritten in place, as on chat
    events = list(client.responses.create(model=model_id, input="Say hello.", max_output_tokens=4, temperature=0,
                                          stream=True))
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")  # type: ignore[union-attr]
    assert deltas == "<DENIED_CONTENT>" and events[-1].response.output_text == deltas  # type: ignore[union-attr]

    with db.transaction() as session:
        publish_policy(tenant.id, {"allowed_models": ["another-model"]}, session=session)
    with pytest.raises(openai.PermissionDeniedError):
        client.responses.create(model=model_id, input="Hi", max_output_tokens=2)

    limited_tenant, limited_key = new_tenant_with_key(db, live.settings)  # a fresh minute of requests
    with db.transaction() as session:
        publish_policy(limited_tenant.id, {"rate_limits": {"requests_per_minute": 1}}, session=session)
    client = client_for(live, tls_context, limited_key.api_key)
    client.responses.create(model=model_id, input="Hi", max_output_tokens=2, temperature=0)
    with pytest.raises(openai.RateLimitError) as limited:
        client.responses.create(model=model_id, input="Hi", max_output_tokens=2, temperature=0)
    assert limited.value.response.headers["x-ratelimit-remaining-requests"] == "0"
    assert "retry-after" in limited.value.response.headers
