"""Prefix-cache isolation through the gateway: the tenant's salt is the gateway's HMAC and nothing a client sends,
tenants never share cached blocks, and a system prompt published as public (admin API, by content hash in the
policy) is shared by exactly the tenants that publish it.

A real app (TestClient), a real in-process engine serving a tiny random Llama with SmolLM2's tokenizer and chat
template (loads in seconds; cache behaviour does not depend on the weights), guardrails off.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from gateway_support import SUPPORT_SYSTEM_PROMPT as SYSTEM
from gateway_support import new_tenant_with_key, tiny_app_settings

from gateway.adminauth.roles import Role
from gateway.adminauth.setup import mint_local_token
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.policystore.service import load_active_policy
from policies.model import public_prefix_hash
from tests.engine.tiny_models import write_tiny_checkpoint

BLOCK_SIZE = 16  # the engine's default


@pytest.fixture(scope="module")
def app_settings(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    model = write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-gateway-model"))
    return tiny_app_settings(database_url, model, tmp_path_factory.mktemp("prefix-data"), "prefix-test-secret")


@pytest.fixture(scope="module")
def client(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def model(client: TestClient) -> str:
    return client.app.state.services.engine.model_name  # type: ignore[attr-defined]


def chat(client: TestClient, api_key: str, model: str, question: str, *, system: str = SYSTEM,
         **extra: Any) -> dict[str, Any]:
    body = {"model": model, "max_tokens": 4, "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}], **extra}
    response = client.post("/v1/chat/completions", json=body, headers={"Authorization": f"Bearer {api_key}"})
    assert response.status_code == 200, response.text
    return response.json()


def cached(body: dict[str, Any]) -> int:
    return body["usage"]["prompt_tokens_details"]["cached_tokens"]


def full_blocks_before_last(prompt_tokens: int) -> int:
    return (prompt_tokens - 1) // BLOCK_SIZE * BLOCK_SIZE


def system_tokens(client: TestClient, system: str = SYSTEM) -> int:
    tokenizer = client.app.state.services.engine.tokenizer  # type: ignore[attr-defined]
    rendered = tokenizer.apply_chat_template([{"role": "system", "content": system}], add_generation_prompt=False)
    return len(tokenizer.encode(rendered, add_special_tokens=False))


def test_a_tenant_reuses_its_own_prefix_and_never_anothers(client: TestClient, db: Database,
                                                          app_settings: Settings, model: str) -> None:
    _a, key_a = new_tenant_with_key(db, app_settings)
    _b, key_b = new_tenant_with_key(db, app_settings)
    first = chat(client, key_a.api_key, model, "How do I reset my password?")
    again = chat(client, key_a.api_key, model, "How do I reset my password?")
    other = chat(client, key_b.api_key, model, "How do I reset my password?")
    prompt_tokens = first["usage"]["prompt_tokens"]
    assert cached(first) == 0
    assert cached(again) == full_blocks_before_last(prompt_tokens) > 0
    assert cached(other) == 0  # same text, another tenant: a cold prefill, so timing reveals nothing
    assert {r["choices"][0]["message"]["content"] for r in (first, again, other)} == {
        first["choices"][0]["message"]["content"]}


def test_the_salt_is_the_gateways_hmac_of_the_tenant_and_a_client_salt_is_refused(
        client: TestClient, db: Database, app_settings: Settings, model: str) -> None:
    tenant, key = new_tenant_with_key(db, app_settings)
    services = client.app.state.services  # type: ignore[attr-defined]
    expected = hmac.new(b"prefix-test-secret", tenant.id.encode(), hashlib.sha256).hexdigest()
    assert services.secrets.cache_salt(tenant.id) == expected
    headers = {"Authorization": f"Bearer {key.api_key}"}
    messages = [{"role": "user", "content": "hello"}]
    for path, body in (("/v1/chat/completions", {"model": model, "messages": messages}),
                       ("/v1/completions", {"model": model, "prompt": "hello"})):
        for salt in ("mine", expected, None):  # even the right value, or null, is not the client's to send
            response = client.post(path, json={**body, "max_tokens": 2, "cache_salt": salt}, headers=headers)
            assert response.status_code == 400, response.text
            assert response.json()["error"]["param"] == "cache_salt"


def test_a_published_system_prompt_is_shared_only_by_tenants_that_publish_it(
        client: TestClient, db: Database, app_settings: Settings, model: str) -> None:
    (a, key_a), (b, key_b), (_c, key_c) = (new_tenant_with_key(db, app_settings) for _ in range(3))
    # a's own admin and the platform admin publish it for a and b through the admin API; c never does
    for tenant, role in ((a, Role.TENANT_ADMIN), (b, Role.PLATFORM_ADMIN)):
        token = mint_local_token(app_settings, role, tenant_id=tenant.id if role is Role.TENANT_ADMIN else None)
        response = client.post(f"/admin/v1/tenants/{tenant.id}/public-prefixes", json={"text": SYSTEM},
                               headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 201, response.text
        assert response.json()["content_hash"] == public_prefix_hash(SYSTEM)
        repeat = client.post(f"/admin/v1/tenants/{tenant.id}/public-prefixes", json={"text": SYSTEM},
                             headers={"Authorization": f"Bearer {token}"})
        assert repeat.status_code == 200 and repeat.json()["changed"] is False
    with db.session() as session:
        assert load_active_policy(a.id, session=session).policy.public_prefixes == [public_prefix_hash(SYSTEM)]

    public_blocks = system_tokens(client) // BLOCK_SIZE * BLOCK_SIZE
    assert public_blocks >= 2 * BLOCK_SIZE
    first = chat(client, key_a.api_key, model, "Where is my invoice?")
    shared = chat(client, key_b.api_key, model, "Is there a student discount?")  # a different question
    outsider = chat(client, key_c.api_key, model, "Is there a student discount?")
    assert cached(first) in (0, public_blocks)  # 0 unless an earlier test published the same prompt
    assert cached(shared) == public_blocks  # the public blocks and none of a's question
    assert cached(outsider) == 0  # c never published it: its copy stays under its own salt
    b_again = chat(client, key_b.api_key, model, "Is there a student discount?")
    assert cached(b_again) == full_blocks_before_last(b_again["usage"]["prompt_tokens"])  # b's own blocks too
    assert b_again["choices"][0]["message"] == shared["choices"][0]["message"] == outsider["choices"][0]["message"]

    # a slightly different system prompt is not the published one: private, whatever its overlap
    edited = chat(client, key_a.api_key, model, "Where is my invoice?", system=SYSTEM + " Be concise.")
    assert cached(edited) == 0

    token = mint_local_token(app_settings, Role.PLATFORM_ADMIN)
    withdrawn = client.delete(f"/admin/v1/tenants/{b.id}/public-prefixes/{public_prefix_hash(SYSTEM)}",
                              headers={"Authorization": f"Bearer {token}"})
    assert withdrawn.status_code == 200 and withdrawn.json()["changed"] is True
    after = chat(client, key_b.api_key, model, "Do you ship abroad?")
    assert cached(after) == 0  # private again: the public blocks are no longer b's to hit


def test_publishing_needs_an_admin_of_that_tenant(client: TestClient, db: Database, app_settings: Settings) -> None:
    (a, _), (b, _) = (new_tenant_with_key(db, app_settings) for _ in range(2))
    other_admin = mint_local_token(app_settings, Role.TENANT_ADMIN, tenant_id=b.id)
    response = client.post(f"/admin/v1/tenants/{a.id}/public-prefixes", json={"text": SYSTEM},
                           headers={"Authorization": f"Bearer {other_admin}"})
    assert response.status_code == 404
    response = client.post(f"/admin/v1/tenants/{a.id}/public-prefixes", json={"text": SYSTEM})
    assert response.status_code == 401
    with db.session() as session:
        assert load_active_policy(a.id, session=session).policy.public_prefixes == []


def test_policy_documents_only_accept_sha256_digests(client: TestClient, db: Database,
                                                     app_settings: Settings) -> None:
    tenant, _ = new_tenant_with_key(db, app_settings)
    token = mint_local_token(app_settings, Role.PLATFORM_ADMIN)
    response = client.put(f"/admin/v1/tenants/{tenant.id}/policy", json={"public_prefixes": [SYSTEM]},
                          headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 400
    digest = public_prefix_hash(SYSTEM).upper()
    response = client.put(f"/admin/v1/tenants/{tenant.id}/policy", json={"public_prefixes": [digest, digest]},
                          headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 201
    assert response.json()["document"]["public_prefixes"] == [digest.lower()]

