"""Active policy per tenant, cached in-process for a short TTL (a new version applies everywhere within it).

While the database is unavailable, a policy cached within ``policy_cache_ttl_s + store_stale_window_s`` keeps
applying; a tenant whose policy was not cached that recently is refused with ``StoreUnavailable`` (503 +
Retry-After), never served under a default policy it may not have.

A tenant's reload is shared by the requests that find its entry expired while it runs (``SingleFlight``): one
database query per tenant per TTL, not one per request in flight at the expiry.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from gateway.core.db import Database
from gateway.core.single_flight import SingleFlight
from gateway.core.stale_cache import StaleTolerantCache, note_stale
from gateway.policystore.service import ActivePolicy, load_active_policy


class PolicyResolver:
    def __init__(self, db: Database, *, ttl_s: float, max_entries: int, stale_window_s: float = 0.0,
                 retry_after_s: int = 5) -> None:
        self._db = db
        self._cache: StaleTolerantCache[str, ActivePolicy] = StaleTolerantCache(ttl_s, stale_window_s, max_entries)
        self._retry_after_s = retry_after_s
        self._loads: SingleFlight[str, tuple[ActivePolicy | None, bool]] = SingleFlight()

    def _resolve_sync(self, tenant_id: str) -> tuple[ActivePolicy | None, bool]:
        def load() -> ActivePolicy:
            with self._db.session() as session:
                return load_active_policy(tenant_id, session=session)

        return self._cache.load_through(tenant_id, load, stage="policy", retry_after_s=self._retry_after_s,
                                        usable=lambda value: value is not None)

    async def resolve(self, tenant_id: str) -> ActivePolicy:
        """A policy fresh in the cache is returned here, on the event loop; only a load from the store (or, while
        it is unavailable, the stale read) runs in a worker thread."""
        hit, active = self._cache.fresh(tenant_id)
        if hit and active is not None:
            return active
        active, stale = await self._loads.run(tenant_id, lambda: run_in_threadpool(self._resolve_sync, tenant_id))
        if stale:
            note_stale("policy")
        assert active is not None
        return active

    def forget(self) -> None:
        self._cache.clear()
        self._loads.forget()
