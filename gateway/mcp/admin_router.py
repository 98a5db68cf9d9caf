"""The registries of upstream MCP servers: ``/admin/v1/tenants/{tenant_id}/mcp-servers`` (a tenant's own) and
``/admin/v1/mcp-servers`` (global: offered to every tenant whose tool policy allows it).

A tenant's registry: platform-admin on any tenant, tenant-admin on its own. The global registry: platform-admin
writes it; platform and tenant admins read it. A tenant's own server shadows a global one of the same name for that
tenant only (``gateway.mcp.registry``). Each registration, update and deletion is a new version
(``GET .../{name}/versions``). Credentials (``credentials.headers``) are write-only: stored sealed, answered only
as ``has_credentials``, never logged nor audited. Only a platform admin may set ``allow_private_network`` (loopback,
link-local and private targets); a tenant admin who changes a server's URL clears it.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field, field_validator

from gateway.admin.action_log import AuditedAdminRoute, action_log
from gateway.admin.dependencies import AdminDep, require, tenant_in_scope
from gateway.admin.errors import conflict, forbidden, not_found
from gateway.adminauth.roles import AdminPrincipal, Role
from gateway.core.errors import invalid_request
from gateway.mcp.models import McpServer
from gateway.mcp.registry import (
    RegistryConflict,
    current_server,
    delete_server,
    live_servers,
    register_server,
    server_history,
    update_server,
)
from gateway.mcp.targets import TargetRefused, check_url
from gateway.openai.dependencies import ServicesDep
from gateway.tenants.models import Tenant
from policies.tools import SERVER_NAME_PATTERN

router = APIRouter(prefix="/admin/v1", tags=["admin"], route_class=AuditedAdminRoute)
ManagedTenant = Annotated[Tenant, Depends(tenant_in_scope(Role.PLATFORM_ADMIN, Role.TENANT_ADMIN))]
PlatformAdmin = Annotated[AdminPrincipal, Depends(require(Role.PLATFORM_ADMIN))]
GlobalReader = Annotated[AdminPrincipal, Depends(require(Role.PLATFORM_ADMIN, Role.TENANT_ADMIN))]
ServerName = Annotated[str, Path(pattern=SERVER_NAME_PATTERN, max_length=32)]
MAX_HEADERS = 16
_HEADER_NAME = re.compile(r"[A-Za-z0-9_-]{1,100}")
_HEADER_VALUE = re.compile(r"[\x20-\x7e]{0,8192}")  # what every HTTP stack sends as is: no CR, LF, NUL, non-ASCII


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Credentials(_Body):
    """HTTP headers sent to the upstream with every request (``Authorization``, an API-key header)."""

    headers: dict[str, str] = Field(max_length=MAX_HEADERS)

    @field_validator("headers")
    @classmethod
    def _plain_headers(cls, value: dict[str, str]) -> dict[str, str]:
        for name, header_value in value.items():
            if not _HEADER_NAME.fullmatch(name):
                raise ValueError("header names are ASCII letters, digits, '-' and '_' (at most 100)")
            if not _HEADER_VALUE.fullmatch(header_value):
                raise ValueError("header values are printable ASCII (at most 8192 characters)")
        return value


class McpServerRegister(_Body):
    name: str = Field(pattern=SERVER_NAME_PATTERN, max_length=32)
    url: str = Field(max_length=2048)
    credentials: Credentials | None = None
    timeout_s: float = Field(default=10.0, gt=0.0, le=300.0)
    allow_private_network: bool = False


class McpServerUpdate(_Body):
    url: str | None = Field(default=None, max_length=2048)
    credentials: Credentials | None = None
    clear_credentials: bool = False
    timeout_s: float | None = Field(default=None, gt=0.0, le=300.0)
    allow_private_network: bool | None = None


class McpServerView(BaseModel):
    name: str
    # "tenant": the tenant's own record; "global": offered to every tenant.
    scope: str
    version: int
    url: str
    timeout_s: float
    allow_private_network: bool
    has_credentials: bool
    deleted: bool
    created_at: datetime
    created_by: str

    @classmethod
    def of(cls, row: McpServer) -> McpServerView:
        return cls(name=row.name, scope="global" if row.tenant_id is None else "tenant", version=row.version,
                   url=row.url, timeout_s=row.timeout_s,
                   allow_private_network=row.allow_private_network, has_credentials=row.credentials is not None,
                   deleted=row.deleted, created_at=row.created_at, created_by=row.created_by)


def _checked_url(url: str) -> str:
    try:
        return check_url(url)
    except TargetRefused as exc:
        raise invalid_request(str(exc), param="url") from None


def _forget_cached(request: Request) -> None:
    endpoint: Any = getattr(request.app.state, "mcp", None)
    if endpoint is not None and endpoint.gateway is not None:
        endpoint.gateway.directory.forget()  # this replica at once; the others within their cache TTL


def _target(request: Request, name: str, **details: Any) -> None:
    entry = action_log(request)
    entry.target["mcp_server"] = name
    entry.details.update(details)


# --- the operations, on a tenant's registry (owner: its id) or the global one (owner: None) -------------------------
def _list(owner: str | None, services: Any) -> list[McpServerView]:
    with services.db.session() as session:
        return [McpServerView.of(row) for row in live_servers(owner, session=session)]


def _register(owner: str | None, body: McpServerRegister, request: Request, services: Any,
              principal: AdminPrincipal) -> McpServerView:
    _target(request, body.name, allow_private_network=body.allow_private_network)
    if body.allow_private_network and not principal.has(Role.PLATFORM_ADMIN):
        raise forbidden("Only a platform admin may allow private-network targets")
    url = _checked_url(body.url)
    try:
        with services.db.transaction() as session:
            row = register_server(owner, body.name, url=url,
                                  headers=body.credentials.headers if body.credentials else None,
                                  timeout_s=body.timeout_s, allow_private_network=body.allow_private_network,
                                  created_by=principal.subject[:200], server_secret=services.secrets.server_secret,
                                  session=session)
            view = McpServerView.of(row)
    except RegistryConflict as exc:
        raise conflict(str(exc)) from None
    _forget_cached(request)
    return view


def _get(owner: str | None, name: str, services: Any) -> McpServerView:
    with services.db.session() as session:
        row = current_server(owner, name, session=session)
        if row is None or row.deleted:
            raise not_found("MCP server")
        return McpServerView.of(row)


def _versions(owner: str | None, name: str, services: Any) -> list[McpServerView]:
    with services.db.session() as session:
        rows = server_history(owner, name, session=session)
        if not rows:
            raise not_found("MCP server")
        return [McpServerView.of(row) for row in rows]


def _update(owner: str | None, name: str, body: McpServerUpdate, request: Request, services: Any,
            principal: AdminPrincipal) -> McpServerView:
    _target(request, name)
    platform = principal.has(Role.PLATFORM_ADMIN)
    if body.allow_private_network and not platform:
        raise forbidden("Only a platform admin may allow private-network targets")
    if body.credentials is not None and body.clear_credentials:
        raise invalid_request("credentials and clear_credentials are exclusive", param="clear_credentials")
    url = _checked_url(body.url) if body.url is not None else None
    allow_private = body.allow_private_network
    if url is not None and not platform:
        allow_private = False  # a platform admin allowed the old target, not whatever a tenant points it at now
    with services.db.transaction() as session:
        previous = current_server(owner, name, session=session)
        if previous is None or previous.deleted:
            raise not_found("MCP server")
        row = update_server(previous, url=url, headers=body.credentials.headers if body.credentials else None,
                            clear_credentials=body.clear_credentials, timeout_s=body.timeout_s,
                            allow_private_network=allow_private, created_by=principal.subject[:200],
                            server_secret=services.secrets.server_secret, session=session)
        view = McpServerView.of(row)
    _forget_cached(request)
    return view


def _delete(owner: str | None, name: str, request: Request, services: Any, principal: AdminPrincipal) -> Response:
    _target(request, name)
    with services.db.transaction() as session:
        previous = current_server(owner, name, session=session)
        if previous is None or previous.deleted:
            raise not_found("MCP server")
        delete_server(previous, created_by=principal.subject[:200], session=session)
    _forget_cached(request)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


# --- a tenant's registry -------------------------------------------------------------------------------------------
@router.get("/tenants/{tenant_id}/mcp-servers", name="mcp_servers.list", response_model=list[McpServerView])
def servers_list(tenant: ManagedTenant, services: ServicesDep) -> list[McpServerView]:
    return _list(tenant.id, services)


@router.post("/tenants/{tenant_id}/mcp-servers", name="mcp_servers.register", status_code=status.HTTP_201_CREATED,
             response_model=McpServerView)
def servers_register(body: McpServerRegister, tenant: ManagedTenant, request: Request, services: ServicesDep,
                     principal: AdminDep) -> McpServerView:
    return _register(tenant.id, body, request, services, principal)


@router.get("/tenants/{tenant_id}/mcp-servers/{name}", name="mcp_servers.get", response_model=McpServerView)
def servers_get(name: ServerName, tenant: ManagedTenant, services: ServicesDep) -> McpServerView:
    return _get(tenant.id, name, services)


@router.get("/tenants/{tenant_id}/mcp-servers/{name}/versions", name="mcp_servers.versions",
            response_model=list[McpServerView])
def servers_versions(name: ServerName, tenant: ManagedTenant, services: ServicesDep) -> list[McpServerView]:
    return _versions(tenant.id, name, services)


@router.patch("/tenants/{tenant_id}/mcp-servers/{name}", name="mcp_servers.update", response_model=McpServerView)
def servers_update(name: ServerName, body: McpServerUpdate, tenant: ManagedTenant, request: Request,
                   services: ServicesDep, principal: AdminDep) -> McpServerView:
    return _update(tenant.id, name, body, request, services, principal)


@router.delete("/tenants/{tenant_id}/mcp-servers/{name}", name="mcp_servers.delete",
               status_code=status.HTTP_204_NO_CONTENT)
def servers_delete(name: ServerName, tenant: ManagedTenant, request: Request, services: ServicesDep,
                   principal: AdminDep) -> Response:
    return _delete(tenant.id, name, request, services, principal)


# --- the global registry -------------------------------------------------------------------------------------------
@router.get("/mcp-servers", name="mcp_servers.global_list", response_model=list[McpServerView])
def global_list(_principal: GlobalReader, services: ServicesDep) -> list[McpServerView]:
    return _list(None, services)


@router.post("/mcp-servers", name="mcp_servers.global_register", status_code=status.HTTP_201_CREATED,
             response_model=McpServerView)
def global_register(body: McpServerRegister, request: Request, services: ServicesDep,
                    principal: PlatformAdmin) -> McpServerView:
    return _register(None, body, request, services, principal)


@router.get("/mcp-servers/{name}", name="mcp_servers.global_get", response_model=McpServerView)
def global_get(name: ServerName, _principal: GlobalReader, services: ServicesDep) -> McpServerView:
    return _get(None, name, services)


@router.get("/mcp-servers/{name}/versions", name="mcp_servers.global_versions", response_model=list[McpServerView])
def global_versions(name: ServerName, _principal: GlobalReader, services: ServicesDep) -> list[McpServerView]:
    return _versions(None, name, services)


@router.patch("/mcp-servers/{name}", name="mcp_servers.global_update", response_model=McpServerView)
def global_update(name: ServerName, body: McpServerUpdate, request: Request, services: ServicesDep,
                  principal: PlatformAdmin) -> McpServerView:
    return _update(None, name, body, request, services, principal)


@router.delete("/mcp-servers/{name}", name="mcp_servers.global_delete", status_code=status.HTTP_204_NO_CONTENT)
def global_delete(name: ServerName, request: Request, services: ServicesDep, principal: PlatformAdmin) -> Response:
    return _delete(None, name, request, services, principal)
