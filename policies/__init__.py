"""Tenant policies: the pydantic model and the pure decisions made from it (stdlib + pydantic only)."""

from policies.decisions import (
    active_entity_types,
    effective_max_tokens,
    effective_policy,
    injection_action,
    model_allowed,
    needs_ner,
    pii_action,
    retention_cutoff,
)
from policies.model import (
    SCHEMA_VERSION,
    AuditContent,
    InjectionAction,
    InjectionRules,
    KeyOverride,
    PiiAction,
    PiiRules,
    Policy,
    RateLimits,
)

__all__ = [
    "SCHEMA_VERSION",
    "AuditContent",
    "InjectionAction",
    "InjectionRules",
    "KeyOverride",
    "PiiAction",
    "PiiRules",
    "Policy",
    "RateLimits",
    "active_entity_types",
    "effective_max_tokens",
    "effective_policy",
    "injection_action",
    "model_allowed",
    "needs_ner",
    "pii_action",
    "retention_cutoff",
]
