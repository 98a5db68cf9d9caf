"""End to end with the official `openai` client against a live HTTPS server and the real model.

Shares one server (and one model load) per session; every generation is short (max_tokens <= 8).
Runs on SQLite locally and on Postgres when WARDEN_DATABASE_URL is set.
"""

from __future__ import annotations

import ssl
import time

import openai
import pytest
from live_server import LiveServer, client_for
from sqlalchemy import delete, select, update

from gateway.audit.models import AuditRecord
from gateway.audit.verify import verify_chains
from gateway.core.db import Database
from gateway.core.middleware import OVERHEAD_HEADER
from gateway.policystore.service import publish_policy

pytestmark = pytest.mark.slow


def audit_rows(live: LiveServer, db: Database, tenant_id: str) -> list[AuditRecord]:
    assert live.services.audit.flush(30)
    with db.session() as session:
        return list(session.scalars(select(AuditRecord).where(AuditRecord.chain_id == tenant_id)
                                    .order_by(AuditRecord.seq)))


def assert_usage(usage) -> None:  # type: ignore[no-untyped-def]
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert usage.prompt_tokens_details is not None and usage.prompt_tokens_details.cached_tokens >= 0


def test_models_chat_stream_completions_and_their_audit(live: LiveServer, db: Database, tenant_client,
                                                        model_id: str) -> None:
    tenant, issued, client = tenant_client
    models = client.models.list()
    assert [m.id for m in models.data] == [model_id]

    raw = client.chat.completions.with_raw_response.create(
        model=model_id, messages=[{"role": "user", "content": "Say hello."}], max_tokens=6, temperature=0)
    assert float(raw.headers[OVERHEAD_HEADER]) >= 0
    chat = raw.parse()
    assert chat.object == "chat.completion" and chat.choices[0].message.role == "assistant"
    assert chat.choices[0].message.content and chat.choices[0].finish_reason in ("stop", "length")
    assert_usage(chat.usage)

    chunks = list(client.chat.completions.create(
        model=model_id, messages=[{"role": "user", "content": "Say hello."}], max_completion_tokens=6,
        temperature=0, stream=True, stream_options={"include_usage": True}))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == chat.choices[0].message.content  # greedy: same text streamed or not
    assert chunks[-1].choices == [] and chunks[-1].usage is not None
    assert_usage(chunks[-1].usage)
    # The second identical prompt finds its prefix in the tenant's cache.
    assert chunks[-1].usage.prompt_tokens_details.cached_tokens > 0
    assert any(c.choices and c.choices[0].finish_reason for c in chunks)

    completion = client.completions.create(model=model_id, prompt="The capital of France is", max_tokens=4,
                                           temperature=0, logprobs=2, echo=False, user="someone")
    assert completion.object == "text_completion" and completion.choices[0].text
    assert len(completion.choices[0].logprobs.tokens) == completion.usage.completion_tokens
    assert_usage(completion.usage)

    streamed = list(client.completions.create(model=model_id, prompt="The capital of France is", max_tokens=4,
                                              temperature=0, stream=True, stream_options={"include_usage": True}))
    assert "".join(c.choices[0].text for c in streamed if c.choices) == completion.choices[0].text
    assert_usage(streamed[-1].usage)

    rows = audit_rows(live, db, tenant.id)
    assert [r.endpoint for r in rows] == ["models", "chat.completions", "chat.completions", "completions",
                                          "completions"]
    assert all(r.http_status == 200 and r.key_id == issued.key_id for r in rows)
    assert rows[1].completion_tokens == chat.usage.completion_tokens
    assert rows[1].content is not None and rows[1].content["mode"] == "redacted"
    assert rows[1].content["completions"] == [chat.choices[0].message.content]
    with db.session() as session:
        assert verify_chains(session=session, chain_id=tenant.id).ok


def test_n_choices_seed_and_chat_logprobs(tenant_client, model_id: str) -> None:  # type: ignore[no-untyped-def]
    _tenant, _issued, client = tenant_client
    result = client.chat.completions.create(
        model=model_id, messages=[{"role": "user", "content": "Pick a colour."}], max_tokens=4, n=2, seed=7,
        temperature=1.0, logprobs=True, top_logprobs=2, stop=["\n\n"])
    assert [c.index for c in result.choices] == [0, 1]
    for choice in result.choices:
        assert choice.logprobs is not None and choice.logprobs.content
        assert all(len(t.top_logprobs) == 2 for t in choice.logprobs.content)
    assert result.usage.completion_tokens == sum(len(c.logprobs.content) for c in result.choices)


def test_min_tokens_and_ignore_eos_extensions(tenant_client, model_id: str) -> None:  # type: ignore[no-untyped-def]
    _tenant, _issued, client = tenant_client
    messages = [{"role": "user", "content": "Say OK."}]
    exact = client.completions.create(model=model_id, prompt="The capital of France is", max_tokens=12,
                                      temperature=0, extra_body={"ignore_eos": True})
    assert exact.usage.completion_tokens == 12 and exact.choices[0].finish_reason == "length"
    held = client.chat.completions.create(model=model_id, messages=messages, max_tokens=10, temperature=0,
                                          stop=["."], extra_body={"min_tokens": 8})
    assert held.usage.completion_tokens >= 8
    with pytest.raises(openai.BadRequestError, match="min_tokens"):
        client.chat.completions.create(model=model_id, messages=messages, max_tokens=4, extra_body={"min_tokens": 5})
    with pytest.raises(openai.BadRequestError, match="min_tokens"):
        client.chat.completions.create(model=model_id, messages=messages, max_tokens=8,
                                       response_format={"type": "json_object"}, extra_body={"min_tokens": 2})


