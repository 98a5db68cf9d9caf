"""The request being served, as context variables: set by the request middleware (request id) and by the /v1
path once the key is authenticated (tenant id); read by the JSON log formatter. Context variables follow the
request into every task it spawns (the SSE sender included), and never leak into another request's."""

from __future__ import annotations

from contextvars import ContextVar

request_id_var: ContextVar[str | None] = ContextVar("warden_request_id", default=None)
tenant_id_var: ContextVar[str | None] = ContextVar("warden_tenant_id", default=None)


def current_request_id() -> str | None:
    return request_id_var.get()


def current_tenant_id() -> str | None:
    return tenant_id_var.get()
