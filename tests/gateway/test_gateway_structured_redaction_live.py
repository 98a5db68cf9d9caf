"""Output guardrails on structured outputs, end to end: the official `openai` client, the real model, greedy.

A response that ends with ``stop`` is always valid JSON that satisfies the request's schema, even when the output
guardrails rewrote part of it; when they could not (a value outside a string, or a mask that breaks the schema)
the choice ends with ``content_filter`` and no part of the withheld value is sent. Streamed and whole responses
release the same text.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from gateway_support import new_tenant_with_key
from live_server import client_for
from sqlalchemy import select

from gateway.audit.models import AuditRecord
from gateway.policystore.service import publish_policy

PROMPT = [{"role": "user", "content": "Describe a made-up city as JSON: its name and its population."}]
CITY = {"type": "object", "properties": {"name": {"type": "string"}, "population": {"type": "integer"}},
        "required": ["name", "population"], "additionalProperties": False}
SHORT_CITY = {**CITY, "properties": {**CITY["properties"], "name": {"type": "string", "maxLength": 12}}}


def _schema_format(schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "city", "schema": schema, "strict": True}}


def _ask(client, model_id: str, schema: dict[str, Any]) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    whole = client.chat.completions.create(model=model_id, messages=PROMPT, max_tokens=48, temperature=0,
                                           response_format=_schema_format(schema))
    stream = client.chat.completions.create(model=model_id, messages=PROMPT, max_tokens=48, temperature=0,
                                            response_format=_schema_format(schema), stream=True)
    chunks = list(stream)
    streamed = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    reasons = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    choice = whole.choices[0]
    assert streamed == choice.message.content and reasons == [choice.finish_reason]
    return choice.message.content or "", choice.finish_reason


def _client_with_policy(live, db, tls_context, document: dict[str, Any]):  # type: ignore[no-untyped-def]
    tenant, issued = new_tenant_with_key(db, live.settings)
    with db.transaction() as session:
        publish_policy(tenant.id, document, session=session)
    client = client_for(live, tls_context, issued.api_key)
    client.tenant_id = tenant.id  # type: ignore[attr-defined]  # whose audit chain to read
    return client


def _output_decisions(live, db, tenant_id: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """The output-guardrail decisions of every audit record in the tenant's chain (types and reasons, no values)."""
    # A response leaves once its record is durable in the local spool; the writer moves it to the database soon
    # after.
    assert live.services.audit.flush(10)
    with db.session() as session:
        rows = session.scalars(select(AuditRecord.decisions).where(AuditRecord.chain_id == tenant_id))
        return [d for decisions in rows for d in decisions if d.get("stage") == "output_guardrails"]


@pytest.mark.slow
def test_redacted_structured_outputs_stay_valid_or_end_in_content_filter(live, db, tls_context,
                                                                         model_id: str) -> None:
    plain = _client_with_policy(live, db, tls_context, {})
    # What the model writes with nothing to redact (greedy: the same for every tenant).
    original, reason = _ask(plain, model_id, CITY)
    assert reason == "stop", original
    city = json.loads(original)
    jsonschema.validate(city, CITY)
    short, reason = _ask(plain, model_id, SHORT_CITY)
    assert reason == "stop", short
    short_city = json.loads(short)
    assert short_city["name"] and len(short_city["name"]) <= 12

    # A deny pattern on the name: masked inside the string, so still valid JSON and schema-valid.
    names = _client_with_policy(live, db, tls_context, {
        "output_deny_patterns": [re.escape(city["name"]), re.escape(short_city["name"])]})
    masked, reason = _ask(names, model_id, CITY)
    value = json.loads(masked)
    assert reason == "stop" and value["name"] == "<DENIED_CONTENT>" and value["population"] == city["population"]
    jsonschema.validate(value, CITY)
    # The same mask breaks maxLength 12: not a conforming output, so it is not presented as one.
    too_long, reason = _ask(names, model_id, SHORT_CITY)
    assert reason == "content_filter" and json.loads(too_long)["name"] == "<DENIED_CONTENT>"
    broke = [d for d in _output_decisions(live, db, names.tenant_id) if d.get("kind") == "structured_output"]
    assert len(broke) == 2 and all(d["decision"] == "content_filter" for d in broke)  # whole and streamed

    # A deny pattern on the number: it cannot be masked in place, so it and the rest are withheld.
    numbers = _client_with_policy(live, db, tls_context, {"output_deny_patterns": [r"[0-9]+"]})
    cut, reason = _ask(numbers, model_id, CITY)
    assert reason == "content_filter"
    assert original.startswith(cut) and not re.search(r"[0-9]", cut)
    assert cut.rstrip().endswith(":")  # released up to the value, none of it
    withheld = [d for d in _output_decisions(live, db, numbers.tenant_id) if d.get("decision") == "withheld"]
    assert len(withheld) == 2 and all(d["entity_types"] == ["DENIED_CONTENT"] for d in withheld)
    assert not any(city["name"] in json.dumps(d) for d in _output_decisions(live, db, names.tenant_id))  # no values


@pytest.mark.slow
def test_a_withheld_output_stops_the_engine_early(live, db, tls_context, model_id: str) -> None:
    """Once a value is withheld nothing more of the choice is sent, so its generation is aborted: the usage counts
    the tokens generated up to then, far fewer than the output would have had."""
    numbers = {"type": "array", "items": {"type": "integer"}, "minItems": 150}
    response_format = {"type": "json_schema", "json_schema": {"name": "numbers", "schema": numbers, "strict": True}}
    messages = [{"role": "user", "content": "List the numbers from 1 to 150 as a JSON array."}]
    withheld = _client_with_policy(live, db, tls_context, {"output_deny_patterns": [r"[0-9]+"]})
    for stream in (False, True):
        kwargs = {"stream_options": {"include_usage": True}} if stream else {}
        answer = withheld.chat.completions.create(model=model_id, messages=messages, max_tokens=400, temperature=0,
                                                  response_format=response_format, stream=stream, **kwargs)
        if stream:
            chunks = list(answer)
            content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
            reason = next(c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason)
            usage = chunks[-1].usage
        else:
            content, reason, usage = answer.choices[0].message.content, answer.choices[0].finish_reason, answer.usage
        assert reason == "content_filter" and not re.search(r"[0-9]", content or "")
        assert usage is not None and usage.completion_tokens < 150, usage  # 150 numbers need more tokens than that
