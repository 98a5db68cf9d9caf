"""Active policy per tenant, cached in-process for a short TTL (a new version applies everywhere within it)."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from gateway.core.db import Database
from gateway.core.ttl_cache import TTLCache
from gateway.policystore.service import ActivePolicy, load_active_policy


class PolicyResolver:
    def __init__(self, db: Database, *, ttl_s: float, max_entries: int) -> None:
        self._db = db
        self._cache: TTLCache[str, ActivePolicy] = TTLCache(ttl_s, max_entries)

    def _resolve_sync(self, tenant_id: str) -> ActivePolicy:
        hit, active = self._cache.get(tenant_id)
        if hit and active is not None:
            return active
        with self._db.session() as session:
            active = load_active_policy(tenant_id, session=session)
        self._cache.put(tenant_id, active)
        return active

    async def resolve(self, tenant_id: str) -> ActivePolicy:
        return await run_in_threadpool(self._resolve_sync, tenant_id)

    def forget(self) -> None:
        self._cache.clear()
