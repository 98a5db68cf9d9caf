"""Turn a tenant's policy into the limiter's inputs (the one place that knows the policy model's shape)."""

from __future__ import annotations

from gateway.ratelimit.limits import RateLimits
from policies.model import Policy
from policies.model import RateLimits as PolicyRateLimits


def limits_for_key(policy: Policy, key_id: str) -> tuple[RateLimits, RateLimits | None]:
    """(tenant limits, key limits) for `limiter.admit(..., limits, ..., key_limits=...)`.

    The tenant's limits always apply to its shared pool. A key override's rate limits apply to that key's own
    counters on top (a None field there: no extra per-key limit in that dimension), so an override can narrow a
    key below the tenant's pool but never lift it above. Whether the store being down fails open is the
    tenant's choice alone.
    """
    tenant = _convert(policy.rate_limits)
    override = policy.key_overrides.get(key_id)
    if override is None or override.rate_limits is None:
        return tenant, None
    return tenant, _convert(override.rate_limits, fail_open=tenant.fail_open)


def _convert(limits: PolicyRateLimits, fail_open: bool | None = None) -> RateLimits:
    return RateLimits(
        requests_per_minute=limits.requests_per_minute,
        tokens_per_minute=limits.tokens_per_minute,
        max_concurrent_requests=limits.max_concurrent_requests,
        monthly_token_budget=limits.monthly_token_budget,
        fail_open=limits.fail_open if fail_open is None else fail_open,
    )
