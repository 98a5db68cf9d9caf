"""Tenant policies: the pydantic model and the pure decisions made from it (stdlib + pydantic only)."""

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
]
