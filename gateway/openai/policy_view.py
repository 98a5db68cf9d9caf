"""What the /v1 path reads from a tenant policy, with the calling key's override applied."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.ratelimit import RateLimits
from gateway.ratelimit.policy_limits import limits_for_key
from policies import AuditContent, Policy

# Views already built, by (policy identity, key): a tenant's policy object lives in the policy cache across many
# calls, and converting its limits (two RateLimits validated) on every call was a measurable part of the request
# path. Each entry keeps its policy alive, so an id is never reused while it is cached; bounded by clearing.
_VIEWS_MAX = 4096
_views: dict[tuple[int, str], tuple[Policy, PolicyView]] = {}


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
        """The view of ``policy`` for ``key_id``; the same object for the same (frozen) policy and key."""
        cached = _views.get((id(policy), key_id))
        if cached is not None and cached[0] is policy:
            return cached[1]
        view = cls.build(policy, key_id)
        if len(_views) >= _VIEWS_MAX:
            _views.clear()
        _views[(id(policy), key_id)] = (policy, view)
        return view

    @classmethod
    def build(cls, policy: Policy, key_id: str) -> PolicyView:
        override = policy.key_overrides.get(key_id)
        allowed = policy.allowed_models
        cap = policy.max_tokens_cap
        weight = policy.weight
        if override is not None:
            allowed = override.allowed_models if override.allowed_models is not None else allowed
            cap = override.max_tokens_cap if override.max_tokens_cap is not None else cap
            weight = override.weight if override.weight is not None else weight
        tenant_limits, key_limits = limits_for_key(policy, key_id)
        return cls(allowed_models=allowed, max_tokens_cap=cap, weight=weight, tenant_limits=tenant_limits,
                   key_limits=key_limits, audit_content=policy.audit_content)

    def allows_model(self, model: str) -> bool:
        return self.allowed_models is None or model in self.allowed_models
