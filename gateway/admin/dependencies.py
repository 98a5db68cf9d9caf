"""Admin authentication and authorization as reusable dependencies.

``AdminDep``: a valid admin token (401 otherwise). ``require(roles)``: one of the roles (403 otherwise).
``tenant_in_scope(roles)``: the ``tenant_id`` path parameter resolved to a tenant the caller may act on; a
tenant-admin asking for any other tenant gets the same 404 as for a tenant that does not exist.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Path, Request
from starlette.concurrency import run_in_threadpool

from gateway.admin.action_log import action_log
from gateway.admin.errors import forbidden, not_found, unauthorized
from gateway.admin.state import AdminServices
from gateway.adminauth.roles import AdminPrincipal, Role
from gateway.adminauth.validator import InvalidToken
from gateway.keys.auth import bearer_token
from gateway.openai.dependencies import ServicesDep
from gateway.tenants.models import Tenant


def get_admin_services(request: Request) -> AdminServices:
    return request.app.state.admin


AdminServicesDep = Annotated[AdminServices, Depends(get_admin_services)]


def _tenant_exists(services: ServicesDep, tenant_id: str) -> bool:
    with services.db.session() as session:
        return session.get(Tenant, tenant_id) is not None


async def admin_principal(request: Request, services: ServicesDep, admin: AdminServicesDep) -> AdminPrincipal:
    entry = action_log(request)
    token = bearer_token(request.headers.get("authorization"))
    if token is None:
        entry.refusal = "missing bearer token"
        raise unauthorized("Missing admin bearer token (Authorization: Bearer <JWT>)")
    try:
        principal = await run_in_threadpool(admin.validator.validate, token)
    except InvalidToken as exc:
        entry.refusal = str(exc)
        raise unauthorized(f"Invalid admin token: {exc}") from None
    entry.principal = principal
    tenant_id = principal.tenant_id
    if tenant_id is not None and await run_in_threadpool(_tenant_exists, services, tenant_id):
        entry.chain_tenant_id = tenant_id  # until the target tenant is known
    return principal


AdminDep = Annotated[AdminPrincipal, Depends(admin_principal)]


def require(*roles: Role) -> Callable[[AdminPrincipal], AdminPrincipal]:
    def dependency(principal: AdminDep) -> AdminPrincipal:
        if not principal.roles & set(roles):
            raise forbidden()
        return principal

    return dependency


def tenant_in_scope(*roles: Role) -> Callable[..., Awaitable[Tenant]]:
    async def dependency(request: Request, services: ServicesDep, principal: AdminDep,
                         tenant_id: Annotated[str, Path(max_length=64)]) -> Tenant:
        allowed = principal.roles & set(roles)
        if not allowed:
            raise forbidden()
        entry = action_log(request)
        entry.target["tenant"] = tenant_id
        if allowed == {Role.TENANT_ADMIN} and principal.tenant_id != tenant_id:
            raise not_found("Tenant")

        def load() -> Tenant | None:
            with services.db.session() as session:
                return session.get(Tenant, tenant_id)

        tenant = await run_in_threadpool(load)
        if tenant is None:
            raise not_found("Tenant")
        entry.chain_tenant_id = tenant.id
        return tenant

    return dependency


def is_platform(principal: AdminPrincipal) -> bool:
    return principal.has(Role.PLATFORM_ADMIN)
