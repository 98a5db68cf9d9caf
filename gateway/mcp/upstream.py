"""Calls to one upstream MCP server over Streamable HTTP with the SDK's client, bounded in time and turned into
``UpstreamError`` (a code and a message safe to return and to log) on every failure.

Operations go through an SDK client session kept open per server record (``gateway.mcp.sessions``: the tenant, name,
version, URL and credentials), over a connection pool kept per record too, so a call pays neither a protocol
negotiation nor a new connection. A session is negotiated when opened (``server/discover``, falling back to the
initialize handshake); a server that speaks the stateless 2026 revision is then pinned to it, so a reopened session
skips the probe. Records of different tenants never share a session.
"""

from __future__ import annotations

import hashlib
import logging
import ssl
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar, cast

import anyio
import httpcore2
import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.session import MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.core.ttl_cache import TTLCache
from gateway.mcp.bounded_transport import BoundedTransport, ResponseTooLarge
from gateway.mcp.registry import UpstreamServer
from gateway.mcp.sessions import SessionKeeper, first_leaf
from gateway.mcp.targets import PinnedNetworkBackend, Resolver, TargetRefused, system_resolver

log = logging.getLogger(__name__)

# Pages of a list (tools, resources, prompts) read from one upstream: a paginator that never ends cannot hold a
# listing forever.
MAX_LIST_PAGES = 20
# Connection pools kept (one per server record in use); the least recently used beyond this is closed.
MAX_POOLS = 256
# httpx2 carries only these clients' requests. Its INFO line per request repeats what each call's audit record holds,
# at the price of a formatted, redacted log line per tool call; its warnings still show, and a level set explicitly
# (to debug a deployment) is kept.
_HTTP_LOGGER = logging.getLogger("httpx2")
# Connections per pool: httpx2's own defaults.
POOL_LIMITS = httpx2.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)

_T = TypeVar("_T")


async def _all_pages(fetch: Callable[[str | None], Awaitable[Any]], items: Callable[[Any], list[_T]]) -> list[_T]:
    """Every item of a paginated MCP list, following ``next_cursor`` for at most ``MAX_LIST_PAGES`` pages."""
    collected: list[_T] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        page = await fetch(cursor)
        collected.extend(items(page))
        cursor = page.next_cursor
        if not cursor:
            break
    return collected


