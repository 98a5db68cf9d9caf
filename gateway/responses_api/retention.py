"""Retention of stored responses: a tenant's stored responses live as long as its audit records
(``policies.retention_cutoff`` of its active policy, else ``WARDEN_AUDIT_DEFAULT_RETENTION_DAYS``), to the day
rather than the month, and stay while the tenant is on legal hold. Run by the audit maintenance round."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import select

from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.policystore.service import load_active_policy
from gateway.responses_api.models import StoredResponse
from gateway.responses_api.store import purge_before
from gateway.tenants.models import Tenant
from policies import retention_cutoff

log = logging.getLogger(__name__)


def purge_expired_responses(db: Database, *, default_days: int, now: datetime | None = None) -> dict[str, int]:
    """Delete every tenant's stored responses past its retention, each tenant in its own transaction; how many
    went per tenant (tenants with none due are left out)."""
    now = now or utcnow()
    with db.session() as session:
        tenants = list(session.scalars(select(StoredResponse.tenant_id).distinct()))
    purged: dict[str, int] = {}
    for tenant_id in tenants:
        try:
            with db.transaction() as session:
                tenant = session.get(Tenant, tenant_id)
                if tenant is None or tenant.legal_hold:
                    continue
                active = load_active_policy(tenant_id, session=session)
                if active is None or active.version is None:
                    cutoff = now - timedelta(days=default_days)
                else:
                    cutoff = retention_cutoff(active.policy, now)
                count = purge_before(session, tenant_id, cutoff)
        except Exception:
            log.warning("stored responses of tenant %s not purged this round", tenant_id, exc_info=True)
            continue
        if count:
            purged[tenant_id] = count
            log.info("retention: %d stored response(s) of tenant %s deleted", count, tenant_id)
    return purged
