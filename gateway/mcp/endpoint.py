"""``/mcp``: Warden's own MCP server over Streamable HTTP (the SDK's session manager), authenticated by the tenant's
Warden key exactly like ``/v1``.

Every request carries ``Authorization: Bearer wdn_...``. The key's principal (key id, tenant) becomes the request's
authenticated user, so the SDK binds each session to the key that opened it: a session id presented with another
key answers 404, as if it did not exist. Both protocol eras are served: the stateless 2026 revision (one POST per
request) and the earlier initialize handshake with ``Mcp-Session-Id``.

The tools offered are those of the tenant's registered upstream servers that its tool policy allows, named
``<server>__<tool>``; calls go through ``gateway.mcp.tool_calls``. Resources, resource templates and prompts of the
same servers are passed through by ``gateway.mcp.passthrough``. Change notifications (tools, prompts and resources
``list_changed``, ``resources/updated``) of those servers are relayed to 2026-revision clients over
``subscriptions/listen`` by ``gateway.mcp.change_relay``, and advertised only to them; handshake-era sessions get
none, so their ``resources/subscribe`` is refused with a message that says so (``SUBSCRIPTIONS_UNSUPPORTED``).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from gateway.core.errors import StoreUnavailable
from gateway.core.ttl_cache import TTLCache
from gateway.keys.auth import AuthenticationFailed, Principal
from gateway.lifecycle import Lifecycle, audit_refusal, send_shutdown_error
from gateway.mcp.change_relay import ChangeRelay
from gateway.mcp.passthrough import Passthrough
from gateway.mcp.registry import UpstreamDirectory
from gateway.mcp.tool_calls import ToolGateway
from gateway.mcp.upstream import UpstreamClients

log = logging.getLogger(__name__)

PATH = "/mcp"
SERVER_NAME = "warden"
# The principal of the request being served, for handlers that run in the request's own task (the 2026 revision's
# single-exchange requests); handshake-era sessions read it from the request the SDK hands the handler.
_principal: contextvars.ContextVar[Principal | None] = contextvars.ContextVar("warden_mcp_principal", default=None)


SUBSCRIPTIONS_UNSUPPORTED = ("Warden relays change notifications only over subscriptions/listen (protocol revision "
                             "2026-07-28): read the resource again (resources/read), or list again, to see changes")


class _WardenServer(Server[Any]):
    """The SDK's server, with the handshake era's ``resources/subscribe|unsubscribe`` answered by a refusal that says
    why instead of a bare "Method not found". At the 2026 revision the SDK advertises ``listChanged`` and
    ``subscribe`` because ``subscriptions/listen`` is served (relayed); to handshake-era sessions, which get no
    notifications, they are never advertised."""

    def get_capabilities(self, *args: Any, **kwargs: Any) -> types.ServerCapabilities:
        capabilities = super().get_capabilities(*args, **kwargs)
        if kwargs.get("protocol_version") in MODERN_PROTOCOL_VERSIONS:
            return capabilities
        resources = capabilities.resources and capabilities.resources.model_copy(
            update={"subscribe": False, "list_changed": False})
        tools = capabilities.tools and capabilities.tools.model_copy(update={"list_changed": False})
        prompts = capabilities.prompts and capabilities.prompts.model_copy(update={"list_changed": False})
        return capabilities.model_copy(update={"resources": resources, "tools": tools, "prompts": prompts})


class ListedSchemas:
    """The input schemas of the tools last listed to each tenant, for the SDK's check of a 2026-revision call's
    ``Mcp-Param-*`` headers against the called tool's schema.

    Without it the SDK lists every tool again for each call (through Warden: every upstream's listing and an audit
    record, per call). Warden routes and governs on the body's arguments, never on those headers, so a tool this
    worker has not listed to the tenant lately skips the check (as the SDK itself does when a listing fails); a stale
    schema makes the client list again and resend, the revision's own recovery."""

    def __init__(self, *, ttl_s: float = 300.0, max_tenants: int = 4096) -> None:
        self._cache: TTLCache[str, dict[str, Any]] = TTLCache(ttl_s, max_tenants)

    def record(self, tenant_id: str, tools: list[types.Tool]) -> None:
        self._cache.put(tenant_id, {tool.name: tool.input_schema for tool in tools})

    def lookup(self, name: str) -> Any | None:
        principal = _principal.get()  # set by the endpoint for the request being checked
        if principal is None:
            return None
        hit, schemas = self._cache.get(principal.tenant_id)
        return schemas.get(name) if hit and schemas is not None else None


