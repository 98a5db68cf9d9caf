"""Tenant lookups and creation. Functions take the session as a keyword argument."""

from __future__ import annotations

import logging
import re

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from gateway.audit.partitions import ensure_chain_partitions, is_partitioned
from gateway.tenants.models import Tenant

log = logging.getLogger(__name__)

TENANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")


class TenantError(ValueError):
    """A tenant name that cannot be used; the subclass says why (the admin API maps each to its status)."""


class InvalidTenantName(TenantError):
    pass


class TenantNameTaken(TenantError):
    pass


def check_tenant_name(name: str, *, session: Session) -> None:
    """Refuse a name that is malformed or already another tenant's."""
    if not TENANT_NAME.match(name):
        raise InvalidTenantName("tenant names are 1-200 characters: letters, digits, '.', '_' or '-'")
    if session.scalar(select(Tenant.id).where(Tenant.name == name)) is not None:
        raise TenantNameTaken(f"tenant {name!r} already exists")


def create_tenant(name: str, *, session: Session) -> Tenant:
    check_tenant_name(name, session=session)
    tenant = Tenant(name=name)
    session.add(tenant)
    session.flush()
    _create_audit_partitions(tenant.id, session=session)
    return tenant


def _create_audit_partitions(tenant_id: str, *, session: Session) -> None:
    """The new tenant's audit chain gets its Postgres partitions now. Best effort, in a savepoint: if a lock is
    busy the tenant is still created, its first records land in the default partition, and the next maintenance
    round gives them their own table."""
    if not is_partitioned(session):
        return
    try:
        with session.begin_nested():
            ensure_chain_partitions(tenant_id, session=session)
    except DBAPIError:
        log.warning("audit partitions for new tenant %s left to the next maintenance round", tenant_id,
                    exc_info=True)


def find_tenant(name_or_id: str, *, session: Session) -> Tenant | None:
    """TENANT arguments on the CLI may be either the tenant's id or its name."""
    tenant = session.get(Tenant, name_or_id)
    if tenant is not None:
        return tenant
    return session.scalar(select(Tenant).where(Tenant.name == name_or_id))


def list_tenants(*, session: Session) -> list[Tenant]:
    return list(session.scalars(select(Tenant).order_by(Tenant.created_at)))
