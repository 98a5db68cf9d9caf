"""Helpers shared by the admin and export tests (imported by module name; tests/ has no packages)."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from fastapi.testclient import TestClient
from joserfc import jwt
from sqlalchemy import select

from gateway.adminauth.issuer_keys import LOCAL_ALGORITHM, LOCAL_ISSUER
from gateway.adminauth.roles import Role
from gateway.adminauth.setup import local_issuer_key, mint_local_token
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.settings import Settings


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def token_for(settings: Settings, role: Role, tenant_id: str | None = None) -> str:
    return mint_local_token(settings, role, tenant_id=tenant_id, subject=f"test:{role.value}:{tenant_id}")


def local_token(settings: Settings, *, header: dict[str, Any] | None = None, **claims: Any) -> str:
    """A token signed by the real local issuer key with arbitrary claims (defaults: a valid platform-admin)."""
    key = local_issuer_key(settings)
    now = int(time.time())
    body: dict[str, Any] = {"iss": LOCAL_ISSUER, "aud": settings.admin_oidc_audience, "sub": "test", "iat": now,
                            "exp": now + 600, settings.admin_roles_claim: ["platform-admin"]}
    body.update(claims)
    body = {k: v for k, v in body.items() if v is not None}
    return jwt.encode({"alg": LOCAL_ALGORITHM, "kid": key.kid, **(header or {})}, body, key)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unsigned_token(claims: dict[str, Any]) -> str:
    """alg "none": header and claims, empty signature."""
    header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{b64url(json.dumps(claims).encode())}."


def tampered(token: str) -> str:
    """Same header and claims, one signature byte changed."""
    head, body, signature = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[0] ^= 0x01
    return f"{head}.{body}.{b64url(bytes(raw))}"


def admin_rows(client: TestClient, db: Database, request_id: str) -> list[AuditRecord]:
    assert client.app.state.services.audit.flush(10)  # type: ignore[attr-defined]
    with db.session() as session:
        return list(session.scalars(select(AuditRecord).where(AuditRecord.request_id == request_id)))
