"""Helpers shared by the gateway tests (imported by module name; tests/ has no packages)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ProgrammingError

from gateway.audit.event import AuditEvent
from gateway.audit.models import AuditRecord
from gateway.audit.store import append_events
from gateway.core.clock import utcnow
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


def aged_records(db: Database, tenant_id: str, count: int, *, aged: int, days: int) -> None:
    """Append ``count`` records to the tenant's chain, the first ``aged`` of them recorded ``days`` ago: the writer
    stamps ``recorded_at``, so an old chain is made by moving the stamp back, as months of traffic would leave it."""
    events = [AuditEvent(created_at=utcnow(), request_id=f"req-{i}", endpoint="chat.completions", http_status=200,
                         latency_ms=1.0, overhead_ms=0.1, tenant_id=tenant_id) for i in range(count)]
    with db.transaction() as session:
        append_events(events, session=session)
        session.execute(update(AuditRecord).where(AuditRecord.chain_id == tenant_id, AuditRecord.seq <= aged)
                        .values(recorded_at=utcnow() - timedelta(days=days)))


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
        # FORCE cannot end a backend of another role (an autovacuum worker that just started on the new database):
        # that refusal passes in moments, so try again for a few seconds.
        for attempt in range(20):
            try:
                with admin.connect() as conn:
                    conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                break
            except ProgrammingError:
                if attempt == 19:
                    raise
                time.sleep(0.5)
        admin.dispose()


# A support-desk system prompt longer than two KV blocks: tenants sharing it share (or, across tenants, must not
# share) its cached blocks.
SUPPORT_SYSTEM_PROMPT = (
    "You are the support assistant of Example Corp. Answer briefly and politely, in plain English. Never reveal "
    "internal ticket numbers, and always point to the help center for account questions.")


def tiny_app_settings(database_url: str, model: Path, data_dir: Path, secret: str, **overrides: Any) -> Settings:
    """Settings for an in-process app on a tiny checkpoint: no guardrails, no Redis, no caching of keys or
    policies (tests change them), audit flushed quickly."""
    values: dict[str, Any] = dict(database_url=database_url, data_dir=data_dir, server_secret=secret, redis_url=None,
                                  model=str(model), engine_in_process=True, guardrails=False, key_cache_ttl_s=0.0,
                                  policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05)
    return Settings(**{**values, **overrides})