def test_refusals_map_to_the_openai_client_errors(live: LiveServer, db: Database, tenant_client,
                                                  tls_context: ssl.SSLContext, model_id: str) -> None:
    tenant, _issued, client = tenant_client
    messages = [{"role": "user", "content": "hi"}]
    with pytest.raises(openai.AuthenticationError):
        client_for(live, tls_context, "wdn_notakey").chat.completions.create(model=model_id, messages=messages)
    with pytest.raises(openai.BadRequestError, match="guided_json"):
        client.chat.completions.create(model=model_id, messages=messages, max_tokens=2,
                                       extra_body={"guided_json": {"type": "object"}})
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model=model_id, messages=messages, temperature=5)
    with pytest.raises(openai.BadRequestError, match="cache_salt"):
        client.chat.completions.create(model=model_id, messages=messages, extra_body={"cache_salt": "x"})
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="gpt-4o", messages=messages, max_tokens=2)

    with db.transaction() as session:
        publish_policy(tenant.id, {"max_tokens_cap": 4, "rate_limits": {"requests_per_minute": 1}}, session=session)
    with pytest.raises(openai.BadRequestError, match="cap"):
        client.chat.completions.create(model=model_id, messages=messages, max_tokens=50)
    client.chat.completions.create(model=model_id, messages=messages, max_tokens=2)  # the one allowed request
    with pytest.raises(openai.RateLimitError) as limited:
        client.chat.completions.create(model=model_id, messages=messages, max_tokens=2)
    assert int(limited.value.response.headers["retry-after"]) >= 1
    with db.transaction() as session:
        publish_policy(tenant.id, {"allowed_models": ["another-model"]}, session=session)
    with pytest.raises(openai.PermissionDeniedError):
        client.chat.completions.create(model=model_id, messages=messages, max_tokens=2)
    assert client.models.list().data == []

    statuses = [r.http_status for r in audit_rows(live, db, tenant.id)]
    assert statuses == [400, 400, 400, 404, 400, 200, 429, 403, 200]  # the 401 went to the anonymous chain


def test_revoked_key_stops_working(live: LiveServer, db: Database, tenant_client, model_id: str) -> None:
    from gateway.keys.service import revoke_key

    _tenant, issued, client = tenant_client
    assert client.models.list().data
    with db.transaction() as session:
        revoke_key(issued.key_id, session=session)
    with pytest.raises(openai.AuthenticationError):
        client.models.list()  # the live server's key cache TTL is 0 in this session


def test_client_disconnect_aborts_the_request(live: LiveServer, db: Database, tenant_client,
                                              model_id: str) -> None:
    tenant, _issued, client = tenant_client
    stream = client.chat.completions.create(model=model_id, messages=[{"role": "user", "content": "Count to 100."}],
                                            max_tokens=256, temperature=0, stream=True)
    for _chunk in stream:
        break  # first chunk arrived: hang up
    stream.close()
    deadline = time.monotonic() + 60
    rows: list[AuditRecord] = []
    while time.monotonic() < deadline:
        rows = audit_rows(live, db, tenant.id)
        if rows:
            break
        time.sleep(0.2)
    (row,) = rows
    assert row.http_status == 499 and row.completion_tokens < 256


def test_editing_or_deleting_a_live_audit_row_is_detected(live: LiveServer, db: Database, tenant_client) -> None:
    tenant, _issued, client = tenant_client
    for _ in range(3):
        client.models.list()
    assert len(audit_rows(live, db, tenant.id)) == 3
    with db.transaction() as session:
        session.execute(update(AuditRecord).where(AuditRecord.chain_id == tenant.id, AuditRecord.seq == 1)
                        .values(http_status=201))
    with db.session() as session:
        (broken,) = verify_chains(session=session, chain_id=tenant.id).broken
    assert broken.seq == 1
    with db.transaction() as session:
        session.execute(update(AuditRecord).where(AuditRecord.chain_id == tenant.id, AuditRecord.seq == 1)
                        .values(http_status=200))
        session.execute(delete(AuditRecord).where(AuditRecord.chain_id == tenant.id, AuditRecord.seq == 2))
    with db.session() as session:
        (broken,) = verify_chains(session=session, chain_id=tenant.id).broken
    assert broken.seq == 2


def test_guardrails_redact_the_prompt_and_the_audit_keeps_only_redacted_text(live: LiveServer, db: Database,
                                                                            tenant_client, model_id: str) -> None:
    tenant, _issued, client = tenant_client
    secret_email = "jane.doe@example.com"
    client.chat.completions.create(model=model_id, max_tokens=2, temperature=0,
                                   messages=[{"role": "user", "content": f"Write to {secret_email} please."}])
    (row,) = audit_rows(live, db, tenant.id)
    assert row.content is not None and row.content["mode"] == "redacted"
    assert secret_email not in str(row.content) and "EMAIL_ADDRESS" in str(row.content)
    assert any(d.get("stage") == "input_guardrails" for d in row.decisions)

    with db.transaction() as session:
        publish_policy(tenant.id, {"pii_input": {"entities": {"EMAIL_ADDRESS": "block"}}}, session=session)
    with pytest.raises(openai.BadRequestError, match="EMAIL_ADDRESS"):
        client.chat.completions.create(model=model_id, max_tokens=2,
                                       messages=[{"role": "user", "content": f"Write to {secret_email}."}])
    with db.transaction() as session:
        publish_policy(tenant.id, {"audit_content": "hashes"}, session=session)
    client.completions.create(model=model_id, prompt="Hello", max_tokens=2)
    rows = audit_rows(live, db, tenant.id)
    assert [r.http_status for r in rows] == [200, 400, 200]
    assert set(rows[2].content or {}) == {"mode", "prompt_sha256", "completions_sha256"}
