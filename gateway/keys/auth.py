"""Bearer-key authentication with a short-TTL in-process cache.

Revocation reaches every replica within ``key_cache_ttl_s``: cached records expire and are reloaded from the
shared database. The cache holds the stored hash, never the secret; every request is verified with
``hmac.compare_digest``.

While the database is unavailable, a record cached within ``key_cache_ttl_s + store_stale_window_s`` keeps
authenticating (so revocation is late by at most the stale window during an outage); a key not cached that recently
is refused with ``StoreUnavailable`` (503 + Retry-After), never authenticated blind.

A key's reload is shared by the requests that find its record expired while it runs (``SingleFlight``); each still
verifies its own secret against the record.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from gateway.core.clock import utcnow
from gateway.core.db import Database
from gateway.core.errors import StoreUnavailable
from gateway.core.single_flight import SingleFlight
from gateway.core.stale_cache import StaleTolerantCache, begin_stale_tracking, note_stale
from gateway.core.store_health import is_store_unavailable
from gateway.core.ttl_cache import TTLCache
from gateway.keys.format import ParsedKey, parse_key, secret_matches
from gateway.keys.service import KeyRecord, load_key_record, touch_last_used

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Principal:
    tenant_id: str
    key_id: str


class AuthenticationFailed(Exception):
    """Carries what is known about the caller so the refusal can still be audited in the right chain."""

    def __init__(self, reason: str, *, key_id: str | None = None, tenant_id: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.key_id = key_id
        self.tenant_id = tenant_id


def bearer_token(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


class Authenticator:
    def __init__(self, db: Database, *, pepper: bytes, ttl_s: float, max_entries: int,
                 last_used_interval_s: float, stale_window_s: float = 0.0, retry_after_s: int = 5) -> None:
        self._db = db
        self._pepper = pepper
        self._cache: StaleTolerantCache[str, KeyRecord | None] = StaleTolerantCache(ttl_s, stale_window_s,
                                                                                     max_entries)
        self._retry_after_s = retry_after_s
        self._last_used_interval_s = last_used_interval_s
        self._last_touched: TTLCache[str, float] = TTLCache(max(last_used_interval_s, 1.0), max_entries)
        self._touch_lock = threading.Lock()
        self._loads: SingleFlight[str, tuple[KeyRecord | None, bool]] = SingleFlight()

    def _load(self, key_id: str) -> tuple[KeyRecord | None, bool]:
        """The key's record (None: no such key) and whether it is a stale read."""
        def load() -> KeyRecord | None:
            with self._db.session() as session:
                return load_key_record(key_id, session=session)

        return self._cache.load_through(key_id, load, stage="auth", retry_after_s=self._retry_after_s)

    def _claim_touch(self, key_id: str) -> bool:
        """True for the one request per interval per key that writes its last use."""
        with self._touch_lock:
            hit, _ = self._last_touched.get(key_id)
            if hit:
                return False
            self._last_touched.put(key_id, time.monotonic())
            return True

    def _touch(self, key_id: str) -> None:
        # last_used_at is informational: written at most once per interval per key (``_claim_touch``), and a
        # failure to write it never fails the request.
        try:
            with self._db.transaction() as session:
                touch_last_used(key_id, utcnow(), session=session)
        except Exception as exc:
            if isinstance(exc, StoreUnavailable) or is_store_unavailable(exc):
                log.info("last use of key %s not recorded: the store is unavailable", key_id)
            else:
                log.warning("could not record last use of key %s", key_id, exc_info=True)

    @staticmethod
    def _parse(token: str | None) -> ParsedKey:
        if token is None:
            raise AuthenticationFailed("missing API key (Authorization: Bearer wdn_...)")
        parsed = parse_key(token)
        if parsed is None:
            raise AuthenticationFailed("malformed API key")
        return parsed

    def _verify(self, parsed: ParsedKey, record: KeyRecord | None) -> Principal:
        if record is None:
            raise AuthenticationFailed("unknown API key", key_id=parsed.key_id)
        if not secret_matches(self._pepper, parsed, record.secret_hash):
            raise AuthenticationFailed("invalid API key", key_id=parsed.key_id, tenant_id=record.tenant_id)
        if not record.usable_at(utcnow()):
            raise AuthenticationFailed("API key revoked, expired or tenant disabled", key_id=parsed.key_id,
                                       tenant_id=record.tenant_id)
        return Principal(tenant_id=record.tenant_id, key_id=parsed.key_id)

    async def authenticate(self, authorization: str | None) -> Principal:
        """A key whose record is fresh in the cache is checked here, on the event loop (a dict lookup and one
        HMAC); only a load from the store, or the periodic last-use write, runs in a worker thread."""
        begin_stale_tracking()  # here, in the request's own context, before any cache read
        parsed = self._parse(bearer_token(authorization))
        key_id = parsed.key_id
        hit, record = self._cache.fresh(key_id)
        if not hit:
            record, stale = await self._loads.run(key_id, lambda: run_in_threadpool(self._load, key_id))
            if stale:
                note_stale("auth")
        principal = self._verify(parsed, record)
        if self._claim_touch(key_id):
            await run_in_threadpool(self._touch, key_id)
        return principal

    def forget_cached_keys(self) -> None:
        """Local revocation is immediate after this; other replicas follow within the TTL."""
        self._cache.clear()
        self._loads.forget()
