"""/admin/v1: tenants, keys, policies, usage, processing records, the audit retention purge.

Roles: platform-admin may do everything; tenant-admin only its own tenant's keys, policies, usage and records
(another tenant answers 404); auditor uses the audit routes (``gateway.export.router``) and gets 403 here, as
everyone but platform-admin does on the retention purge (it spans every tenant's chain).
Each request, allowed or refused, is an audit record (``AuditedAdminRoute``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query, Request, Response, status
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from gateway.admin import service
from gateway.admin.action_log import AuditedAdminRoute, action_log
from gateway.admin.dependencies import require, tenant_in_scope
from gateway.admin.errors import conflict, not_found
from gateway.admin.policy_diff import diff_documents
from gateway.admin.processing_record import processing_record
from gateway.admin.schemas import (
    MAX_POLICY_VERSION,
    ActivePolicyView,
    AuditPurge,
    AuditPurgeReport,
    IsoDateTime,
    IssuedKeyView,
    KeyIssue,
    KeyRotate,
    KeyView,
    PolicyDiff,
    PolicyVersionView,
    PublicPrefixPublish,
    PublicPrefixView,
    RotatedKeyView,
    TenantCreate,
    TenantUpdate,
    TenantView,
    UsageSummary,
)
from gateway.adminauth.roles import AdminPrincipal, Role
from gateway.core.clock import as_utc
from gateway.core.errors import invalid_request, validation_error
from gateway.keys.service import issue_key
from gateway.openai.dependencies import ServicesDep
from gateway.policystore import service as policies
from gateway.tenants.models import Tenant
from gateway.tenants.service import TenantError, TenantNameTaken, create_tenant, list_tenants
from policies import Policy
from policies.model import public_prefix_hash

router = APIRouter(prefix="/admin/v1", tags=["admin"], route_class=AuditedAdminRoute)

PlatformAdmin = Annotated[AdminPrincipal, Depends(require(Role.PLATFORM_ADMIN))]
AnyAdmin = Annotated[AdminPrincipal, Depends(require(Role.PLATFORM_ADMIN, Role.TENANT_ADMIN, Role.AUDITOR))]
# Tenant-scoped routes: platform-admin on any tenant, tenant-admin on its own.
ManagedTenant = Annotated[Tenant, Depends(tenant_in_scope(Role.PLATFORM_ADMIN, Role.TENANT_ADMIN))]
PlatformTenant = Annotated[Tenant, Depends(tenant_in_scope(Role.PLATFORM_ADMIN))]
VersionNumber = Annotated[int, Path(ge=1, le=MAX_POLICY_VERSION)]
VersionFrom = Annotated[int, Query(alias="from", ge=1, le=MAX_POLICY_VERSION)]
VersionTo = Annotated[int, Query(alias="to", ge=1, le=MAX_POLICY_VERSION)]


def _forget_cached_auth(services: ServicesDep) -> None:
    """Local replica: immediate. Others: within key_cache_ttl_s."""
    services.authenticator.forget_cached_keys()


# -- tenants ---------------------------------------------------------------------------------------------------
@router.post("/tenants", name="tenants.create", status_code=status.HTTP_201_CREATED, response_model=TenantView)
def create(body: TenantCreate, request: Request, services: ServicesDep, _: PlatformAdmin) -> TenantView:
    entry = action_log(request)
    try:
        with services.db.transaction() as session:
            tenant = create_tenant(body.name, session=session)
            view = TenantView.of(tenant)
    except TenantNameTaken as exc:
        raise conflict(str(exc)) from None
    except TenantError as exc:
        raise invalid_request(str(exc), param="name") from None
    entry.chain_tenant_id = view.id
    entry.target["tenant"] = view.id
    entry.details["name"] = view.name
    return view


@router.get("/tenants", name="tenants.list", response_model=list[TenantView])
def list_all(services: ServicesDep, _: PlatformAdmin) -> list[TenantView]:
    with services.db.session() as session:
        return [TenantView.of(t) for t in list_tenants(session=session)]


@router.get("/tenants/{tenant_id}", name="tenants.read", response_model=TenantView)
def read(tenant: ManagedTenant) -> TenantView:
    return TenantView.of(tenant)


@router.patch("/tenants/{tenant_id}", name="tenants.update", response_model=TenantView)
def update(body: TenantUpdate, tenant: PlatformTenant, request: Request, services: ServicesDep,
           _: PlatformAdmin) -> TenantView:
    action_log(request).details.update(body.model_dump(exclude_none=True))
    try:
        with services.db.transaction() as session:
            return TenantView.of(service.update_tenant(tenant, session=session, name=body.name,
                                                       legal_hold=body.legal_hold))
    except TenantNameTaken as exc:
        raise conflict(str(exc)) from None
    except TenantError as exc:
        raise invalid_request(str(exc), param="name") from None


def _set_suspended(tenant: Tenant, suspended: bool, services: ServicesDep) -> TenantView:
    with services.db.transaction() as session:
        view = TenantView.of(service.set_suspended(tenant, suspended, session=session))
    _forget_cached_auth(services)
    return view


@router.post("/tenants/{tenant_id}/suspend", name="tenants.suspend", response_model=TenantView)
def suspend(tenant: PlatformTenant, services: ServicesDep) -> TenantView:
    return _set_suspended(tenant, True, services)


@router.post("/tenants/{tenant_id}/resume", name="tenants.resume", response_model=TenantView)
def resume(tenant: PlatformTenant, services: ServicesDep) -> TenantView:
    return _set_suspended(tenant, False, services)


# -- keys ------------------------------------------------------------------------------------------------------
@router.get("/tenants/{tenant_id}/keys", name="keys.list", response_model=list[KeyView])
def keys_list(tenant: ManagedTenant, services: ServicesDep) -> list[KeyView]:
    with services.db.session() as session:
        return [KeyView.of(k) for k in service.tenant_keys(tenant.id, session=session)]


@router.post("/tenants/{tenant_id}/keys", name="keys.issue", status_code=status.HTTP_201_CREATED,
             response_model=IssuedKeyView)
def keys_issue(tenant: ManagedTenant, request: Request, services: ServicesDep,
               body: Annotated[KeyIssue | None, Body()] = None) -> IssuedKeyView:
    body = body or KeyIssue()
    with services.db.transaction() as session:
        issued = issue_key(tenant, pepper=services.secrets.key_pepper, session=session, label=body.label,
                           expires_at=body.expires_at)
        key = service.tenant_key(tenant.id, issued.key_id, session=session)
        assert key is not None
        view = KeyView.of(key)
    action_log(request).target["key"] = issued.key_id
    return IssuedKeyView(key=view, api_key=issued.api_key)


@router.post("/tenants/{tenant_id}/keys/{key_id}/rotate", name="keys.rotate", response_model=RotatedKeyView)
def keys_rotate(key_id: str, tenant: ManagedTenant, request: Request, services: ServicesDep,
                body: Annotated[KeyRotate | None, Body()] = None) -> RotatedKeyView:
    body = body or KeyRotate()
    entry = action_log(request)
    entry.target["key"] = key_id
    if body.grace_seconds > services.settings.key_rotation_max_grace_s:
        raise invalid_request(f"grace_seconds is at most {services.settings.key_rotation_max_grace_s}",
                              param="grace_seconds")
    try:
        with services.db.transaction() as session:
            rotated = service.rotate_tenant_key(tenant, key_id, pepper=services.secrets.key_pepper,
                                                grace_s=body.grace_seconds, session=session)
            if rotated is None:
                raise not_found("Key")
            issued, old = rotated
            new = service.tenant_key(tenant.id, issued.key_id, session=session)
            assert new is not None
            result = RotatedKeyView(key=KeyView.of(new), api_key=issued.api_key, old_key=KeyView.of(old))
    except service.KeyStateError as exc:
        raise conflict(str(exc)) from None
    entry.details.update(new_key=issued.key_id, grace_seconds=body.grace_seconds)
    _forget_cached_auth(services)
    return result


@router.post("/tenants/{tenant_id}/keys/{key_id}/revoke", name="keys.revoke", response_model=KeyView)
def keys_revoke(key_id: str, tenant: ManagedTenant, request: Request, services: ServicesDep) -> KeyView:
    action_log(request).target["key"] = key_id
    with services.db.transaction() as session:
        key = service.revoke_tenant_key(tenant.id, key_id, session=session)
        if key is None:
            raise not_found("Key")
        view = KeyView.of(key)
    _forget_cached_auth(services)
    return view


# -- policies --------------------------------------------------------------------------------------------------
@router.get("/policy-schema", name="policies.schema")
def policy_schema(_: AnyAdmin) -> dict[str, Any]:
    """JSON Schema of a policy document (what PUT .../policy accepts)."""
    return Policy.json_schema()


@router.get("/tenants/{tenant_id}/policy", name="policies.read_active", response_model=ActivePolicyView)
def policy_active(tenant: ManagedTenant, services: ServicesDep) -> ActivePolicyView:
    with services.db.session() as session:
        active = policies.load_active_policy(tenant.id, session=session)
    return ActivePolicyView(version=active.version, document=active.policy.model_dump(mode="json"))


@router.put("/tenants/{tenant_id}/policy", name="policies.put", status_code=status.HTTP_201_CREATED,
            response_model=PolicyVersionView)
def policy_put(document: Annotated[dict[str, Any], Body()], tenant: ManagedTenant, request: Request,
               services: ServicesDep, activate: bool = True) -> PolicyVersionView:
    """Store the document as the tenant's next policy version, active unless ``activate=false``."""
    try:
        # JSON types as declared, as every request body is read: lax parsing would store "fail_open": "yes" as true.
        # The stdlib encoder, not orjson: a client may send an integer wider than 64 bits, which is a 400 naming its
        # field, not an encoder error.
        Policy.model_validate_json(json.dumps(document), strict=True)
        with services.db.transaction() as session:
            view = PolicyVersionView.of(policies.publish_policy(tenant.id, document, session=session,
                                                                activate=activate))
    except ValidationError as exc:
        raise validation_error(exc.errors(), document) from None
    action_log(request).details.update(version=view.version, activated=activate)
    services.policies.forget()
    return view


