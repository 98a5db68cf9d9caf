"""The tenant policy: one versioned pydantic document that decides everything the gateway does for a tenant.

Pure data. Nothing here performs I/O; the admin API stores policies, the gateway loads and caches them, and the
decision functions in `policies.decisions` read them.
"""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from policies.tools import ToolPolicy

# Bump when a stored policy document would be read differently; the admin API refuses unknown versions.
SCHEMA_VERSION: Final = 1


class PiiAction(StrEnum):
    ALLOW = "allow"  # leave the value in place
    MASK = "mask"  # replace with <ENTITY_TYPE>
    HASH = "hash"  # replace with a stable per-tenant token <ENTITY_TYPE_1a2b3c> so the model can still refer to it
    BLOCK = "block"  # refuse the request (400 naming entity types, never values)


class InjectionAction(StrEnum):
    OFF = "off"
    FLAG = "flag"  # record the decision in the audit row, let the request through
    BLOCK = "block"


class AuditContent(StrEnum):
    FULL = "full"  # store prompt and completion text as received/produced
    REDACTED = "redacted"  # store text after PII redaction
    HASHES = "hashes"  # store only content hashes


_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
MAX_PUBLIC_PREFIXES = 64


def public_prefix_hash(text: str) -> str:
    """The content hash that identifies a published public prefix (a system prompt) in a policy."""
    return hashlib.sha256(text.encode()).hexdigest()


class _Strict(BaseModel):
    # Unknown keys in a policy are almost always typos ("max_token_cap"); reject rather than silently ignore.
    model_config = ConfigDict(extra="forbid", frozen=True)


class RateLimits(_Strict):
    """Limits enforced by the rate limiter. None means unlimited for that dimension."""

    requests_per_minute: int | None = Field(default=None, ge=1)
    tokens_per_minute: int | None = Field(default=None, ge=1)
    max_concurrent_requests: int | None = Field(default=None, ge=1)
    monthly_token_budget: int | None = Field(default=None, ge=1)
    # When the limiter's store (Redis) is unreachable: False refuses traffic, True admits it unmetered.
    fail_open: bool = False


# Entity types Warden's detectors emit (Presidio's names). Rules may name others; they simply never match.
DEFAULT_INPUT_ENTITY_ACTIONS: dict[str, PiiAction] = {
    "EMAIL_ADDRESS": PiiAction.MASK,
    "PHONE_NUMBER": PiiAction.MASK,
    "CREDIT_CARD": PiiAction.MASK,
    "IBAN_CODE": PiiAction.MASK,
    "US_SSN": PiiAction.MASK,
    "IP_ADDRESS": PiiAction.MASK,
    "PERSON": PiiAction.ALLOW,
    "LOCATION": PiiAction.ALLOW,
    "STREET_ADDRESS": PiiAction.MASK,
    "DATE_OF_BIRTH": PiiAction.MASK,
    "NATIONAL_ID": PiiAction.MASK,  # non-US national identifiers (UK NINO, DE IdNr, FR NIR, ES DNI/NIE, ...)
    "SECRET": PiiAction.MASK,  # credentials: cloud and VCS tokens, private keys, JWTs, credential-named values
}


class PiiRules(_Strict):
    """Which detected entity types get which action, on one side (input or output) of the model."""

    entities: dict[str, PiiAction] = Field(default_factory=lambda: dict(DEFAULT_INPUT_ENTITY_ACTIONS))
    # Action for an entity type the detectors report but `entities` does not name.
    default_action: PiiAction = PiiAction.ALLOW
    # Findings scoring below this are ignored.
    score_threshold: float = Field(default=0.5, ge=0.0, le=1.0)
    # spaCy NER finds PERSON/LOCATION; turning it off leaves the pattern recognizers (much cheaper).
    ner_enabled: bool = True

    @field_validator("entities")
    @classmethod
    def _upper_case_types(cls, value: dict[str, PiiAction]) -> dict[str, PiiAction]:
        return {key.strip().upper(): action for key, action in value.items()}


class InjectionRules(_Strict):
    action: InjectionAction = InjectionAction.FLAG
    # Detector score (0..1) at or above which the action applies.
    threshold: float = Field(default=0.8, ge=0.0, le=1.0)


class KeyOverride(_Strict):
    """Per-API-key tightening or loosening of the tenant policy. None leaves the tenant's value in force."""

    allowed_models: list[str] | None = None
    max_tokens_cap: int | None = Field(default=None, ge=1)
    rate_limits: RateLimits | None = None
    weight: int | None = Field(default=None, ge=1, le=1000)
    tools: ToolPolicy | None = None  # replaces the tenant's tool policy for this key


class Policy(_Strict):
    schema_version: Literal[1] = SCHEMA_VERSION
    allowed_models: list[str] | None = None  # None: every served model
    max_tokens_cap: int | None = Field(default=None, ge=1)
    rate_limits: RateLimits = Field(default_factory=RateLimits)
    # Scheduling weight: a tenant with weight 2 gets twice the share of a weight-1 tenant under contention.
    weight: int = Field(default=1, ge=1, le=1000)
    pii_input: PiiRules = Field(default_factory=PiiRules)
    pii_output: PiiRules = Field(default_factory=PiiRules)
    injection: InjectionRules = Field(default_factory=InjectionRules)
    # Regular expressions; completion text matching any is withheld (replaced) on output.
    output_deny_patterns: list[str] = Field(default_factory=list, max_length=100)
    audit_content: AuditContent = AuditContent.REDACTED
    retention_days: int = Field(default=90, ge=1, le=3650)
    key_overrides: dict[str, KeyOverride] = Field(default_factory=dict)
    # System prompts published as public, by content hash (``public_prefix_hash``). A request whose system prompt
    # hashes to one of these shares that prompt's KV blocks with every other tenant that published the same one;
    # everything after it stays isolated by the tenant's own cache salt. Only tenants that opt in share: a
    # prompt is never public for a tenant whose policy does not list it.
    public_prefixes: list[str] = Field(default_factory=list, max_length=MAX_PUBLIC_PREFIXES)
    # Governed tool use through Warden's MCP endpoint (``policies.tools``).
    tools: ToolPolicy = Field(default_factory=ToolPolicy)

    @field_validator("public_prefixes")
    @classmethod
    def _sha256_hex(cls, value: list[str]) -> list[str]:
        normalized = list(dict.fromkeys(h.strip().lower() for h in value))
        for digest in normalized:
            if not _SHA256_HEX.match(digest):
                raise ValueError(f"public prefixes are SHA-256 hex digests of the prompt text, got {digest[:80]!r}")
        return normalized

    def is_public_prefix(self, text: str) -> bool:
        return bool(self.public_prefixes) and public_prefix_hash(text) in self.public_prefixes

    @field_validator("output_deny_patterns")
    @classmethod
    def _patterns_compile(cls, value: list[str]) -> list[str]:
        for pattern in value:
            if len(pattern) > 1000:
                raise ValueError("deny pattern longer than 1000 characters")
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid deny pattern {pattern!r}: {exc}") from exc
        return value

    @classmethod
    def default(cls) -> Policy:
        """The policy a tenant gets before an operator writes one: mask contact/financial PII, flag injection."""
        return cls()

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """JSON Schema of the policy document, served by the admin API."""
        return cls.model_json_schema()
