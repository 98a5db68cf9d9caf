"""What the /v1 path reads from a tenant policy, with the calling key's override applied."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.ratelimit import RateLimits
from policies import AuditContent, Policy
from policies import RateLimits as PolicyRateLimits


def _limits(value: PolicyRateLimits | None) -> RateLimits | None:
    if value is None:
        return None
    return RateLimits(requests_per_minute=value.requests_per_minute, tokens_per_minute=value.tokens_per_minute,
                      max_concurrent_requests=value.max_concurrent_requests,
                      monthly_token_budget=value.monthly_token_budget, fail_open=value.fail_open)


@dataclass(frozen=True, slots=True)
class PolicyView:
    allowed_models: list[str] | None
    max_tokens_cap: int | None
    weight: int
    tenant_limits: RateLimits
    key_limits: RateLimits | None
    audit_content: AuditContent

    @classmethod
    def for_key(cls, policy: Policy, key_id: str) -> PolicyView:
        override = policy.key_overrides.get(key_id)
        allowed = policy.allowed_models
        cap = policy.max_tokens_cap
        weight = policy.weight
        if override is not None:
            allowed = override.allowed_models if override.allowed_models is not None else allowed
            cap = override.max_tokens_cap if override.max_tokens_cap is not None else cap
            weight = override.weight if override.weight is not None else weight
        tenant_limits = _limits(policy.rate_limits)
        assert tenant_limits is not None
        return cls(allowed_models=allowed, max_tokens_cap=cap, weight=weight, tenant_limits=tenant_limits,
                   key_limits=_limits(override.rate_limits) if override is not None else None,
                   audit_content=policy.audit_content)

    def allows_model(self, model: str) -> bool:
        return self.allowed_models is None or model in self.allowed_models