class UpstreamError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class UpstreamClients:
    """Bounded operations on upstream servers through kept client sessions."""

    def __init__(self, *, max_message_bytes: int, mode_cache_entries: int = 10_000,
                 resolver: Resolver = system_resolver) -> None:
        self._max_message_bytes = max_message_bytes
        self._resolver = resolver
        if _HTTP_LOGGER.level == logging.NOTSET:
            _HTTP_LOGGER.setLevel(logging.WARNING)
        # Built once: loading a trust store costs tens of milliseconds, which a client per call must not pay. The
        # system store (and SSL_CERT_FILE), so an enterprise's own CA verifies its internal servers.
        self._tls = ssl.create_default_context()
        self._pools: OrderedDict[tuple[str, int, str, bool], httpx2.AsyncClient] = OrderedDict()
        self._retired: list[httpx2.AsyncClient] = []
        # (server url, record version) -> the modern protocol version it answered with
        self._modes: TTLCache[tuple[str, int], str] = TTLCache(3600.0, mode_cache_entries)
        self._keeper = SessionKeeper(self._open)

    @asynccontextmanager
    async def _open(self, server: UpstreamServer) -> AsyncIterator[Client]:
        """A new SDK client session (the kept session's owner task holds it open)."""
        hit, pinned = self._modes.get((server.url, server.version))
        mode = pinned if hit and pinned else "auto"
        transport = streamable_http_client(server.url, http_client=self._pool(server),
                                           max_sse_event_size=self._max_message_bytes)
        async with Client(transport, mode=mode, read_timeout_seconds=server.timeout_s, cache=None) as client:
            if mode == "auto" and client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                self._modes.put((server.url, server.version), client.protocol_version)
            yield client

    @asynccontextmanager
    async def listener(self, server: UpstreamServer, *, idle_s: float,
                       message_handler: MessageHandlerFnT | None = None) -> AsyncIterator[Client]:
        """A client session of its own for a long-lived change stream (``subscriptions/listen``, or a handshake-era
        session's GET stream read through ``message_handler``): the same SSRF-pinned, size-bounded connections as
        calls, on a pool of its own whose read timeout is ``idle_s`` rather than the server's call timeout, so a
        quiet stream is not cut after every ``timeout_s``."""
        if server.unusable is not None:
            raise TargetRefused(server.unusable)
        transport = BoundedTransport(self._pinned_transport(server.allow_private_network),
                                     max_response_bytes=self._max_message_bytes)
        timeout = httpx2.Timeout(server.timeout_s, read=idle_s)
        async with (httpx2.AsyncClient(headers=server.headers, timeout=timeout, follow_redirects=False,
                                       trust_env=False, transport=transport) as pool,
                    Client(streamable_http_client(server.url, http_client=pool,
                                                  max_sse_event_size=self._max_message_bytes),
                           read_timeout_seconds=server.timeout_s, cache=None,
                           message_handler=message_handler) as client):
            yield client

    async def _run(self, server: UpstreamServer, operation: Callable[[Client], Awaitable[_T]], *,
                   idempotent: bool) -> _T:
        """The operation on the server's kept session. A kept session the upstream no longer knows is replaced and
        the operation sent once more: for any operation when the upstream said so before running it, and for a
        read-only one when the connection closed under it."""
        if server.unusable is not None:
            raise TargetRefused(server.unusable)
        attempts = 2
        for attempt in range(attempts):
            reused = False
            try:
                async with self._keeper.lease(server, keep_on=_session_survives) as lease:
                    reused = lease.reused
                    return await operation(lease.client)
            except MCPError as exc:
                if attempt + 1 < attempts and reused and _retry_on_fresh_session(exc, idempotent=idempotent):
                    continue
                raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _pool(self, server: UpstreamServer) -> httpx2.AsyncClient:
        credentials = hashlib.sha256(repr(sorted(server.headers.items())).encode()).hexdigest()
        key = (server.url, server.version, credentials, server.allow_private_network)
        pool = self._pools.get(key)
        if pool is not None:
            self._pools.move_to_end(key)
            return pool
        transport = BoundedTransport(self._pinned_transport(server.allow_private_network),
                                     max_response_bytes=self._max_message_bytes)
        pool = httpx2.AsyncClient(headers=server.headers, timeout=httpx2.Timeout(server.timeout_s),
                                  follow_redirects=False, trust_env=False, transport=transport)
        self._pools[key] = pool
        while len(self._pools) > MAX_POOLS:
            _, oldest = self._pools.popitem(last=False)
            self._retired.append(oldest)  # closed at shutdown: a call may still be using it
        return pool

    def _pinned_transport(self, allow_private_network: bool) -> httpx2.AsyncHTTPTransport:
        """httpx2's transport over a connection pool whose connections go only to checked addresses
        (``PinnedNetworkBackend``). httpx2 takes no network backend, so the pool it builds is replaced by one with
        the same settings and that backend."""
        transport = httpx2.AsyncHTTPTransport(verify=self._tls, trust_env=False)
        if not isinstance(getattr(transport, "_pool", None), httpcore2.AsyncConnectionPool):
            raise RuntimeError("httpx2's transport no longer holds an httpcore2 pool: the SSRF pinning needs updating")
        limits = POOL_LIMITS
        transport._pool = httpcore2.AsyncConnectionPool(
            ssl_context=self._tls, max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections, keepalive_expiry=limits.keepalive_expiry,
            network_backend=PinnedNetworkBackend(allow_private_network=allow_private_network,
                                                 resolver=self._resolver))
        return transport

    @property
    def keeper(self) -> SessionKeeper:
        return self._keeper

    async def aclose(self) -> None:
        await self._keeper.aclose()
        pools = [*self._pools.values(), *self._retired]
        self._pools.clear()
        self._retired.clear()
        for pool in pools:
            await pool.aclose()

    async def list_tools(self, server: UpstreamServer) -> list[types.Tool]:
        async def operation(client: Client) -> list[types.Tool]:
            return await _all_pages(lambda cursor: client.list_tools(cursor=cursor), lambda page: page.tools)

        return await self._bounded(server, "tools/list", lambda: self._run(server, operation, idempotent=True))

    async def call_tool(self, server: UpstreamServer, tool: str, arguments: dict[str, Any] | None,
                        meta: dict[str, Any] | None) -> types.CallToolResult:
        async def operation(client: Client) -> types.CallToolResult:
            return await client.call_tool(tool, arguments, meta=cast(types.RequestParamsMeta, meta) if meta else None)

        return await self._bounded(server, "tools/call", lambda: self._run(server, operation, idempotent=False))

    async def list_resources(self, server: UpstreamServer) -> list[types.Resource]:
        async def operation(client: Client) -> list[types.Resource]:
            return await _all_pages(lambda cursor: client.list_resources(cursor=cursor), lambda page: page.resources)

        return await self._bounded(server, "resources/list", lambda: self._run(server, operation, idempotent=True))

    async def list_resource_templates(self, server: UpstreamServer) -> list[types.ResourceTemplate]:
        async def operation(client: Client) -> list[types.ResourceTemplate]:
            return await _all_pages(lambda cursor: client.list_resource_templates(cursor=cursor),
                                    lambda page: page.resource_templates)

        return await self._bounded(server, "resources/templates/list",
                                   lambda: self._run(server, operation, idempotent=True))

    async def read_resource(self, server: UpstreamServer, uri: str) -> types.ReadResourceResult:
        async def operation(client: Client) -> types.ReadResourceResult:
            return await client.read_resource(uri)

        return await self._bounded(server, "resources/read", lambda: self._run(server, operation, idempotent=True))

    async def list_prompts(self, server: UpstreamServer) -> list[types.Prompt]:
        async def operation(client: Client) -> list[types.Prompt]:
            return await _all_pages(lambda cursor: client.list_prompts(cursor=cursor), lambda page: page.prompts)

        return await self._bounded(server, "prompts/list", lambda: self._run(server, operation, idempotent=True))

    async def get_prompt(self, server: UpstreamServer, name: str,
                         arguments: dict[str, str] | None) -> types.GetPromptResult:
        async def operation(client: Client) -> types.GetPromptResult:
            return await client.get_prompt(name, arguments)

        return await self._bounded(server, "prompts/get", lambda: self._run(server, operation, idempotent=True))

    async def _bounded(self, server: UpstreamServer, method: str, operation: Any) -> Any:
        # One deadline over resolution, connection, negotiation and the call itself: a slow upstream costs the
        # caller at most its timeout (plus the session's close, which is bounded by the HTTP timeout too).
        try:
            with anyio.fail_after(server.timeout_s):
                try:
                    return await operation()
                except BaseExceptionGroup as group:  # the SDK's task groups wrap what failed inside them
                    raise first_leaf(group) from None
        except TargetRefused as exc:
            raise UpstreamError("upstream_refused", str(exc)) from None
        except TimeoutError:
            raise UpstreamError("upstream_timeout",
                                f"upstream server {server.name!r} did not answer {method} within "
                                f"{server.timeout_s:g} s") from None
        except MCPError as exc:
            if exc.code == types.PARSE_ERROR:  # raised by the client's transport: what came back is not JSON-RPC
                raise UpstreamError("upstream_unavailable",
                                    f"upstream server {server.name!r} sent a malformed response to {method}") from None
            # The upstream answered with an error (its JSON-RPC error, or an HTTP error status the SDK reports as
            # one): the code and message, bounded.
            raise UpstreamError("upstream_error",
                                f"upstream server {server.name!r} answered {method} with error {exc.code}: "
                                f"{exc.error.message[:500]}") from None
        except ResponseTooLarge:
            raise UpstreamError("upstream_unavailable", f"upstream server {server.name!r} sent a response to {method} "
                                f"larger than {self._max_message_bytes} bytes") from None
        except Exception as exc:  # connection refused, malformed JSON-RPC, oversize message, protocol violations
            log.warning("upstream MCP server %s (version %d) failed %s: %s", server.name, server.version, method,
                        type(exc).__name__)
            raise UpstreamError("upstream_unavailable",
                                f"upstream server {server.name!r} failed {method} ({type(exc).__name__})") from None


def _session_survives(exc: BaseException) -> bool:
    """Whether the session stays usable after this failure of one operation on it: an error the upstream answered
    with, or the caller giving up (a timeout), leaves it sound; a lost connection or a forgotten session does not."""
    if isinstance(exc, MCPError):
        return exc.code not in (types.CONNECTION_CLOSED, types.PARSE_ERROR) and not _session_forgotten(exc)
    return isinstance(exc, anyio.get_cancelled_exc_class())


def _session_forgotten(exc: MCPError) -> bool:
    # The SDK's spelling of a 404 to a request carrying a session id: the upstream ended or forgot that session.
    return exc.code == types.INVALID_REQUEST and exc.error.message == "Session terminated"


def _retry_on_fresh_session(exc: MCPError, *, idempotent: bool) -> bool:
    """A forgotten session never ran the request; a closed connection may have, so only a read is sent again."""
    return _session_forgotten(exc) or (idempotent and exc.code == types.CONNECTION_CLOSED)