@router.get("/tenants/{tenant_id}/policy/versions", name="policies.versions",
            response_model=list[PolicyVersionView])
def policy_versions(tenant: ManagedTenant, services: ServicesDep) -> list[PolicyVersionView]:
    with services.db.session() as session:
        return [PolicyVersionView.of(r) for r in policies.list_policy_versions(tenant.id, session=session)]


@router.get("/tenants/{tenant_id}/policy/versions/{version}", name="policies.version",
            response_model=PolicyVersionView)
def policy_version(version: VersionNumber, tenant: ManagedTenant, services: ServicesDep) -> PolicyVersionView:
    with services.db.session() as session:
        row = policies.get_policy_version(tenant.id, version, session=session)
        if row is None:
            raise not_found("Policy version")
        return PolicyVersionView.of(row)


@router.get("/tenants/{tenant_id}/policy/diff", name="policies.diff", response_model=PolicyDiff)
def policy_diff(tenant: ManagedTenant, services: ServicesDep, from_version: VersionFrom,
                to_version: VersionTo) -> PolicyDiff:
    with services.db.session() as session:
        before = policies.get_policy_version(tenant.id, from_version, session=session)
        after = policies.get_policy_version(tenant.id, to_version, session=session)
    if before is None or after is None:
        raise not_found("Policy version")
    return PolicyDiff(from_version=from_version, to_version=to_version,
                      changes=list(diff_documents(before.document, after.document)))


