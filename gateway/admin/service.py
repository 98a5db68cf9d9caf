"""Admin operations on tenants, keys, usage and audit retention. Functions take the session as a keyword
argument (the retention round takes the database: it runs one transaction per chain); every lookup of a
tenant-owned row filters on the tenant, so one tenant's ids never reach another's rows."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TypeVar

from sqlalchemy import Select, case, func, select
from sqlalchemy.orm import Session

from gateway.admin.schemas import AuditPurgeReport, ModelUsage, RefusalCount, UsageSummary
from gateway.audit.models import AuditRecord
from gateway.audit.retention import purge_expired
from gateway.core.clock import as_utc, utcnow
from gateway.core.db import Database
from gateway.keys.models import ApiKey
from gateway.keys.service import IssuedKey, issue_key
from gateway.policystore.service import load_active_policy, publish_policy
from gateway.tenants.models import Tenant
from gateway.tenants.service import check_tenant_name

ADMIN_ENDPOINT_PREFIX = "admin."


class KeyStateError(ValueError):
    """The key exists but cannot take this action (already revoked, already rotated)."""


def update_tenant(tenant: Tenant, *, session: Session, name: str | None = None,
                  legal_hold: bool | None = None) -> Tenant:
    tenant = session.merge(tenant)
    if name is not None and name != tenant.name:
        check_tenant_name(name, session=session)
        tenant.name = name
    if legal_hold is not None:
        tenant.legal_hold = legal_hold
    session.flush()
    return tenant


def set_suspended(tenant: Tenant, suspended: bool, *, session: Session) -> Tenant:
    """A suspended tenant's keys stop authenticating (every replica within the key cache TTL)."""
    tenant = session.merge(tenant)
    if suspended and tenant.disabled_at is None:
        tenant.disabled_at = utcnow()
    elif not suspended:
        tenant.disabled_at = None
    session.flush()
    return tenant


def tenant_keys(tenant_id: str, *, session: Session) -> list[ApiKey]:
    return list(session.scalars(select(ApiKey).where(ApiKey.tenant_id == tenant_id).order_by(ApiKey.created_at)))


def tenant_key(tenant_id: str, key_id: str, *, session: Session, for_update: bool = False) -> ApiKey | None:
    query = select(ApiKey).where(ApiKey.tenant_id == tenant_id, ApiKey.id == key_id)
    return session.scalar(query.with_for_update() if for_update else query)


def revoke_tenant_key(tenant_id: str, key_id: str, *, session: Session) -> ApiKey | None:
    """Revoke (idempotently). None if the tenant has no such key."""
    key = tenant_key(tenant_id, key_id, session=session, for_update=True)
    if key is not None and key.revoked_at is None:
        key.revoked_at = utcnow()
        session.flush()
    return key


def rotate_tenant_key(tenant: Tenant, key_id: str, *, pepper: bytes, grace_s: int,
                      session: Session) -> tuple[IssuedKey, ApiKey] | None:
    """Issue a successor with the same label and let the old key live ``grace_s`` more seconds (never longer
    than it would have anyway). None if the tenant has no such key."""
    old = tenant_key(tenant.id, key_id, session=session, for_update=True)
    if old is None:
        return None
    now = utcnow()
    if old.revoked_at is not None or (old.expires_at is not None and as_utc(old.expires_at) <= now):
        raise KeyStateError(f"key {key_id} is revoked or expired; issue a new key instead")
    if old.replaced_by is not None:
        raise KeyStateError(f"key {key_id} was already rotated (its successor is {old.replaced_by})")
    issued = issue_key(tenant, pepper=pepper, session=session, label=old.label)
    grace_end = now + timedelta(seconds=grace_s)
    old.expires_at = grace_end if old.expires_at is None else min(as_utc(old.expires_at), grace_end)
    old.replaced_by = issued.key_id
    session.flush()
    return issued, old


def set_public_prefix(tenant_id: str, content_hash: str, public: bool, *,
                      session: Session) -> tuple[int | None, bool]:
    """Add (``public``) or remove a content hash in the tenant's public prefixes as a new active policy version;
    (active version, whether a version was written). The tenant row is locked first, so two concurrent edits
    of the list both land."""
    if session.scalar(select(Tenant.id).where(Tenant.id == tenant_id).with_for_update()) is None:
        raise LookupError(f"no tenant {tenant_id}")
    active = load_active_policy(tenant_id, session=session)
    current = active.policy.public_prefixes
    if (content_hash in current) == public:
        return active.version, False
    document = active.policy.model_dump(mode="json")
    document["public_prefixes"] = [*current, content_hash] if public else [h for h in current if h != content_hash]
    return publish_policy(tenant_id, document, session=session).version, True


SelectT = TypeVar("SelectT", bound=Select)  # any column tuple

def _window(query: SelectT, start: datetime | None, end: datetime | None) -> SelectT:
    if start is not None:
        query = query.where(AuditRecord.created_at >= start)
    if end is not None:
        query = query.where(AuditRecord.created_at < end)
    return query


def usage_summary(tenant_id: str, *, session: Session, start: datetime | None,
                  end: datetime | None) -> UsageSummary:
    """Aggregated in SQL over the tenant's audit records (its own chain, API traffic only)."""
    scope = (AuditRecord.tenant_id == tenant_id, AuditRecord.chain_id == tenant_id,
             AuditRecord.endpoint.not_like(f"{ADMIN_ENDPOINT_PREFIX}%"))
    refused = case((AuditRecord.http_status >= 400, 1), else_=0)
    totals = session.execute(_window(
        select(func.count(), func.coalesce(func.sum(refused), 0), func.coalesce(func.sum(AuditRecord.prompt_tokens), 0),
               func.coalesce(func.sum(AuditRecord.completion_tokens), 0)).where(*scope), start, end)).one()
    refusals = session.execute(_window(
        select(AuditRecord.http_status, AuditRecord.error_type, func.count())
        .where(*scope, AuditRecord.http_status >= 400)
        .group_by(AuditRecord.http_status, AuditRecord.error_type), start, end)).all()
    models = session.execute(_window(
        select(AuditRecord.model, func.count(), func.coalesce(func.sum(AuditRecord.prompt_tokens), 0),
               func.coalesce(func.sum(AuditRecord.completion_tokens), 0))
        .where(*scope, AuditRecord.http_status < 400).group_by(AuditRecord.model), start, end)).all()
    requests, refused_count, prompt_tokens, completion_tokens = (int(v) for v in totals)
    return UsageSummary(
        tenant_id=tenant_id, start=start, end=end, requests=requests, succeeded=requests - refused_count,
        refused=refused_count, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        refusals=sorted((RefusalCount(http_status=s, error_type=t, count=c) for s, t, c in refusals),
                        key=lambda r: (-r.count, r.http_status)),
        models=sorted((ModelUsage(model=m, requests=n, prompt_tokens=p, completion_tokens=c)
                       for m, n, p, c in models), key=lambda m: -m.requests),
    )


def purge_audit(db: Database, *, default_days: int, dry_run: bool, actor: str) -> AuditPurgeReport:
    """One retention round over every chain (``gateway.audit.retention``), as both the CLI and the admin API run
    it. Blocking: each chain is its own transaction, and on Postgres a purge drops tables."""
    done = purge_expired(db, default_days=default_days, dry_run=dry_run, actor=actor)
    return AuditPurgeReport.of(done, dry_run=dry_run)
