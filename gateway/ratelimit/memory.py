"""In-process limiter for embedded mode (one gateway process, no Redis): the same accounting under a lock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from gateway.ratelimit.accounting import ScopeState, consume, refill, refusals, settle_tokens
from gateway.ratelimit.admission import Admission, MonthlyUsage
from gateway.ratelimit.calendar import month_index, month_label
from gateway.ratelimit.clock import Clock, SystemClock
from gateway.ratelimit.leases import LeaseKeeper
from gateway.ratelimit.limits import RateLimits, Scope
from gateway.ratelimit.protocol import DEFAULT_LEASE_MS
from gateway.ratelimit.scopes import ScopeSpec, build_admission, check_request, new_admission_id, scopes_for


@dataclass(slots=True)
class _Counters:
    """One scope's stored state; mirrors the fields of the Redis hash and lease set in lua.py."""

    last_ms: int | None = None
    requests_level: int | None = None
    tokens_level: int | None = None
    budget_month: int | None = None
    budget_used: int = 0
    budget_reserved: int = 0
    leases: dict[str, tuple[int, int]] = field(default_factory=dict)  # member -> (expiry ms, reserved tokens)
    used: dict[str, int] = field(default_factory=dict)  # member -> tokens used at its last renewal, when reported

    def advance(self, now_ms: int, limits: RateLimits) -> ScopeState:
        """Bring the counters to `now_ms`: refill, roll the month, expire leases. A lapsed lease (its holder stopped
        renewing it mid-call) is charged as in lua.py: the use its last renewal reported, else its whole reservation;
        the rest of the reservation goes back to the tokens bucket."""
        self.requests_level = refill(self.requests_level, self.last_ms, now_ms, limits.requests_per_minute)
        self.tokens_level = refill(self.tokens_level, self.last_ms, now_ms, limits.tokens_per_minute)
        self.last_ms = now_ms if self.last_ms is None else max(self.last_ms, now_ms)
        month = month_index(now_ms)
        if self.budget_month != month:
            self.budget_month, self.budget_used = month, 0
        expired = [member for member, (expiry, _) in self.leases.items() if expiry <= now_ms]
        for member in expired:
            reserved = self.leases.pop(member)[1]
            charged = self.lapse_charge(member, reserved)
            self.used.pop(member, None)
            self.budget_reserved -= reserved
            self.budget_used += charged
            self.tokens_level = settle_tokens(self.tokens_level, limits.tokens_per_minute, reserved, charged)
        self.budget_reserved = max(self.budget_reserved, 0)
        return ScopeState(
            self.requests_level, self.tokens_level, len(self.leases), self.budget_used, self.budget_reserved
        )

    def lapse_charge(self, member: str, reserved: int) -> int:
        used = self.used.get(member)
        return reserved if used is None else min(used, reserved)

    def store(self, state: ScopeState) -> None:
        self.requests_level, self.tokens_level = state.requests_level, state.tokens_level
        self.budget_used, self.budget_reserved = state.budget_used, state.budget_reserved


