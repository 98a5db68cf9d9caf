"""Tenant lookups and creation. Functions take the session as a keyword argument."""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from gateway.tenants.models import Tenant

TENANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


class TenantError(ValueError):
    pass


def create_tenant(name: str, *, session: Session) -> Tenant:
    if not TENANT_NAME.match(name):
        raise TenantError("tenant names are 1-200 characters: letters, digits, '.', '_' or '-'")
    if session.scalar(select(Tenant).where(Tenant.name == name)) is not None:
        raise TenantError(f"tenant {name!r} already exists")
    tenant = Tenant(name=name)
    session.add(tenant)
    session.flush()
    return tenant


def find_tenant(name_or_id: str, *, session: Session) -> Tenant | None:
    """TENANT arguments on the CLI may be either the tenant's id or its name."""
    tenant = session.get(Tenant, name_or_id)
    if tenant is not None:
        return tenant
    return session.scalar(select(Tenant).where(Tenant.name == name_or_id))


def list_tenants(*, session: Session) -> list[Tenant]:
    return list(session.scalars(select(Tenant).order_by(Tenant.created_at)))
