"""Writing and reading tenant policy versions. Functions take the session as a keyword argument."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from gateway.policystore.models import TenantPolicy
from gateway.tenants.models import Tenant
from policies import Policy


@dataclass(frozen=True, slots=True)
class ActivePolicy:
    version: int | None  # None: the tenant has no stored policy and runs on Policy.default()
    policy: Policy


def publish_policy(tenant_id: str, document: dict[str, Any], *, session: Session,
                   activate: bool = True) -> TenantPolicy:
    """Validate, store as the next version and (unless ``activate`` is False) make it the tenant's only active
    one (one transaction)."""
    policy = Policy.model_validate(document)  # raises pydantic.ValidationError on a bad document
    # Lock the tenant row so two concurrent publishers serialise (Postgres forbids FOR UPDATE on an aggregate);
    # the (tenant_id, version) unique constraint backs this up.
    if session.scalar(select(Tenant.id).where(Tenant.id == tenant_id).with_for_update()) is None:
        raise LookupError(f"no tenant {tenant_id}")
    current = session.scalar(select(func.max(TenantPolicy.version)).where(TenantPolicy.tenant_id == tenant_id))
    if activate:
        _deactivate(tenant_id, session=session)
    row = TenantPolicy(tenant_id=tenant_id, version=(current or 0) + 1, schema_version=policy.schema_version,
                       document=policy.model_dump(mode="json"), is_active=activate)
    session.add(row)
    session.flush()
    return row


def _deactivate(tenant_id: str, *, session: Session) -> None:
    session.execute(
        update(TenantPolicy).where(TenantPolicy.tenant_id == tenant_id, TenantPolicy.is_active.is_(True))
        .values(is_active=False)
    )
    session.flush()  # before another row becomes active: the one-active index checks each statement


def activate_policy_version(tenant_id: str, version: int, *, session: Session) -> TenantPolicy | None:
    """Make a stored version the active one (roll back or forward). None if the tenant has no such version."""
    if session.scalar(select(Tenant.id).where(Tenant.id == tenant_id).with_for_update()) is None:
        return None
    row = session.scalar(select(TenantPolicy).where(TenantPolicy.tenant_id == tenant_id,
                                                    TenantPolicy.version == version))
    if row is None:
        return None
    Policy.model_validate(row.document)  # a version the current model cannot read must not become active
    if not row.is_active:
        _deactivate(tenant_id, session=session)
        row.is_active = True
        session.flush()
    return row


def list_policy_versions(tenant_id: str, *, session: Session) -> list[TenantPolicy]:
    return list(session.scalars(select(TenantPolicy).where(TenantPolicy.tenant_id == tenant_id)
                                .order_by(TenantPolicy.version)))


def get_policy_version(tenant_id: str, version: int, *, session: Session) -> TenantPolicy | None:
    return session.scalar(select(TenantPolicy).where(TenantPolicy.tenant_id == tenant_id,
                                                     TenantPolicy.version == version))


def load_active_policy(tenant_id: str, *, session: Session) -> ActivePolicy:
    row = session.scalar(
        select(TenantPolicy).where(TenantPolicy.tenant_id == tenant_id, TenantPolicy.is_active.is_(True))
    )
    if row is None:
        return ActivePolicy(version=None, policy=Policy.default())
    return ActivePolicy(version=row.version, policy=Policy.model_validate(row.document))
