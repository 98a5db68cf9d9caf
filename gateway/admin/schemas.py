"""Request and response bodies of the admin API."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from gateway.audit.retention import ChainPurge, PurgeRound
from gateway.core.clock import as_utc
from gateway.keys.models import ApiKey
from gateway.policystore.models import TenantPolicy
from gateway.tenants.models import Tenant


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


# Policy versions are Postgres INTEGER columns: a larger number in a path or query is a 400, not a database error.
MAX_POLICY_VERSION = 2**31 - 1


def _iso_8601(value: Any) -> Any:
    """Text must be an ISO 8601 date-time (or date). Pydantic alone would also read a number as Unix seconds, so
    ``from=2024`` would silently mean 1970-01-01T00:33:44Z."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError("expected an ISO 8601 date-time such as 2026-01-31T00:00:00Z, not a number")
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("expected an ISO 8601 date-time such as 2026-01-31T00:00:00Z") from None
    return value


IsoDateTime = Annotated[datetime, BeforeValidator(_iso_8601)]


class _Strict(BaseModel):
    # strict: JSON types as declared; lax mode would read "legal_hold": "yes" as true and "grace_seconds": "60" as 60.
    model_config = ConfigDict(extra="forbid", strict=True)


class TenantCreate(_Strict):
    name: str = Field(min_length=1, max_length=200)


class TenantUpdate(_Strict):
    name: str | None = Field(default=None, min_length=1, max_length=200)
    legal_hold: bool | None = None


class TenantView(BaseModel):
    id: str
    name: str
    created_at: datetime
    suspended: bool
    suspended_at: datetime | None
    legal_hold: bool

    @classmethod
    def of(cls, tenant: Tenant) -> TenantView:
        return cls(id=tenant.id, name=tenant.name, created_at=as_utc(tenant.created_at),
                   suspended=tenant.disabled_at is not None, suspended_at=_utc(tenant.disabled_at),
                   legal_hold=bool(tenant.legal_hold))


class KeyIssue(_Strict):
    label: str | None = Field(default=None, max_length=200)
    expires_at: IsoDateTime | None = None


class KeyRotate(_Strict):
    grace_seconds: int = Field(default=86400, ge=0, description="How long the old key keeps working")


class KeyView(BaseModel):
    """A key's metadata. The secret is never stored, so it is never listed."""

    id: str
    tenant_id: str
    label: str | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None
    replaced_by: str | None

    @classmethod
    def of(cls, key: ApiKey) -> KeyView:
        return cls(id=key.id, tenant_id=key.tenant_id, label=key.label, created_at=as_utc(key.created_at),
                   expires_at=_utc(key.expires_at), revoked_at=_utc(key.revoked_at),
                   last_used_at=_utc(key.last_used_at), replaced_by=key.replaced_by)


class IssuedKeyView(BaseModel):
    key: KeyView
    api_key: str = Field(description="Shown once; only a peppered hash is stored")


class RotatedKeyView(IssuedKeyView):
    old_key: KeyView


class PolicyVersionView(BaseModel):
    version: int
    schema_version: int
    is_active: bool
    created_at: datetime
    document: dict[str, Any]

    @classmethod
    def of(cls, row: TenantPolicy) -> PolicyVersionView:
        return cls(version=row.version, schema_version=row.schema_version, is_active=row.is_active,
                   created_at=as_utc(row.created_at), document=row.document)


class ActivePolicyView(BaseModel):
    version: int | None = Field(description="None: no stored policy, the default applies")
    document: dict[str, Any]


class PolicyChange(BaseModel):
    path: str
    before: Any = None
    after: Any = None
    kind: str  # added | removed | changed


class PolicyDiff(BaseModel):
    from_version: int
    to_version: int
    changes: list[PolicyChange]


class RefusalCount(BaseModel):
    http_status: int
    error_type: str | None
    count: int


class ModelUsage(BaseModel):
    model: str | None
    requests: int
    prompt_tokens: int
    completion_tokens: int


class UsageSummary(BaseModel):
    tenant_id: str
    start: datetime | None = Field(serialization_alias="from")
    end: datetime | None = Field(serialization_alias="to")
    requests: int
    succeeded: int
    refused: int
    prompt_tokens: int
    completion_tokens: int
    refusals: list[RefusalCount]
    models: list[ModelUsage]


class PublicPrefixPublish(_Strict):
    text: str = Field(min_length=1, max_length=200_000, description="The system prompt, exactly as requests send it")


class PublicPrefixView(BaseModel):
    content_hash: str = Field(description="SHA-256 of the text: what the policy records (the text is not stored)")
    policy_version: int | None = Field(description="The active policy version that lists (or no longer lists) it")
    changed: bool = Field(description="False when the policy already said so (no new version)")


class AuditPurge(_Strict):
    # Strict: this switch decides whether records are destroyed, so a string or number is refused, not coerced.
    dry_run: bool = Field(default=False, strict=True, description="Only report what would be dropped")


class ChainPurgeView(BaseModel):
    """One chain's purge: the same document as the ``details`` of the purge's own audit record in that chain."""

    chain_id: str
    retention_days: int
    purged_before: datetime = Field(description="Records recorded before this instant (the first day of the "
                                                "cutoff's month) are dropped, or would be")
    rows: int
    partitions: list[str] = Field(description="Postgres month tables dropped, or that would be (SQLite: none)")
    first_seq: int | None = Field(description="The chain's first remaining seq afterwards")
    skipped: str | None = Field(description="Why records that are due stay (legal hold, ...)")

    @classmethod
    def of(cls, purge: ChainPurge) -> ChainPurgeView:
        # Built from describe(), so what the API reports can never drift from what the audit record says.
        return cls.model_validate(purge.describe())


class AuditPurgeReport(BaseModel):
    """One retention round: what ``warden audit purge`` prints and ``POST /admin/v1/audit/purge`` returns."""

    dry_run: bool
    rows: int = Field(description="Records dropped (or that would be) across the chains not skipped")
    chains: list[ChainPurgeView] = Field(description="Every chain with records past its cutoff, skipped ones too")
    failed: list[str] = Field(description="Chains whose purge failed and was rolled back (see the server log); "
                                          "the next round retries them")

    @classmethod
    def of(cls, done: PurgeRound, *, dry_run: bool) -> AuditPurgeReport:
        return cls(dry_run=dry_run, rows=sum(p.rows for p in done.chains if not p.skipped),
                   chains=[ChainPurgeView.of(p) for p in done.chains], failed=done.failed)
