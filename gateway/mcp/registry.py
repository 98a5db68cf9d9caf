"""Registering, updating and deleting upstream MCP servers (each change a new version), a tenant's own or global ones
(``owner`` None), and reading the servers in force for a tenant, with their credentials opened, for the request path
(cached per tenant for a short TTL).

A tenant is offered its own servers and every global one; where both hold a name, the tenant's own record shadows
the global one for that tenant (its admin chose it deliberately), and the global record stays in force for the
others. Whether a tenant may use any of them is its tool policy's decision (``allowed_servers``)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from gateway.core.db import Database
from gateway.core.stale_cache import StaleTolerantCache
from gateway.mcp.credentials import CredentialsUnreadable, open_headers, seal_headers
from gateway.mcp.models import McpServer


class RegistryConflict(Exception):
    pass


@dataclass(frozen=True, slots=True)
class UpstreamServer:
    """One registered server as the request path uses it for one tenant (``tenant_id``: the tenant it is served to,
so a global server's sessions are still kept per tenant). ``headers`` hold credentials: never log this object."""

    tenant_id: str
    name: str
    version: int
    url: str
    timeout_s: float
    allow_private_network: bool
    headers: dict[str, str]
    # Set when the record cannot be used as stored (its credentials do not open with this server's secret).
    unusable: str | None = None
    # "tenant": the tenant's own record; "global": a platform admin's record for every tenant.
    scope: str = "tenant"

    def __repr__(self) -> str:  # the headers are credentials
        return f"UpstreamServer(name={self.name!r}, version={self.version}, url={self.url!r})"


def _owned_by(owner: str | None) -> ColumnElement[bool]:
    return McpServer.tenant_id.is_(None) if owner is None else McpServer.tenant_id == owner


def current_server(owner: str | None, name: str, *, session: Session) -> McpServer | None:
    return session.scalars(select(McpServer).where(_owned_by(owner), McpServer.name == name,
                                                   McpServer.is_current)).one_or_none()


def live_servers(owner: str | None, *, session: Session) -> list[McpServer]:
    return list(session.scalars(select(McpServer).where(_owned_by(owner), McpServer.is_current,
                                                        McpServer.deleted.is_(False)).order_by(McpServer.name)))


def servers_for_tenant(tenant_id: str, *, session: Session) -> list[McpServer]:
    """The records in force for a tenant: its own, and the global ones it does not shadow with a name of its own."""
    own = live_servers(tenant_id, session=session)
    names = {row.name for row in own}
    offered = own + [row for row in live_servers(None, session=session) if row.name not in names]
    return sorted(offered, key=lambda row: row.name)


def server_history(owner: str | None, name: str, *, session: Session) -> list[McpServer]:
    return list(session.scalars(select(McpServer).where(_owned_by(owner), McpServer.name == name)
                                .order_by(McpServer.version)))


def _next_version(previous: McpServer | None, *, session: Session) -> int:
    if previous is None:
        return 1
    session.execute(update(McpServer).where(McpServer.id == previous.id).values(is_current=False))
    session.flush()  # the partial unique index allows one current version: retire the old one first
    return previous.version + 1


def register_server(owner: str | None, name: str, *, url: str, headers: dict[str, str] | None, timeout_s: float,
                    allow_private_network: bool, created_by: str, server_secret: bytes,
                    session: Session) -> McpServer:
    """A new record (a tenant's own, or a global one when ``owner`` is None), or a new version of a deleted one."""
    previous = current_server(owner, name, session=session)
    if previous is not None and not previous.deleted:
        raise RegistryConflict(f"an MCP server named {name!r} is already registered")
    row = McpServer(tenant_id=owner, name=name, version=_next_version(previous, session=session), url=url,
                    credentials=seal_headers(server_secret, owner, name, headers) if headers else None,
                    timeout_s=timeout_s, allow_private_network=allow_private_network, deleted=False,
                    is_current=True, created_by=created_by)
    session.add(row)
    session.flush()
    return row


def update_server(previous: McpServer, *, url: str | None, headers: dict[str, str] | None, clear_credentials: bool,
                  timeout_s: float | None, allow_private_network: bool | None, created_by: str,
                  server_secret: bytes, session: Session) -> McpServer:
    """A new version of a live server with the given fields changed (None: unchanged)."""
    credentials = previous.credentials
    if clear_credentials:
        credentials = None
    elif headers is not None:
        credentials = seal_headers(server_secret, previous.tenant_id, previous.name, headers)
    row = McpServer(tenant_id=previous.tenant_id, name=previous.name,
                    version=_next_version(previous, session=session), url=url or previous.url,
                    credentials=credentials, timeout_s=timeout_s if timeout_s is not None else previous.timeout_s,
                    allow_private_network=(previous.allow_private_network if allow_private_network is None
                                           else allow_private_network),
                    deleted=False, is_current=True, created_by=created_by)
    session.add(row)
    session.flush()
    return row


def delete_server(previous: McpServer, *, created_by: str, session: Session) -> McpServer:
    """The deletion is a version too: the record of what the server was stays, its credentials do not."""
    row = McpServer(tenant_id=previous.tenant_id, name=previous.name,
                    version=_next_version(previous, session=session), url=previous.url, credentials=None,
                    timeout_s=previous.timeout_s, allow_private_network=False, deleted=True, is_current=True,
                    created_by=created_by)
    session.add(row)
    session.flush()
    return row


class UpstreamDirectory:
    """The servers in force per tenant (its own and the global ones), cached in-process for ``ttl_s`` (a change
    applies everywhere within it)."""

    def __init__(self, db: Database, server_secret: bytes, *, ttl_s: float, max_entries: int,
                 stale_window_s: float = 0.0, retry_after_s: int = 5) -> None:
        self._db = db
        self._secret = server_secret
        self._cache: StaleTolerantCache[str, tuple[UpstreamServer, ...]] = StaleTolerantCache(
            ttl_s, stale_window_s, max_entries)
        self._retry_after_s = retry_after_s

    def _load_sync(self, tenant_id: str) -> tuple[UpstreamServer, ...]:
        def upstream(row: McpServer) -> UpstreamServer:
            unusable: str | None = None
            try:
                headers = open_headers(self._secret, row.tenant_id, row.name, row.credentials)
            except CredentialsUnreadable as exc:
                headers, unusable = {}, str(exc)  # this server fails its calls; the tenant's others still serve
            return UpstreamServer(tenant_id=tenant_id, name=row.name, version=row.version, url=row.url,
                                  timeout_s=row.timeout_s,
                                  allow_private_network=row.allow_private_network, headers=headers,
                                  unusable=unusable, scope="global" if row.tenant_id is None else "tenant")

        def load() -> tuple[UpstreamServer, ...]:
            with self._db.session() as session:
                return tuple(upstream(row) for row in servers_for_tenant(tenant_id, session=session))

        servers = self._cache.read_through(tenant_id, load, stage="mcp_registry", retry_after_s=self._retry_after_s,
                                           usable=lambda value: value is not None)
        assert servers is not None
        return servers

    async def servers(self, tenant_id: str) -> tuple[UpstreamServer, ...]:
        # A fresh entry is read here: only a load (or a stale read during an outage) needs a worker thread, and a
        # thread hop per call costs more than the lookup on a busy machine.
        hit, servers = self._cache.fresh(tenant_id)
        if hit and servers is not None:
            return servers
        return await run_in_threadpool(self._load_sync, tenant_id)

    def forget(self) -> None:
        self._cache.clear()