class InProcessRateLimiter:
    """Counters live in this process; correct for one gateway process only (embedded mode, tests): `warden serve
    --workers N` refuses to start with it. `renew_interval_s`: as for RedisRateLimiter."""

    def __init__(self, clock: Clock | None = None, lease_ms: int = DEFAULT_LEASE_MS,
                 renew_interval_s: float | None = None) -> None:
        self._clock = clock or SystemClock()
        self._lease_ms = lease_ms
        self._leases = LeaseKeeper(self.renew, renew_interval_s)
        self._counters: dict[tuple[str, Scope, str], _Counters] = {}
        # A thread lock, not an asyncio one: nothing awaits while it is held, and sync callers stay safe too.
        self._lock = threading.Lock()

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
        member = f"{admission_id}:{reserve_tokens}"
        with self._lock:
            now_ms = self._clock.now_ms()
            counters = [self._counters_for(tenant_id, spec) for spec in specs]
            states = [c.advance(now_ms, spec.limits) for c, spec in zip(counters, specs, strict=True)]
            admitted = not any(
                refusals(state, spec.limits, reserve_tokens, now_ms, spec.scope)
                for state, spec in zip(states, specs, strict=True)
            )
            if admitted:
                for c, state in zip(counters, states, strict=True):
                    c.store(consume(state, reserve_tokens))
                    c.leases[member] = (now_ms + self._lease_ms, reserve_tokens)
        admission = build_admission(
            admission_id=admission_id,
            tenant_id=tenant_id,
            key_id=key_id,
            reserve_tokens=reserve_tokens,
            limits=limits,
            key_limits=key_limits,
            specs=specs,
            states=states,
            admitted=admitted,
            now_ms=now_ms,
        )
        self._leases.hold(admission)
        return admission

    async def settle(self, admission: Admission, used_tokens: int) -> bool:
        return self.settle_now(admission, used_tokens)

    def settle_now(self, admission: Admission, used_tokens: int) -> bool:
        """``settle``, done before this returns (``SettlesAtOnce``): the request path needs no task for it."""
        if used_tokens < 0:
            raise ValueError(f"used_tokens must be >= 0, got {used_tokens}")
        if not admission.admitted or admission.degraded:
            return False
        self._leases.drop(admission)
        specs = scopes_for(admission.tenant_id, admission.key_id, admission.limits, admission.key_limits)
        member = admission.lease_member
        with self._lock:
            now_ms = self._clock.now_ms()
            counters = [self._counters_for(admission.tenant_id, spec) for spec in specs]
            lease = counters[0].leases.get(member)
            if lease is None or lease[0] <= now_ms:
                return False  # already settled, or held past its lease and reclaimed (and charged)
            for c, spec in zip(counters, specs, strict=True):
                c.advance(now_ms, spec.limits)
                c.tokens_level = settle_tokens(
                    c.tokens_level, spec.limits.tokens_per_minute, admission.reserved_tokens, used_tokens
                )
                c.budget_reserved = max(c.budget_reserved - admission.reserved_tokens, 0)
                c.budget_used += used_tokens
                c.leases.pop(member, None)
                c.used.pop(member, None)
        return True

    async def release(self, admission: Admission) -> bool:
        return await self.settle(admission, 0)

    async def renew(self, admission: Admission, used_tokens: int | None = None) -> bool:
        """Push the admission's lease expiry to `lease_ms` from now, recording `used_tokens` (what a lapse then
        charges); False when it had lapsed or was settled."""
        if not admission.admitted or admission.degraded:
            return False
        specs = scopes_for(admission.tenant_id, admission.key_id, admission.limits, admission.key_limits)
        member = admission.lease_member
        live = False
        with self._lock:
            now_ms = self._clock.now_ms()
            for index, spec in enumerate(specs):
                c = self._counters_for(admission.tenant_id, spec)
                lease = c.leases.get(member)
                if lease is not None and lease[0] > now_ms:
                    c.leases[member] = (now_ms + self._lease_ms, lease[1])
                    if used_tokens is not None:
                        c.used[member] = max(used_tokens, 0)
                    live = live or index == 0
        return live

    def track_usage(self, admission: Admission, used_tokens: Callable[[], int]) -> None:
        """Report `used_tokens()` (the call's tokens so far) with each renewal of the admission's lease."""
        self._leases.track(admission, used_tokens)

    async def renew_leases(self) -> int:
        return await self._leases.renew_all()

    async def monthly_usage(self, tenant_id: str, key_id: str | None = None) -> MonthlyUsage:
        scope, owner = (Scope.TENANT, tenant_id) if key_id is None else (Scope.KEY, key_id)
        with self._lock:
            now_ms = self._clock.now_ms()
            month = month_index(now_ms)
            c = self._counters.get((tenant_id, scope, owner))
            used = 0 if c is None or c.budget_month != month else c.budget_used
            # Lapsed leases not yet swept are charged already, as the next advance() will charge them.
            used += 0 if c is None else sum(c.lapse_charge(m, r) for m, (expiry, r) in c.leases.items()
                                            if expiry <= now_ms)
            reserved = 0 if c is None else sum(r for expiry, r in c.leases.values() if expiry > now_ms)
        return MonthlyUsage(month=month_label(month), used_tokens=used, reserved_tokens=reserved)

    async def aclose(self) -> None:
        await self._leases.aclose()

    def _counters_for(self, tenant_id: str, spec: ScopeSpec) -> _Counters:
        return self._counters.setdefault((tenant_id, spec.scope, spec.owner_id), _Counters())
