"""Redis limiter: every gateway replica shares one set of counters; each decision is one atomic Lua call."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from urllib.parse import quote

from redis.asyncio import Redis
from redis.exceptions import RedisError

from gateway.ratelimit import lua
from gateway.ratelimit.accounting import ScopeState
from gateway.ratelimit.admission import Admission, MonthlyUsage
from gateway.ratelimit.batching import ScriptBatch
from gateway.ratelimit.calendar import month_label
from gateway.ratelimit.clock import Clock
from gateway.ratelimit.errors import RateLimiterUnavailable
from gateway.ratelimit.leases import LeaseKeeper
from gateway.ratelimit.limits import RateLimits, Scope
from gateway.ratelimit.protocol import DEFAULT_LEASE_MS
from gateway.ratelimit.scopes import (
    ScopeSpec,
    build_admission,
    check_request,
    degraded_admission,
    new_admission_id,
    scopes_for,
)

log = logging.getLogger(__name__)

# A budget lives for a calendar month; state untouched for longer than any month plus slack can go.
STATE_TTL_MS = 40 * 24 * 3600 * 1000
_UNLIMITED = -1


class RedisRateLimiter:
    """Counters in Redis under `{prefix}:{<tenant>}:...`; the braces are a hash tag, so all of a tenant's keys sit
    in one Redis Cluster slot and one script can touch them atomically.

    Time comes from the Redis server (`TIME` inside the script) so replicas with skewed clocks still agree; a
    `clock` overrides that for tests. The client should be built with short socket timeouts (see
    factory.build_limiter): a down Redis must fail a request quickly, not hang it.

    With `renew_interval_s` set, this process renews the leases of its open admissions that often (see
    leases.py), so `lease_ms` can be seconds: a worker that dies frees its slots that soon. Without it a lease
    must outlast the longest call.
    """

    def __init__(
        self,
        redis: Redis,
        *,
        clock: Clock | None = None,
        lease_ms: int = DEFAULT_LEASE_MS,
        key_prefix: str = "wdn:rl",
        renew_interval_s: float | None = None,
    ) -> None:
        self._redis = redis
        self._clock = clock
        self._lease_ms = lease_ms
        self._prefix = key_prefix
        # redis-py runs these with EVALSHA and reloads them itself after a Redis restart empties its script cache.
        self._admit = redis.register_script(lua.ADMIT)
        self._settle = redis.register_script(lua.SETTLE)
        self._usage = redis.register_script(lua.USAGE)
        self._renew = redis.register_script(lua.RENEW)
        self.batch = ScriptBatch(redis)  # admissions and settlements queued behind a round trip: one more
        self._leases = LeaseKeeper(self.renew, renew_interval_s)

    async def admit(
        self,
        tenant_id: str,
        key_id: str,
        limits: RateLimits,
        reserve_tokens: int,
        *,
        key_limits: RateLimits | None = None,
    ) -> Admission:
        check_request(tenant_id, key_id, reserve_tokens)
        specs = scopes_for(tenant_id, key_id, limits, key_limits)
        admission_id = new_admission_id()
        args: list[str | int] = [
            self._now_arg(),
            f"{admission_id}:{reserve_tokens}",
            reserve_tokens,
            self._lease_ms,
            STATE_TTL_MS,
            len(specs),
            " ".join([_admit_limits(spec.limits) for spec in specs]),
        ]
        try:
            reply = await self.batch.call(self._admit, self._keys(tenant_id, specs), args)
        except RedisError as exc:
            if limits.fail_open:
                log.warning("rate limiter store unreachable, admitting unmetered (policy fails open): %s", exc)
                return degraded_admission(tenant_id, key_id, reserve_tokens, limits, key_limits)
            log.error("rate limiter store unreachable, refusing (policy fails closed): %s", exc)
            raise RateLimiterUnavailable("rate limiter unavailable: cannot reach its store") from exc
        admitted, now_ms = int(reply[0]), int(reply[1])
        states = [_scope_state(reply[2 + 5 * i : 7 + 5 * i]) for i in range(len(specs))]
        admission = build_admission(
            admission_id=admission_id,
            tenant_id=tenant_id,
            key_id=key_id,
            reserve_tokens=reserve_tokens,
            limits=limits,
            key_limits=key_limits,
            specs=specs,
            states=states,
            admitted=admitted == 1,
            now_ms=now_ms,
        )
        self._leases.hold(admission)
        return admission

    async def settle(self, admission: Admission, used_tokens: int) -> bool:
        if used_tokens < 0:
            raise ValueError(f"used_tokens must be >= 0, got {used_tokens}")
        if not admission.admitted or admission.degraded:
            return False
        self._leases.drop(admission)
        specs = scopes_for(admission.tenant_id, admission.key_id, admission.limits, admission.key_limits)
        args: list[str | int] = [
            self._now_arg(),
            admission.lease_member,
            admission.reserved_tokens,
            used_tokens,
            STATE_TTL_MS,
            len(specs),
            " ".join([_settle_limits(spec.limits) for spec in specs]),
        ]
        try:
            settled = await self.batch.call(self._settle, self._keys(admission.tenant_id, specs), args)
        except RedisError as exc:
            # The response is already out; the lease expiry reclaims the slot and the reservation later.
            log.error(
                "rate limiter store unreachable, admission %s of tenant %s not settled (%d tokens used): %s",
                admission.id,
                admission.tenant_id,
                used_tokens,
                exc,
            )
            return False
        return int(settled) == 1

    async def release(self, admission: Admission) -> bool:
        return await self.settle(admission, 0)

    async def renew(self, admission: Admission, used_tokens: int | None = None) -> bool:
        """Push the admission's lease expiry to `lease_ms` from now, recording `used_tokens` (what its call has used
        so far: what a lapse then charges); False when it had already lapsed (or was settled). Raises RedisError
        when the store is unreachable."""
        if not admission.admitted or admission.degraded:
            return False
        specs = scopes_for(admission.tenant_id, admission.key_id, admission.limits, admission.key_limits)
        used = -1 if used_tokens is None else max(used_tokens, 0)
        live = await self._renew(keys=self._keys(admission.tenant_id, specs),
                                 args=[self._now_arg(), self._lease_ms, admission.lease_member, used])
        return int(live) == 1

    def track_usage(self, admission: Admission, used_tokens: Callable[[], int]) -> None:
        """Report `used_tokens()` (the call's tokens so far) with each renewal of the admission's lease."""
        self._leases.track(admission, used_tokens)

    async def renew_leases(self) -> int:
        """Renew every open admission's lease now (the renewal task does this every `renew_interval_s`)."""
        return await self._leases.renew_all()

    async def monthly_usage(self, tenant_id: str, key_id: str | None = None) -> MonthlyUsage:
        spec = (
            ScopeSpec(Scope.TENANT, tenant_id, RateLimits())
            if key_id is None
            else ScopeSpec(Scope.KEY, key_id, RateLimits())
        )
        try:
            month, used, reserved = await self._usage(keys=self._keys(tenant_id, [spec]), args=[self._now_arg()])
        except RedisError as exc:
            raise RateLimiterUnavailable("rate limiter unavailable: cannot reach its store") from exc
        return MonthlyUsage(month=month_label(int(month)), used_tokens=int(used), reserved_tokens=int(reserved))

    async def aclose(self) -> None:
        await self._leases.aclose()
        await self.batch.aclose()
        await self._redis.aclose()

    def _now_arg(self) -> str:
        return "" if self._clock is None else str(self._clock.now_ms())

    def _keys(self, tenant_id: str, specs: list[ScopeSpec]) -> list[str]:
        # quote() escapes '{' and '}' so an id can never end or open the hash tag early.
        tag = f"{self._prefix}:{{{_quoted(tenant_id)}}}"
        keys: list[str] = []
        for spec in specs:
            base = f"{tag}:t" if spec.scope is Scope.TENANT else f"{tag}:k:{_quoted(spec.owner_id)}"
            keys += [base, f"{base}:leases"]
        return keys


def _limit_arg(value: int | None) -> int:
    return _UNLIMITED if value is None else value


# Every admission and settlement spells out its tenant's (and key's) ids and limits: the same few values call after
# call, so each is spelled once (tenants, keys and policies in use are far fewer than these caches hold).
@functools.lru_cache(maxsize=4096)
def _quoted(owner_id: str) -> str:
    return quote(owner_id, safe="")


@functools.lru_cache(maxsize=1024)
def _admit_limits(limits: RateLimits) -> str:
    return (f"{_limit_arg(limits.requests_per_minute)} {_limit_arg(limits.tokens_per_minute)} "
            f"{_limit_arg(limits.max_concurrent_requests)} {_limit_arg(limits.monthly_token_budget)}")


@functools.lru_cache(maxsize=1024)
def _settle_limits(limits: RateLimits) -> str:
    return f"{_limit_arg(limits.requests_per_minute)} {_limit_arg(limits.tokens_per_minute)}"


def _scope_state(fields: list[bytes | str | int]) -> ScopeState:
    requests_level, tokens_level, in_flight, used, reserved = fields
    return ScopeState(
        requests_level=_optional_int(requests_level),
        tokens_level=_optional_int(tokens_level),
        in_flight=int(in_flight),
        budget_used=int(used),
        budget_reserved=int(reserved),
    )


def _optional_int(value: bytes | str | int) -> int | None:
    if isinstance(value, bytes | str) and len(value) == 0:
        return None
    return int(value)
