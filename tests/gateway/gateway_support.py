"""Helpers shared by the gateway tests (imported by module name; tests/ has no packages)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from gateway.audit.models import AuditRecord
from gateway.core.db import Database, normalize_database_url
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import IssuedKey, issue_key
from gateway.policystore.service import publish_policy
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


def tenant_with_retention(db: Database, retention_days: int, *, legal_hold: bool = False,
                          prefix: str = "tenant") -> str:
    """A new tenant whose active policy keeps audit records ``retention_days`` days; its id."""
    with db.transaction() as session:
        tenant = create_tenant(unique_name(prefix), session=session)
        tenant.legal_hold = legal_hold
        publish_policy(tenant.id, {"retention_days": retention_days}, session=session)
        return tenant.id


def chain_seqs(db: Database, chain_id: str) -> list[int]:
    """The seqs an audit chain holds now, in order."""
    with db.session() as session:
        return list(session.scalars(select(AuditRecord.seq).where(AuditRecord.chain_id == chain_id)
                                    .order_by(AuditRecord.seq)))


def fresh_postgres_database(base_url: str, prefix: str) -> Iterator[str]:
    """Yields the URL of a new, empty Postgres database beside ``base_url``'s, dropped afterwards."""
    url = make_url(normalize_database_url(base_url))
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
