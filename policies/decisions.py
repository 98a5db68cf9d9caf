"""Pure decisions made from a policy. No I/O, no clocks read here: callers pass `now` in."""

from __future__ import annotations

from datetime import datetime, timedelta

from policies.model import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy


def effective_policy(policy: Policy, key_id: str | None) -> Policy:
    """The tenant policy with the API key's overrides applied (fields the override leaves None keep the tenant's)."""
    if key_id is None or key_id not in policy.key_overrides:
        return policy
    override = policy.key_overrides[key_id]
    changes = {
        name: value
        for name, value in (
            ("allowed_models", override.allowed_models),
            ("max_tokens_cap", override.max_tokens_cap),
            ("rate_limits", override.rate_limits),
            ("weight", override.weight),
            ("tools", override.tools),
        )
        if value is not None
    }
    return policy.model_copy(update=changes) if changes else policy


def model_allowed(policy: Policy, model: str) -> bool:
    return policy.allowed_models is None or model in policy.allowed_models


def effective_max_tokens(policy: Policy, requested: int | None) -> int | None:
    """Clamp the client's max_tokens to the policy cap; an absent request gets the cap itself (None: no cap)."""
    if policy.max_tokens_cap is None:
        return requested
    if requested is None:
        return policy.max_tokens_cap
    return min(requested, policy.max_tokens_cap)


def pii_action(rules: PiiRules, entity_type: str, score: float) -> PiiAction:
    """What to do with one finding. Findings under the threshold are left alone."""
    if score < rules.score_threshold:
        return PiiAction.ALLOW
    return rules.entities.get(entity_type, rules.default_action)


def active_entity_types(rules: PiiRules) -> frozenset[str]:
    """Entity types for which some action other than allow can apply: the only ones worth detecting."""
    if rules.default_action is not PiiAction.ALLOW:
        return frozenset({"*"})  # every detectable type matters
    return frozenset(entity for entity, action in rules.entities.items() if action is not PiiAction.ALLOW)


def needs_ner(rules: PiiRules) -> bool:
    """NER finds PERSON and LOCATION; skip it when the policy disables it or would allow those types anyway."""
    if not rules.ner_enabled:
        return False
    active = active_entity_types(rules)
    return "*" in active or bool(active & {"PERSON", "LOCATION"})


def injection_action(rules: InjectionRules, score: float) -> InjectionAction:
    """OFF when screening is off or the score is under the threshold, else the policy's action."""
    if rules.action is InjectionAction.OFF or score < rules.threshold:
        return InjectionAction.OFF
    return rules.action


def retention_cutoff(policy: Policy, now: datetime) -> datetime:
    """Audit records created before this instant are past retention."""
    return now - timedelta(days=policy.retention_days)
