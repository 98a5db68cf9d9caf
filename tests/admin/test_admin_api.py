"""The admin API's behaviour: tenants, key rotation and revocation as the /v1 edge sees them, policy versions
as the gateway enforces them, usage, the processing record, and the audit record of each admin action."""

from __future__ import annotations

from pathlib import Path

import pytest
from admin_support import admin_rows, auth, token_for
from fastapi.testclient import TestClient
from gateway_support import unique_name

from gateway.adminauth.roles import Role
from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.store import append_events
from gateway.cli import main
from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings

CHAT = {"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


def _tenant(client: TestClient, platform: dict[str, str]) -> str:
    response = client.post("/admin/v1/tenants", json={"name": unique_name()}, headers=platform)
    assert response.status_code == 201, response.text
    return response.json()["id"]


def _append(client: TestClient, db: Database, events: list[AuditEvent]) -> None:
    """Store events directly, once the app's own writer is idle (both would create the chain head)."""
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.transaction() as session:
        append_events(events, session=session)


def _v1_status(client: TestClient, api_key: str) -> int:
    return client.post("/v1/chat/completions", json=CHAT, headers=auth(api_key)).status_code


def _v1_audit(client: TestClient, db: Database, api_key: str) -> AuditRecord:
    response = client.post("/v1/chat/completions", json=CHAT, headers=auth(api_key))
    (row,) = admin_rows(client, db, response.headers[REQUEST_ID_HEADER])
    return row


def test_tenant_lifecycle_and_suspension(client: TestClient, platform: dict[str, str]) -> None:
    name = unique_name()
    created = client.post("/admin/v1/tenants", json={"name": name}, headers=platform)
    assert created.status_code == 201
    tenant_id = created.json()["id"]
    assert client.post("/admin/v1/tenants", json={"name": name}, headers=platform).status_code == 409
    assert client.post("/admin/v1/tenants", json={"name": "bad name!"}, headers=platform).status_code == 400
    assert client.post("/admin/v1/tenants", json={"name": "x", "extra": 1}, headers=platform).status_code == 400
    assert tenant_id in [t["id"] for t in client.get("/admin/v1/tenants", headers=platform).json()]

    renamed = client.patch(f"/admin/v1/tenants/{tenant_id}", json={"name": name + "-2", "legal_hold": True},
                           headers=platform).json()
    assert renamed["name"] == name + "-2" and renamed["legal_hold"] is True
    other = client.post("/admin/v1/tenants", json={"name": unique_name()}, headers=platform).json()
    taken = client.patch(f"/admin/v1/tenants/{other['id']}", json={"name": name + "-2"}, headers=platform)
    assert taken.status_code == 409 and "already exists" in taken.json()["error"]["message"]
    malformed = client.patch(f"/admin/v1/tenants/{other['id']}", json={"name": "exists?"}, headers=platform)
    assert malformed.status_code == 400 and malformed.json()["error"]["param"] == "name"  # a word is not a status

    key = client.post(f"/admin/v1/tenants/{tenant_id}/keys", headers=platform).json()["api_key"]
    assert _v1_status(client, key) == 503  # authenticated; no engine in this app
    assert client.post(f"/admin/v1/tenants/{tenant_id}/suspend", headers=platform).json()["suspended"] is True
    assert _v1_status(client, key) == 401  # a suspended tenant's keys stop working
    assert client.post(f"/admin/v1/tenants/{tenant_id}/resume", headers=platform).json()["suspended"] is False
    assert _v1_status(client, key) == 503


def test_keys_issue_list_rotate_revoke(client: TestClient, platform: dict[str, str]) -> None:
    tenant_id = _tenant(client, platform)
    issued = client.post(f"/admin/v1/tenants/{tenant_id}/keys", json={"label": "ci"}, headers=platform).json()
    old_id, old_key = issued["key"]["id"], issued["api_key"]
    listing = client.get(f"/admin/v1/tenants/{tenant_id}/keys", headers=platform)
    assert [k["id"] for k in listing.json()] == [old_id]
    assert "api_key" not in listing.text and old_key.split("_")[2] not in listing.text  # never the secret

    # Rotation: a new key now, the old one keeps working for the grace period.
    rotated = client.post(f"/admin/v1/tenants/{tenant_id}/keys/{old_id}/rotate", json={"grace_seconds": 3600},
                          headers=platform).json()
    new_key = rotated["api_key"]
    assert rotated["old_key"]["replaced_by"] == rotated["key"]["id"] and rotated["key"]["label"] == "ci"
    assert _v1_status(client, old_key) == 503 and _v1_status(client, new_key) == 503
    again = client.post(f"/admin/v1/tenants/{tenant_id}/keys/{old_id}/rotate", headers=platform)
    assert again.status_code == 409  # a key is rotated once

    # Rotation with no grace: the old key stops at once.
    new_id = rotated["key"]["id"]
    third = client.post(f"/admin/v1/tenants/{tenant_id}/keys/{new_id}/rotate", json={"grace_seconds": 0},
                        headers=platform).json()
    assert _v1_status(client, new_key) == 401 and _v1_status(client, third["api_key"]) == 503
    too_long = client.post(f"/admin/v1/tenants/{tenant_id}/keys/{third['key']['id']}/rotate",
                           json={"grace_seconds": 10**9}, headers=platform)
    assert too_long.status_code == 400

    revoked = client.post(f"/admin/v1/tenants/{tenant_id}/keys/{third['key']['id']}/revoke", headers=platform)
    assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
    assert _v1_status(client, third["api_key"]) == 401
    assert client.post(f"/admin/v1/tenants/{tenant_id}/keys/nosuchkey0000000/revoke",
                       headers=platform).status_code == 404


def test_tenant_admin_cannot_touch_another_tenants_key_through_its_own_path(
        client: TestClient, platform: dict[str, str], settings: Settings) -> None:
    mine, theirs = _tenant(client, platform), _tenant(client, platform)
    their_key = client.post(f"/admin/v1/tenants/{theirs}/keys", headers=platform).json()
    admin = auth(token_for(settings, Role.TENANT_ADMIN, mine))
    key_id = their_key["key"]["id"]
    # The key id is real, but it is not in this tenant: 404, and the key still works.
    assert client.post(f"/admin/v1/tenants/{mine}/keys/{key_id}/revoke", headers=admin).status_code == 404
    assert client.post(f"/admin/v1/tenants/{mine}/keys/{key_id}/rotate", headers=admin).status_code == 404
    assert _v1_status(client, their_key["api_key"]) == 503
    assert client.get(f"/admin/v1/tenants/{mine}/keys", headers=admin).json() == []


def test_policy_round_trip_is_what_the_gateway_enforces(client: TestClient, db: Database,
                                                        platform: dict[str, str], settings: Settings) -> None:
    tenant_id = _tenant(client, platform)
    admin = auth(token_for(settings, Role.TENANT_ADMIN, tenant_id))
    api_key = client.post(f"/admin/v1/tenants/{tenant_id}/keys", headers=admin).json()["api_key"]
    assert client.get(f"/admin/v1/tenants/{tenant_id}/policy", headers=admin).json()["version"] is None
    assert _v1_audit(client, db, api_key).policy_version is None  # the default policy

    v1 = client.put(f"/admin/v1/tenants/{tenant_id}/policy", json={"max_tokens_cap": 100}, headers=admin)
    assert v1.status_code == 201 and v1.json()["version"] == 1 and v1.json()["is_active"]
    v2 = client.put(f"/admin/v1/tenants/{tenant_id}/policy",
                    json={"max_tokens_cap": 200, "allowed_models": ["smollm2-135m-instruct"],
                          "rate_limits": {"requests_per_minute": 600}}, headers=admin).json()
    assert v2["version"] == 2
    assert _v1_audit(client, db, api_key).policy_version == 2  # cache TTL is 0 in tests: in force at once

    diff = client.get(f"/admin/v1/tenants/{tenant_id}/policy/diff", params={"from": 1, "to": 2}, headers=admin)
    changes = {c["path"]: c for c in diff.json()["changes"]}
    assert changes["/max_tokens_cap"] == {"path": "/max_tokens_cap", "before": 100, "after": 200, "kind": "changed"}
    assert changes["/allowed_models"]["after"] == ["smollm2-135m-instruct"]
    assert changes["/rate_limits/requests_per_minute"]["before"] is None
    assert "/weight" not in changes

    rollback = client.post(f"/admin/v1/tenants/{tenant_id}/policy/versions/1/activate", headers=admin)
    assert rollback.status_code == 200 and rollback.json()["is_active"]
    assert _v1_audit(client, db, api_key).policy_version == 1
    assert client.get(f"/admin/v1/tenants/{tenant_id}/policy", headers=admin).json()["document"][
        "max_tokens_cap"] == 100

    staged = client.put(f"/admin/v1/tenants/{tenant_id}/policy", params={"activate": "false"},
                        json={"max_tokens_cap": 300}, headers=admin).json()
    assert staged["version"] == 3 and not staged["is_active"]
    assert _v1_audit(client, db, api_key).policy_version == 1  # stored, not enforced
    versions = client.get(f"/admin/v1/tenants/{tenant_id}/policy/versions", headers=admin).json()
    assert [(v["version"], v["is_active"]) for v in versions] == [(1, True), (2, False), (3, False)]

    bad = client.put(f"/admin/v1/tenants/{tenant_id}/policy", json={"max_token_cap": 5}, headers=admin)
    assert bad.status_code == 400 and "max_token_cap" in bad.json()["error"]["message"]
    assert client.put(f"/admin/v1/tenants/{tenant_id}/policy", json={"schema_version": 99},
                      headers=admin).status_code == 400
    assert client.post(f"/admin/v1/tenants/{tenant_id}/policy/versions/9/activate",
                       headers=admin).status_code == 404
    assert "properties" in client.get("/admin/v1/policy-schema", headers=admin).json()


def test_every_admin_action_is_an_audit_record(client: TestClient, db: Database, platform: dict[str, str],
                                              settings: Settings) -> None:
    tenant_id = _tenant(client, platform)
    response = client.put(f"/admin/v1/tenants/{tenant_id}/policy", json={"weight": 3}, headers=platform)
    (row,) = admin_rows(client, db, response.headers[REQUEST_ID_HEADER])
    assert (row.chain_id, row.endpoint, row.http_status) == (tenant_id, "admin.policies.put", 201)
    (decision,) = row.decisions
    assert decision["actor"]["roles"] == ["platform-admin"] and decision["details"]["version"] == 1
    assert decision["decision"] == "allowed"

    refused = client.get("/admin/v1/tenants", headers={"Authorization": "Bearer not-a-token"})
    (row,) = admin_rows(client, db, refused.headers[REQUEST_ID_HEADER])
    assert (row.http_status, row.chain_id, row.decisions[0]["decision"]) == (401, "anonymous", "refused")
    assert "malformed" in row.decisions[0]["reason"]

    auditor = client.get(f"/admin/v1/tenants/{tenant_id}/keys", headers=auth(token_for(settings, Role.AUDITOR)))
    (row,) = admin_rows(client, db, auditor.headers[REQUEST_ID_HEADER])
    assert row.http_status == 403 and row.decisions[0]["actor"]["roles"] == ["auditor"]


def test_usage_summary_counts_requests_tokens_and_refusals(client: TestClient, db: Database,
                                                          platform: dict[str, str]) -> None:
    tenant_id = _tenant(client, platform)
    now = utcnow()

    def event(status: int, error: str | None = None, prompt: int = 0, completion: int = 0) -> AuditEvent:
        return AuditEvent(created_at=now, request_id="r", endpoint="chat.completions", http_status=status,
                          latency_ms=1.0, overhead_ms=0.5, tenant_id=tenant_id, key_id="k" * 16,
                          model="smollm2-135m-instruct", error_type=error, prompt_tokens=prompt,
                          completion_tokens=completion)

    _append(client, db, [event(200, prompt=10, completion=5), event(200, prompt=7, completion=3),
                         event(429, "rate_limit_error"), event(429, "rate_limit_error"),
                         event(400, "invalid_request_error")])
    usage = client.get(f"/admin/v1/tenants/{tenant_id}/usage", headers=platform).json()
    assert (usage["requests"], usage["succeeded"], usage["refused"]) == (5, 2, 3)
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (17, 8)
    assert usage["refusals"][0] == {"http_status": 429, "error_type": "rate_limit_error", "count": 2}
    assert usage["models"] == [{"model": "smollm2-135m-instruct", "requests": 2, "prompt_tokens": 17,
                                "completion_tokens": 8}]
    later = client.get(f"/admin/v1/tenants/{tenant_id}/usage", params={"from": "2999-01-01T00:00:00Z"},
                       headers=platform).json()
    assert later["requests"] == 0  # admin actions are never counted as usage either


def test_processing_record_reflects_policy_and_observed_data(client: TestClient, db: Database,
                                                           platform: dict[str, str]) -> None:
    tenant_id = _tenant(client, platform)
    client.put(f"/admin/v1/tenants/{tenant_id}/policy",
               json={"retention_days": 30, "audit_content": "hashes", "injection": {"action": "block"}},
               headers=platform)
    pii = {"stage": "input_guardrails", "kind": "pii", "side": "input",
           "entities": [{"entity_type": "EMAIL_ADDRESS", "action": "mask", "count": 2, "max_score": 1.0}]}
    _append(client, db, [AuditEvent(created_at=utcnow(), request_id="r", endpoint="chat.completions",
                                    http_status=200, latency_ms=1.0, overhead_ms=0.5, tenant_id=tenant_id,
                                    model="smollm2-135m-instruct", decisions=[pii])])
    record = client.get(f"/admin/v1/tenants/{tenant_id}/processing-record", headers=platform).json()
    assert record["policy_version"] == 1 and record["retention"]["audit_records_days"] == 30
    assert record["categories_of_personal_data"]["observed"] == {
        "EMAIL_ADDRESS": {"detections": 2, "sides": ["input"], "actions": {"mask": 2}}}
    assert [r["model"] for r in record["recipients"]] == ["smollm2-135m-instruct"]
    assert any("content hashes only" in s for s in record["safeguards"])
    assert any("Prompt-injection screening (block" in s for s in record["safeguards"])
    assert record["purposes"]


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> Settings:
    monkeypatch.setenv("WARDEN_DATABASE_URL", settings.database_url)
    monkeypatch.setenv("WARDEN_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("WARDEN_SERVER_SECRET", "test-server-secret")
    return settings


def test_cli_mints_tokens_the_api_accepts(cli_env: Settings, client: TestClient, platform: dict[str, str],
                                          capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    tenant_id = _tenant(client, platform)
    capsys.readouterr()
    assert main(["admin", "token", "--role", "tenant-admin", "--tenant", tenant_id]) == 0
    token = capsys.readouterr().out.strip()
    assert client.get(f"/admin/v1/tenants/{tenant_id}/keys", headers=auth(token)).status_code == 200
    assert main(["admin", "token", "--role", "tenant-admin"]) == 1  # needs --tenant
    assert main(["admin", "token", "--role", "auditor", "--tenant", "no-such-tenant"]) == 1
    assert main(["admin", "token", "--role", "platform-admin", "--ttl", "60"]) == 0
    token = capsys.readouterr().out.strip()
    assert client.get("/admin/v1/tenants", headers=auth(token)).status_code == 200
