"""Every admin request becomes an audit record, whatever its outcome (401s and 404s included).

``AuditedAdminRoute`` wraps each admin route: it opens an ``AdminActionLog`` on the request before
dependencies run, the dependencies and the handler fill in who acted, on which tenant and what changed, and the
record is written (durably: the audit writer's spool is fsync'd) before the response leaves. The record goes to
the target tenant's chain once that tenant is known to exist and to be in the caller's scope, else to the
caller's own tenant (tenant-admin), else to the anonymous chain, so a probe of another tenant is logged where
the prober's own auditors will see it, never in the probed tenant's chain.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException

from gateway.adminauth.roles import AdminPrincipal
from gateway.audit.event import AuditEvent
from gateway.core.clock import utcnow
from gateway.core.errors import APIError, validation_error
from gateway.services import GatewayServices

log = logging.getLogger(__name__)


@dataclass(slots=True)
class AdminActionLog:
    action: str
    principal: AdminPrincipal | None = None
    chain_tenant_id: str | None = None  # only ever a tenant verified to exist
    target: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    refusal: str | None = None

    def event(self, request: Request, status: int, error_type: str | None) -> AuditEvent:
        decision: dict[str, Any] = {"stage": "admin", "action": self.action,
                                    "decision": "allowed" if status < 400 else "refused",
                                    "actor": self.principal.describe() if self.principal else None,
                                    "method": request.method, "path": request.url.path}
        if self.target:
            decision["target"] = self.target
        if self.details:
            decision["details"] = self.details
        if self.refusal:
            decision["reason"] = self.refusal
        timing = request.state.timing
        return AuditEvent(created_at=request.state.admin_started_at, request_id=request.state.request_id,
                          endpoint=f"admin.{self.action}"[:64], http_status=status,
                          latency_ms=round(timing.elapsed_ms(), 3), overhead_ms=round(timing.overhead_ms(), 3),
                          tenant_id=self.chain_tenant_id, error_type=error_type, decisions=[decision])


def action_log(request: Request) -> AdminActionLog:
    return request.state.admin_log


class AuditedAdminRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        action = self.name

        async def audited(request: Request) -> Response:
            request.state.admin_started_at = utcnow()
            entry = request.state.admin_log = AdminActionLog(action=action)
            services: GatewayServices = request.app.state.services
            try:
                response = await handler(request)
            except APIError as exc:
                entry.refusal = entry.refusal or exc.message
                await services.audit.record(entry.event(request, exc.status, exc.type))
                raise
            except RequestValidationError as exc:
                # The described failure names the field and types only; pydantic's raw error carries the input.
                entry.refusal = validation_error(exc.errors(), exc.body, located=True).message
                await services.audit.record(entry.event(request, 400, "invalid_request_error"))
                raise
            except HTTPException as exc:
                await services.audit.record(entry.event(request, exc.status_code, "invalid_request_error"))
                raise
            except Exception:
                await services.audit.record(entry.event(request, 500, "server_error"))
                raise
            await services.audit.record(entry.event(request, response.status_code, None))
            return response

        return audited