@router.post("/tenants/{tenant_id}/policy/versions/{version}/activate", name="policies.activate",
             response_model=PolicyVersionView)
def policy_activate(version: VersionNumber, tenant: ManagedTenant, request: Request,
                    services: ServicesDep) -> PolicyVersionView:
    """Make a stored version active: a rollback to an older one, or activating one stored with activate=false."""
    with services.db.transaction() as session:
        row = policies.activate_policy_version(tenant.id, version, session=session)
        if row is None:
            raise not_found("Policy version")
        view = PolicyVersionView.of(row)
    action_log(request).details["version"] = version
    services.policies.forget()
    return view


# -- public prefixes (shared prefix-cache blocks) ------------------------------------------------------------------
def _set_public_prefix(tenant: Tenant, content_hash: str, public: bool, request: Request, response: Response,
                       services: ServicesDep) -> PublicPrefixView:
    try:
        with services.db.transaction() as session:
            version, changed = service.set_public_prefix(tenant.id, content_hash, public, session=session)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise invalid_request(f"invalid policy: {first.get('msg')}", param="public_prefixes") from None
    action_log(request).details.update(content_hash=content_hash, public=public, version=version, changed=changed)
    if changed:
        services.policies.forget()
    elif public:
        response.status_code = status.HTTP_200_OK
    return PublicPrefixView(content_hash=content_hash, policy_version=version, changed=changed)


