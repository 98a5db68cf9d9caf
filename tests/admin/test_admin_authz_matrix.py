"""Every admin endpoint x every kind of caller -> the expected status; nobody crosses a tenant boundary."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from admin_support import auth, local_token, tampered, token_for, unsigned_token
from fastapi.testclient import TestClient
from gateway_support import unique_name
from sqlalchemy import func, select

from gateway.adminauth.issuer_keys import LOCAL_ISSUER
from gateway.adminauth.roles import Role
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings
from gateway.keys.models import ApiKey
from gateway.keys.service import issue_key
from gateway.policystore.models import TenantPolicy
from gateway.policystore.service import publish_policy
from gateway.tenants.models import Tenant
from gateway.tenants.service import create_tenant
from policies.model import public_prefix_hash

MATRIX_PREFIX = "You are the authorization matrix's shared system prompt."

# Who may call what. "managed": platform-admin, or tenant-admin on its own tenant (404 on another);
# "platform": platform-admin only; "audit": platform-admin, auditor, tenant-admin on its own tenant;
# "anyone": any valid admin token.
ENDPOINTS: list[tuple[str, str, str, object, int]] = [
    # (kind, method, path, json body, success status)
    ("platform", "POST", "/admin/v1/tenants", "new-tenant", 201),
    ("platform", "GET", "/admin/v1/tenants", None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}", None, 200),
    ("platform-tenant", "PATCH", "/admin/v1/tenants/{t}", {"legal_hold": False}, 200),
    ("platform-tenant", "POST", "/admin/v1/tenants/{t}/suspend", None, 200),
    ("platform-tenant", "POST", "/admin/v1/tenants/{t}/resume", None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}/keys", None, 200),
    ("managed", "POST", "/admin/v1/tenants/{t}/keys", {"label": "matrix"}, 201),
    ("managed", "POST", "/admin/v1/tenants/{t}/keys/{key}/rotate", {"grace_seconds": 60}, 200),
    ("managed", "POST", "/admin/v1/tenants/{t}/keys/{key}/revoke", None, 200),
    ("anyone", "GET", "/admin/v1/policy-schema", None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}/policy", None, 200),
    ("managed", "PUT", "/admin/v1/tenants/{t}/policy?activate=false", {"max_tokens_cap": 64}, 201),
    ("managed", "GET", "/admin/v1/tenants/{t}/policy/versions", None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}/policy/versions/1", None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}/policy/diff?from=1&to=1", None, 200),
    ("managed", "POST", "/admin/v1/tenants/{t}/policy/versions/1/activate", None, 200),
    # Each caller that may publish makes the prefix public (201, a new version) and withdraws it again (200), so
    # the next caller starts from the same state.
    ("managed", "POST", "/admin/v1/tenants/{t}/public-prefixes", {"text": MATRIX_PREFIX}, 201),
    ("managed", "DELETE", "/admin/v1/tenants/{t}/public-prefixes/" + public_prefix_hash(MATRIX_PREFIX), None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}/usage?from=2020-01-01T00:00:00Z", None, 200),
    ("managed", "GET", "/admin/v1/tenants/{t}/processing-record", None, 200),
    ("audit", "GET", "/admin/v1/audit/export?tenant={t}", None, 200),
    ("audit", "GET", "/admin/v1/audit/exports/{export}/manifest", None, 200),
    ("audit", "GET", "/admin/v1/audit/checkpoints?tenant={t}", None, 200),
    ("anyone", "GET", "/admin/v1/audit/public-key", None, 200),
    ("platform", "POST", "/admin/v1/audit/checkpoints", None, 200),
    # A dry run: the role check is the same as a real run's, and the matrix leaves every chain as it was.
    ("platform", "POST", "/admin/v1/audit/purge", {"dry_run": True}, 200),
]


@dataclass(frozen=True)
class Caller:
    name: str
    token: Callable[[Settings, str, str], str | None]  # (settings, tenant A, tenant B) -> token
    role: str  # "platform" | "auditor" | "tenant-own" | "tenant-other" | "invalid"
    targets_b: bool = False  # acts on tenant B instead of A


def _expired(settings: Settings, _a: str, _b: str) -> str:
    return local_token(settings, exp=int(time.time()) - 600, iat=int(time.time()) - 1200)


CALLERS = [
    Caller("no token", lambda s, a, b: None, "invalid"),
    Caller("expired", _expired, "invalid"),
    Caller("wrong issuer", lambda s, a, b: local_token(s, iss="https://not-the-issuer.example.test"), "invalid"),
    Caller("wrong audience", lambda s, a, b: local_token(s, aud="some-other-api"), "invalid"),
    Caller("alg none", lambda s, a, b: unsigned_token({"iss": LOCAL_ISSUER, "aud": s.admin_oidc_audience,
                                                       "sub": "x", "exp": int(time.time()) + 600,
                                                       "warden_roles": ["platform-admin"]}), "invalid"),
    Caller("tampered signature", lambda s, a, b: tampered(token_for(s, Role.PLATFORM_ADMIN)), "invalid"),
    Caller("platform-admin", lambda s, a, b: token_for(s, Role.PLATFORM_ADMIN), "platform"),
    Caller("auditor", lambda s, a, b: token_for(s, Role.AUDITOR), "auditor"),
    Caller("tenant-admin A on A", lambda s, a, b: token_for(s, Role.TENANT_ADMIN, a), "tenant-own"),
    Caller("tenant-admin A on B", lambda s, a, b: token_for(s, Role.TENANT_ADMIN, a), "tenant-other",
           targets_b=True),
]


def expected_status(kind: str, caller: Caller, success: int) -> int:
    if caller.role == "invalid":
        return 401
    if kind == "anyone" or caller.role == "platform":
        return success
    if kind in ("platform", "platform-tenant"):
        return 403
    if caller.role == "auditor":
        return success if kind == "audit" else 403
    return success if caller.role == "tenant-own" else 404


def _state_of(db: Database, tenant_id: str) -> tuple[object, ...]:
    with db.session() as session:
        tenant = session.get(Tenant, tenant_id)
        assert tenant is not None
        keys = session.execute(select(ApiKey.id, ApiKey.revoked_at, ApiKey.expires_at, ApiKey.replaced_by)
                               .where(ApiKey.tenant_id == tenant_id).order_by(ApiKey.id)).all()
        policies = session.execute(select(TenantPolicy.version, TenantPolicy.is_active)
                                   .where(TenantPolicy.tenant_id == tenant_id).order_by(TenantPolicy.version)).all()
        return tenant.name, tenant.disabled_at, tenant.legal_hold, tuple(keys), tuple(policies)


def test_authorization_matrix(client: TestClient, db: Database, settings: Settings) -> None:
    pepper = client.app.state.services.secrets.key_pepper  # type: ignore[attr-defined]
    with db.transaction() as session:
        tenant_a = create_tenant(unique_name("matrix-a"), session=session)
        tenant_b = create_tenant(unique_name("matrix-b"), session=session)
        for tenant in (tenant_a, tenant_b):
            publish_policy(tenant.id, {"max_tokens_cap": 32}, session=session)
            issue_key(tenant, pepper=pepper, session=session)
    a, b = tenant_a.id, tenant_b.id
    platform = auth(token_for(settings, Role.PLATFORM_ADMIN))
    exports = {}
    for tenant_id in (a, b):
        response = client.get(f"/admin/v1/audit/export?tenant={tenant_id}", headers=platform)
        assert response.status_code == 200
        exports[tenant_id] = response.headers["x-warden-export-id"]

    def fresh_key(tenant_id: str) -> str:
        with db.transaction() as session:
            tenant = session.get(Tenant, tenant_id)
            assert tenant is not None
            return issue_key(tenant, pepper=pepper, session=session).key_id

    b_before = _state_of(db, b)
    mismatches: list[str] = []
    request_ids: dict[str, list[str]] = {a: [], b: []}
    for caller in CALLERS:
        token = caller.token(settings, a, b)
        headers = auth(token) if token else {}
        target = b if caller.targets_b else a
        for kind, method, template, body, success in ENDPOINTS:
            path = template.format(t=target, key=fresh_key(target) if "{key}" in template else "",
                                   export=exports[target])
            json_body = {"name": unique_name("made")} if body == "new-tenant" else body
            response = client.request(method, path, headers=headers, json=json_body)
            want = expected_status(kind, caller, success)
            if response.status_code != want:
                mismatches.append(f"{caller.name:22} {method:5} {template}: {response.status_code} != {want} "
                                  f"({response.text[:120]})")
            if caller.role == "tenant-other":
                assert b not in response.text, f"{template} leaked tenant B's data to tenant A's admin"
            request_ids[target].append(response.headers[REQUEST_ID_HEADER])
    assert not mismatches, "authorization matrix:\n" + "\n".join(mismatches)

    # Zero cross-tenant writes: tenant B is exactly as tenant A's admin found it (the matrix only issued the
    # fresh keys it then tried, and failed, to rotate or revoke).
    after = _state_of(db, b)
    assert after[:3] == b_before[:3] and after[4] == b_before[4]
    assert all(revoked is None and replaced is None for _, revoked, _, replaced in after[3])

    # Every request, refused or not, is one admin audit record; none of tenant A's admin's probes of B were
    # written into B's chain.
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        for ids in request_ids.values():
            rows = session.execute(select(AuditRecord.request_id, AuditRecord.chain_id, AuditRecord.endpoint)
                                   .where(AuditRecord.request_id.in_(ids))).all()
            assert len(rows) == len(ids), "an admin request was not audited"
            assert all(endpoint.startswith("admin.") for _, _, endpoint in rows)
        probes = session.scalar(select(func.count()).select_from(AuditRecord).where(
            AuditRecord.request_id.in_(request_ids[b]), AuditRecord.chain_id == b))
        assert probes == 0


def test_unknown_tenant_and_other_tenant_answer_alike(client: TestClient, db: Database, settings: Settings) -> None:
    with db.transaction() as session:
        mine = create_tenant(unique_name(), session=session).id
        other = create_tenant(unique_name(), session=session).id
    headers = auth(token_for(settings, Role.TENANT_ADMIN, mine))
    existing = client.get(f"/admin/v1/tenants/{other}/keys", headers=headers)
    missing = client.get(f"/admin/v1/tenants/{uuid.uuid4()}/keys", headers=headers)
    assert existing.status_code == missing.status_code == 404
    assert existing.json() == missing.json()
    assert client.get("/admin/v1/audit/export", params={"tenant": other}, headers=headers).status_code == 404
    # Omitting the tenant means its own tenant, never every chain.
    response = client.get("/admin/v1/audit/export", headers=headers)
    assert response.status_code == 200
    assert all(f'"chain_id":"{mine}"' in line for line in response.text.splitlines())
