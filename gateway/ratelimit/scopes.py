"""Which counters one request is metered on, and turning their states into an Admission.

A request always counts against its tenant's pool. A key whose policy carries its own rate limits also counts
against that key's own counters; both must admit it, so a key override can only narrow what the tenant allows.
"""

from __future__ import annotations

from dataclasses import dataclass

from gateway.core.ids import uuid4_hex
from gateway.ratelimit.accounting import ScopeState, bucket_status, consume, decisive, refusals, tightest
from gateway.ratelimit.admission import Admission
from gateway.ratelimit.limits import RateLimits, Scope


@dataclass(frozen=True, slots=True)
class ScopeSpec:
    scope: Scope
    owner_id: str  # the tenant id or the key id
    limits: RateLimits


def scopes_for(tenant_id: str, key_id: str, limits: RateLimits, key_limits: RateLimits | None) -> list[ScopeSpec]:
    specs = [ScopeSpec(Scope.TENANT, tenant_id, limits)]
    if key_limits is not None:
        specs.append(ScopeSpec(Scope.KEY, key_id, key_limits))
    return specs


def check_request(tenant_id: str, key_id: str, reserve_tokens: int) -> None:
    if not tenant_id:
        raise ValueError("tenant_id must be non-empty")
    if not key_id:
        raise ValueError("key_id must be non-empty")
    if isinstance(reserve_tokens, bool) or not isinstance(reserve_tokens, int) or reserve_tokens < 0:
        raise ValueError(f"reserve_tokens must be a non-negative int, got {reserve_tokens!r}")


def new_admission_id() -> str:
    return uuid4_hex()


def build_admission(
    *,
    admission_id: str,
    tenant_id: str,
    key_id: str,
    reserve_tokens: int,
    limits: RateLimits,
    key_limits: RateLimits | None,
    specs: list[ScopeSpec],
    states: list[ScopeState],
    admitted: bool,
    now_ms: int,
) -> Admission:
    """An Admission from the states the store decided on. `admitted` is the store's own decision; the Python
    predicate must agree with it, which catches the Lua script and this module drifting apart."""
    found = [
        refusal
        for spec, state in zip(specs, states, strict=True)
        for refusal in refusals(state, spec.limits, reserve_tokens, now_ms, spec.scope)
    ]
    refusal = decisive(found)
    if admitted != (refusal is None):
        raise AssertionError(f"limiter store decided admitted={admitted} but the accounting rules say {found!r}")
    shown = [consume(state, reserve_tokens) for state in states] if admitted else states
    return Admission(
        id=admission_id,
        tenant_id=tenant_id,
        key_id=key_id,
        reserved_tokens=reserve_tokens,
        limits=limits,
        key_limits=key_limits,
        refusal=refusal,
        requests=tightest(
            [bucket_status(s.requests_level, p.limits.requests_per_minute) for p, s in zip(specs, shown, strict=True)]
        ),
        tokens=tightest(
            [bucket_status(s.tokens_level, p.limits.tokens_per_minute) for p, s in zip(specs, shown, strict=True)]
        ),
    )


def degraded_admission(
    tenant_id: str, key_id: str, reserve_tokens: int, limits: RateLimits, key_limits: RateLimits | None
) -> Admission:
    """Admitted unmetered: the store is down and the policy fails open. Settling it is a no-op."""
    return Admission(
        id=new_admission_id(),
        tenant_id=tenant_id,
        key_id=key_id,
        reserved_tokens=reserve_tokens,
        limits=limits,
        key_limits=key_limits,
        degraded=True,
    )