async def _subscriptions_unsupported(_ctx: ServerRequestContext[Any], _params: Any) -> Any:
    raise MCPError(types.METHOD_NOT_FOUND, SUBSCRIPTIONS_UNSUPPORTED)


def _error(status: int, message: str, *, type_: str, code: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": type_, "param": None, "code": code}},
                        status_code=status, headers=headers)


def principal_of(ctx: ServerRequestContext[Any]) -> Principal:
    request = ctx.request
    user = request.scope.get("user") if request is not None and hasattr(request, "scope") else None
    if isinstance(user, AuthenticatedUser) and user.access_token.subject is not None:
        return Principal(tenant_id=user.access_token.subject, key_id=user.access_token.client_id)
    principal = _principal.get()
    if principal is None:  # never reached through the endpoint, which authenticates every request first
        raise MCPError(types.INVALID_REQUEST, "request is not authenticated")
    return principal


def request_id_of(ctx: ServerRequestContext[Any]) -> str | None:
    request = ctx.request
    state = request.scope.get("state") if request is not None and hasattr(request, "scope") else None
    return state.get("request_id") if isinstance(state, dict) else None


class McpEndpoint:
    """The ASGI app at ``/mcp`` and the session manager behind it (started and stopped by the app's lifespan)."""

    def __init__(self) -> None:
        self._manager: StreamableHTTPSessionManager | None = None
        self._gateway: ToolGateway | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._clients: UpstreamClients | None = None
        self._lifecycle: Lifecycle | None = None
        self._relay: ChangeRelay | None = None

    def route(self) -> Route:
        return Route(PATH, endpoint=self, methods=["GET", "POST", "DELETE"], include_in_schema=False)

    @property
    def gateway(self) -> ToolGateway | None:
        return self._gateway

    async def start(self, services: Any, lifecycle: Lifecycle | None = None) -> None:
        settings = services.settings
        self._lifecycle = lifecycle
        directory = UpstreamDirectory(services.db, services.secrets.server_secret,
                                      ttl_s=settings.policy_cache_ttl_s, max_entries=settings.key_cache_max_entries,
                                      stale_window_s=settings.store_stale_window_s,
                                      retry_after_s=settings.store_retry_after_s)
        self._clients = clients = UpstreamClients(max_message_bytes=settings.max_body_bytes)
        self._gateway = gateway = ToolGateway(services, directory, clients, lifecycle)

        schemas = ListedSchemas()

        async def list_tools(ctx: ServerRequestContext[Any],
                             _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
            principal = principal_of(ctx)
            listed = await gateway.list_tools(principal, request_id=request_id_of(ctx))
            schemas.record(principal.tenant_id, listed.tools)
            return listed

        async def call_tool(ctx: ServerRequestContext[Any],
                            params: types.CallToolRequestParams) -> types.CallToolResult:
            return await gateway.call_tool(principal_of(ctx), params, request_id=request_id_of(ctx))

        passthrough = Passthrough(gateway)

        async def list_resources(ctx: ServerRequestContext[Any],
                                 _params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
            return await passthrough.list_resources(principal_of(ctx), request_id_of(ctx))

        async def read_resource(ctx: ServerRequestContext[Any],
                                params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
            return await passthrough.read_resource(principal_of(ctx), params.uri, request_id_of(ctx))

        async def list_resource_templates(ctx: ServerRequestContext[Any], _params: types.PaginatedRequestParams | None
                                          ) -> types.ListResourceTemplatesResult:
            return await passthrough.list_resource_templates(principal_of(ctx), request_id_of(ctx))

        async def list_prompts(ctx: ServerRequestContext[Any],
                               _params: types.PaginatedRequestParams | None) -> types.ListPromptsResult:
            return await passthrough.list_prompts(principal_of(ctx), request_id_of(ctx))

        async def get_prompt(ctx: ServerRequestContext[Any],
                             params: types.GetPromptRequestParams) -> types.GetPromptResult:
            return await passthrough.get_prompt(principal_of(ctx), params.name, params.arguments,
                                               request_id_of(ctx))

        self._relay = relay = ChangeRelay(gateway)
        if lifecycle is not None:
            lifecycle.on_drain(relay.end_streams)

        async def subscriptions_listen(ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams
                                       ) -> types.SubscriptionsListenResult:
            return await relay.listen(ctx, params, principal_of(ctx))

        server: Server[Any] = _WardenServer(
            SERVER_NAME, version="0.1.0", on_list_tools=list_tools, on_call_tool=call_tool,
            on_list_resources=list_resources, on_read_resource=read_resource,
            on_list_resource_templates=list_resource_templates, on_list_prompts=list_prompts,
            on_get_prompt=get_prompt, get_tool_input_schema=schemas.lookup,
            on_subscribe_resource=_subscriptions_unsupported,
            on_unsubscribe_resource=_subscriptions_unsupported, on_subscriptions_listen=subscriptions_listen)
        self._manager = manager = StreamableHTTPSessionManager(
            app=server, max_request_body_size=settings.max_body_bytes,
            session_idle_timeout=settings.mcp_session_idle_s)
        started = asyncio.Event()
        self._stop = stop = asyncio.Event()

        async def run() -> None:
            async with manager.run():
                started.set()
                await stop.wait()

        self._task = asyncio.create_task(run())
        waiter = asyncio.create_task(started.wait())
        await asyncio.wait({self._task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if not started.is_set():
            waiter.cancel()
            await self._task  # raises what stopped the session manager

    @property
    def relay(self) -> ChangeRelay | None:
        return self._relay

    async def close(self) -> None:
        if self._relay is not None:
            await self._relay.close()
        if self._stop is not None and self._task is not None:
            self._stop.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._task, timeout=5.0)
        self._manager = None
        if self._clients is not None:
            await self._clients.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager
        if manager is None:
            await _error(503, "the MCP endpoint is not running", type_="service_unavailable",
                         code="mcp_unavailable")(scope, receive, send)
            return
        if self._lifecycle is not None and self._lifecycle.draining:
            # Like /v1 while draining: refused, audited, and the client told to retry elsewhere.
            await audit_refusal(scope)
            await send_shutdown_error(send)
            return
        services = scope["app"].state.services
        headers = dict((name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"])
        try:
            principal = await services.authenticator.authenticate(headers.get("authorization"))
        except AuthenticationFailed as exc:
            await _error(401, str(exc.reason), type_="authentication_error", code="invalid_api_key",
                         headers={"WWW-Authenticate": "Bearer"})(scope, receive, send)
            return
        except StoreUnavailable as exc:
            await exc.response()(scope, receive, send)
            return
        # The SDK binds a session to (client_id, issuer, subject): the key id and its tenant. The token field holds
        # the key id too: the secret never travels further than the authenticator.
        user = AuthenticatedUser(AccessToken(token=principal.key_id, client_id=principal.key_id, scopes=[],
                                             subject=principal.tenant_id))
        scope = {**scope, "user": user}
        token = _principal.set(principal)
        try:
            await manager.handle_request(scope, receive, send)
        except anyio.get_cancelled_exc_class():
            raise
        finally:
            _principal.reset(token)
