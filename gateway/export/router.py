"""/admin/v1/audit: streamed exports and their signed manifests, the public key, chain-head checkpoints.

How to get a manifest: ``GET /admin/v1/audit/export`` answers with ``x-warden-export-id`` and a
``link: <.../audit/exports/{id}/manifest>; rel="manifest"`` header. The manifest is signed and stored when the
last byte of the body has been produced; fetch it from that URL after the download completes (409 while the
export is still streaming; 409 for good if the download was cut, since no manifest vouches for a partial file).

Roles: platform-admin and auditor may export any tenant or, without ``tenant``, every chain; a tenant-admin
only its own tenant (the default when it omits ``tenant``; any other tenant answers 404).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from gateway.admin.action_log import AuditedAdminRoute, action_log
from gateway.admin.dependencies import AdminServicesDep, require
from gateway.admin.errors import conflict, not_found
from gateway.admin.schemas import IsoDateTime
from gateway.adminauth.roles import AdminPrincipal, Role
from gateway.audit import quarantine as audit_quarantine
from gateway.core.clock import as_utc
from gateway.core.errors import invalid_request
from gateway.export import checkpoints
from gateway.export.models import AuditExport
from gateway.export.signing import public_key_pem
from gateway.export.stream import ExportFormat, ExportRequest, begin_export, stream_export
from gateway.openai.dependencies import ServicesDep
from gateway.tenants.models import Tenant

router = APIRouter(prefix="/admin/v1/audit", tags=["audit"], route_class=AuditedAdminRoute)

AuditReader = Annotated[AdminPrincipal,
                        Depends(require(Role.PLATFORM_ADMIN, Role.AUDITOR, Role.TENANT_ADMIN))]
PlatformAdmin = Annotated[AdminPrincipal, Depends(require(Role.PLATFORM_ADMIN))]


def _all_tenants(principal: AdminPrincipal) -> bool:
    return principal.has(Role.PLATFORM_ADMIN) or principal.has(Role.AUDITOR)


def _scoped_tenant(principal: AdminPrincipal, requested: str | None, request: Request,
                   services: ServicesDep) -> str | None:
    """The tenant the caller may read (None: every chain). Another tenant, or none that exists: 404."""
    entry = action_log(request)
    tenant_id = requested if _all_tenants(principal) else (requested or principal.tenant_id)
    if tenant_id is None:
        return None
    entry.target["tenant"] = tenant_id
    if not _all_tenants(principal) and tenant_id != principal.tenant_id:
        raise not_found("Tenant")
    with services.db.session() as session:
        if session.get(Tenant, tenant_id) is None:
            raise not_found("Tenant")
    entry.chain_tenant_id = tenant_id
    return tenant_id


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


@router.get("/export", name="audit.export", response_class=StreamingResponse,
            responses={200: {"content": {"application/x-ndjson": {}, "text/csv": {}},
                             "description": "The records, streamed; see the x-warden-export-id header"}})
def export(request: Request, services: ServicesDep, admin: AdminServicesDep, principal: AuditReader,
           tenant: Annotated[str | None, Query(max_length=64)] = None,
           start: Annotated[IsoDateTime | None, Query(alias="from")] = None,
           end: Annotated[IsoDateTime | None, Query(alias="to")] = None,
           format: ExportFormat = ExportFormat.JSONL) -> StreamingResponse:
    """Stream the audit records of ``tenant`` (or of every chain) created in [from, to), ISO 8601."""
    tenant_id = _scoped_tenant(principal, tenant, request, services)
    start, end = _utc(start), _utc(end)
    if start is not None and end is not None and end <= start:
        raise invalid_request("'to' must be after 'from'", param="to")
    export_request = ExportRequest(export_id=str(uuid.uuid4()), format=format, tenant_id=tenant_id, start=start,
                                   end=end, requested_by=principal.subject[:200],
                                   requester_tenant_id=None if _all_tenants(principal) else principal.tenant_id)
    parts = begin_export(services.db, export_request)
    action_log(request).details.update(export_id=export_request.export_id, format=format.value,
                                       start=start.isoformat() if start else None,
                                       end=end.isoformat() if end else None)
    manifest_url = f"/admin/v1/audit/exports/{export_request.export_id}/manifest"
    filename = f"warden-audit-{tenant_id or 'all'}-{export_request.export_id}.{format.value}"
    return StreamingResponse(
        stream_export(services.db, admin.signer, export_request, parts), media_type=format.media_type,
        headers={"x-warden-export-id": export_request.export_id, "link": f'<{manifest_url}>; rel="manifest"',
                 "content-disposition": f'attachment; filename="{filename}"', "cache-control": "no-store"})


@router.get("/exports/{export_id}/manifest", name="audit.manifest")
def manifest(export_id: str, request: Request, services: ServicesDep, principal: AuditReader) -> dict[str, Any]:
    """The signed manifest of a completed export."""
    with services.db.session() as session:
        row = session.get(AuditExport, export_id)
    if row is None or (not _all_tenants(principal) and (row.tenant_id is None
                                                       or row.tenant_id != principal.tenant_id)):
        raise not_found("Export")
    action_log(request).target["export"] = export_id
    if row.status != "complete" or row.manifest is None:
        raise conflict(f"export {export_id} is {row.status}: its manifest exists once the whole file was sent")
    return row.manifest


PEM_MEDIA_TYPE = "application/x-pem-file"


def _prefers_pem(accept: str) -> bool:
    """Whether the Accept header ranks PEM above JSON (a missing or wildcard header keeps JSON)."""
    ranks: dict[str, float] = {}
    for part in accept.split(","):
        media, *params = (piece.strip() for piece in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        ranks[media.lower()] = max(quality, ranks.get(media.lower(), 0.0))
    pem = ranks.get(PEM_MEDIA_TYPE, 0.0)
    return pem > 0 and pem > ranks.get("application/json", 0.0)


@router.get("/public-key", name="audit.public_key", responses={200: {"content": {PEM_MEDIA_TYPE: {}}}})
def public_key(request: Request, admin: AdminServicesDep, _: AuditReader) -> Any:
    """The Ed25519 public key that verifies manifests and checkpoints (PEM, SubjectPublicKeyInfo).

    JSON by default; ``Accept: application/x-pem-file`` answers with the bare PEM, ready for
    ``warden audit verify-export --public-key`` (which also reads the JSON document).
    """
    pem = public_key_pem(admin.signer.public_key)
    if _prefers_pem(request.headers.get("accept", "")):
        return Response(pem, media_type=PEM_MEDIA_TYPE)
    return {"algorithm": "Ed25519", "key_id": admin.signer.key_id, "public_key_pem": pem}


@router.get("/checkpoints", name="audit.checkpoints")
def latest_checkpoints(request: Request, services: ServicesDep, principal: AuditReader,
                       tenant: Annotated[str | None, Query(max_length=64)] = None) -> list[dict[str, Any]]:
    """The latest signed checkpoint of each chain in scope."""
    tenant_id = _scoped_tenant(principal, tenant, request, services)
    with services.db.session() as session:
        rows = checkpoints.latest_checkpoints(session=session, chain_id=tenant_id)
        return [checkpoints.checkpoint_document(row) for row in rows]


@router.post("/checkpoints", name="audit.checkpoint_now")
async def checkpoint_now(request: Request, services: ServicesDep, admin: AdminServicesDep,
                         _: PlatformAdmin) -> dict[str, int]:
    """Sign every chain head that moved since its last checkpoint now (the app also does this periodically)."""
    written = await run_in_threadpool(checkpoints.checkpoint_once, services.db, admin.signer)
    action_log(request).details["written"] = written
    return {"written": written}


@router.get("/quarantine", name="audit.quarantine")
def quarantine(request: Request, services: ServicesDep, principal: AuditReader,
               tenant: Annotated[str | None, Query(max_length=64)] = None,
               limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
    """Audit records the store refused (kept byte for byte, outside the chains): how many, and the newest."""
    tenant_id = _scoped_tenant(principal, tenant, request, services)
    with services.db.session() as session:
        total, records = audit_quarantine.quarantined(session, chain_id=tenant_id, limit=limit)
    action_log(request).details["total"] = total
    return {"total": total, "records": records}
