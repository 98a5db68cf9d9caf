"""Helpers shared by the gateway tests (imported by module name; tests/ has no packages)."""

from __future__ import annotations

import uuid

from gateway.core.db import Database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import IssuedKey, issue_key
from gateway.tenants.models import Tenant
from gateway.tenants.service import create_tenant


def unique_name(prefix: str = "tenant") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def new_tenant_with_key(db: Database, settings: Settings) -> tuple[Tenant, IssuedKey]:
    pepper = load_server_secrets(settings).key_pepper
    with db.transaction() as session:
        tenant = create_tenant(unique_name(), session=session)
        issued = issue_key(tenant, pepper=pepper, session=session)
    return tenant, issued