@router.post("/tenants/{tenant_id}/public-prefixes", name="policies.public_prefix_publish",
             status_code=status.HTTP_201_CREATED, response_model=PublicPrefixView)
def public_prefix_publish(body: PublicPrefixPublish, tenant: ManagedTenant, request: Request, response: Response,
                          services: ServicesDep) -> PublicPrefixView:
    """Publish a system prompt as public for this tenant: its KV blocks are then shared with every tenant that
    published the same text (timing reveals only that *someone* used it). Recorded in a new policy version by
    content hash; 200 and no new version if it is already public."""
    return _set_public_prefix(tenant, public_prefix_hash(body.text), True, request, response, services)


@router.delete("/tenants/{tenant_id}/public-prefixes/{content_hash}", name="policies.public_prefix_withdraw",
               response_model=PublicPrefixView)
def public_prefix_withdraw(content_hash: str, tenant: ManagedTenant, request: Request, response: Response,
                           services: ServicesDep) -> PublicPrefixView:
    """Make a published prefix private again for this tenant (new policy version); idempotent."""
    return _set_public_prefix(tenant, content_hash.lower(), False, request, response, services)


# -- usage and records of processing ----------------------------------------------------------------------------
@router.get("/tenants/{tenant_id}/usage", name="tenants.usage", response_model=UsageSummary,
            response_model_by_alias=True)
def usage(tenant: ManagedTenant, services: ServicesDep,
          start: Annotated[IsoDateTime | None, Query(alias="from")] = None,
          end: Annotated[IsoDateTime | None, Query(alias="to")] = None) -> UsageSummary:
    """Requests, tokens and refusals (by status and error type) in [from, to) (ISO 8601)."""
    with services.db.session() as session:
        return service.usage_summary(tenant.id, session=session, start=start and as_utc(start),
                                     end=end and as_utc(end))


@router.get("/tenants/{tenant_id}/processing-record", name="tenants.processing_record")
def record_of_processing(tenant: ManagedTenant, services: ServicesDep) -> dict[str, Any]:
    with services.db.session() as session:
        return processing_record(tenant, session=session)


# -- audit retention -------------------------------------------------------------------------------------------
# Named like audit.checkpoint_now: the request's own record (admin.audit.purge_now) must not share its endpoint
# with the admin.audit.purge records retention appends to each purged chain, or a search for purges would also
# find dry runs and refused attempts.
@router.post("/audit/purge", name="audit.purge_now", response_model=AuditPurgeReport)
async def audit_purge(request: Request, services: ServicesDep, principal: PlatformAdmin,
                      body: Annotated[AuditPurge | None, Body()] = None) -> AuditPurgeReport:
    """Run one retention round now, as ``warden audit purge`` does: for every chain whose tenant is not on legal
    hold, drop the whole months before its retention cutoff and re-anchor the chain. Each chain purged gets its
    own ``admin.audit.purge`` record; ``dry_run`` only reports what would go."""
    body = body or AuditPurge()
    entry = action_log(request)
    entry.details["dry_run"] = body.dry_run
    # Blocking work (a transaction per chain, DROP TABLE on Postgres): a worker thread, never the event loop.
    report = await run_in_threadpool(
        service.purge_audit, services.db, default_days=services.settings.audit_default_retention_days,
        dry_run=body.dry_run, actor=f"admin:{principal.subject}")
    # Chain ids and counts only: each purged chain's own record already carries its full details.
    entry.details.update(rows=report.rows, chains={c.chain_id: c.rows for c in report.chains if not c.skipped},
                         skipped={c.chain_id: c.skipped for c in report.chains if c.skipped}, failed=report.failed)
    return report
