"""Change notifications of upstream MCP servers relayed to Warden's clients, governed and audited.

A client of ``/mcp`` at the 2026 revision opens ``subscriptions/listen``; Warden then watches each upstream server
its key's policy allows, on a client session of its own per server record (``UpstreamClients.listener``): a
``subscriptions/listen`` stream for a 2026-revision upstream, the session's standalone stream (read through the
SDK's ``message_handler``, with ``resources/subscribe`` per URI) for a handshake-era one. One watcher serves every
listening key of the record's tenant; records of different tenants never share one, so no tenant's stream can carry
another tenant's upstream's events.

Each upstream event is checked per listening key when it arrives, against the key's policy as it is then:

- the server must be allowed and its record still in force (not changed or deleted), else the event is withheld;
- ``tools/list_changed`` is relayed only when the tools the key may see changed (each tool's name and definition,
  listed from the upstream on the watcher's session): a tool the policy hides coming, going or changing says
  nothing to that key. If that listing fails the event is relayed (it only tells the client to list again, and
  the listing is governed);
- ``resources/updated`` is relayed, under Warden's ``warden://<server>/...`` URI, to the keys that subscribed it;
- prompts and resources ``list_changed`` are relayed as they are (no finer policy applies to them).

Changes on Warden's side that no upstream announces are found by reading each listening key's servers and policy
again every ``RECONCILE_S``: a server registered, changed or deleted, or newly allowed or refused, announces all three
``list_changed`` (and the servers watched follow); a policy that shows or hides tools of a server still allowed
announces ``tools/list_changed``.

Every relayed event is first one record in the tenant's audit chain (endpoint ``mcp.notifications``); an event whose
record cannot be made durable is withheld, like a result. It is then published on the key's own
``InMemorySubscriptionBus`` and delivered by the SDK's ``ListenHandler``, which filters by what each stream asked
for and stamps the subscription id.

Bounds: a listen stream buffers at most ``MAX_BUFFERED_EVENTS`` events; a client that stops reading is disconnected
at that cap (the revision's contract: no replay, the client re-listens and lists again) rather than growing memory.
Streams per key and in all are capped. An upstream stream that ends, drops, or sends nothing for ``LISTEN_IDLE_S``
is opened again with a back-off (``RECONNECT_MIN_S`` doubling to ``RECONNECT_MAX_S``); events sent while it was
down are lost, as the revision allows, and a reopened watcher takes a new baseline of the tools. The upstream's
stream is read through the same size bound as calls (``BoundedTransport``: the whole response), so one that has sent
that much is cut and opened again.

Each process relays for the streams it serves (with ``--workers N``, each worker watches for its own listeners).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp_types as types
from mcp.client.client import Client
from mcp.server.context import ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ServerEvent,
    ToolsListChanged,
    event_from_wire,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.audit.chain import canonical_json
from gateway.audit.event import AuditEvent
from gateway.audit.writer import AuditUnavailableError
from gateway.core.clock import utcnow
from gateway.core.errors import StoreUnavailable
from gateway.keys.auth import Principal
from gateway.mcp.passthrough import namespaced_uri, split_uri
from gateway.mcp.registry import UpstreamServer
from gateway.mcp.sessions import SessionKey, first_leaf, session_key
from gateway.mcp.tool_calls import ToolGateway
from gateway.mcp.upstream import MAX_LIST_PAGES
from policies import Policy
from policies.tools import tool_allowed

log = logging.getLogger(__name__)

ENDPOINT = "mcp.notifications"
# Events buffered per listen stream before a client that stopped reading is disconnected.
MAX_BUFFERED_EVENTS = 256
# Listen streams open at once per key, and in all.
MAX_STREAMS_PER_KEY = 16
MAX_STREAMS = 4096
# An upstream stream quiet this long is opened again (a peer that vanished without closing holds nothing for ever).
LISTEN_IDLE_S = 300.0
# How often each listening key's servers and policy are read again, to announce what changed on Warden's side.
RECONCILE_S = 5.0
RECONNECT_MIN_S = 0.5
RECONNECT_MAX_S = 30.0

_KINDS: dict[type, str] = {ToolsListChanged: "tools/list_changed", PromptsListChanged: "prompts/list_changed",
                           ResourcesListChanged: "resources/list_changed", ResourceUpdated: "resources/updated"}

_CHANGE_NOTIFICATIONS = (types.ToolListChangedNotification, types.PromptListChangedNotification,
                         types.ResourceListChangedNotification, types.ResourceUpdatedNotification)

ToolDigest = dict[str, str]  # tool name -> digest of its definition


def _tool_digest(tools: Iterable[types.Tool]) -> ToolDigest:
    return {tool.name: hashlib.sha256(canonical_json(tool.model_dump(mode="json", by_alias=True, exclude_none=True))
                                      ).hexdigest() for tool in tools}


def _offers_changes(capabilities: types.ServerCapabilities) -> bool:
    """Whether a 2026-revision server announces any change (the SDK advertises these exactly when it serves
    ``subscriptions/listen``)."""
    return any((capabilities.tools is not None and capabilities.tools.list_changed,
                capabilities.prompts is not None and capabilities.prompts.list_changed,
                capabilities.resources is not None and (capabilities.resources.list_changed
                                                        or capabilities.resources.subscribe)))


def visible_tools(policy: Policy, server: str, digest: ToolDigest) -> ToolDigest:
    """The part of an upstream's tools that ``policy`` lets its key see."""
    return {name: value for name, value in digest.items() if tool_allowed(policy.tools, server, name)}


@dataclass(eq=False)
class _Listen:
    """One client stream's interest in one watched server: what it asked for (the upstream's URIs of the
    resources it subscribed)."""

    principal: Principal
    notifications: types.SubscriptionFilter
    upstream_uris: frozenset[str]

    def wants(self, event: ServerEvent) -> bool:
        if isinstance(event, ResourceUpdated):
            return event.uri in self.upstream_uris
        return _asked(self.notifications, event)


def _asked(notifications: types.SubscriptionFilter, event: ServerEvent) -> bool:
    """Whether a stream's filter asks for a list change event."""
    asked = {ToolsListChanged: notifications.tools_list_changed,
             PromptsListChanged: notifications.prompts_list_changed,
             ResourcesListChanged: notifications.resources_list_changed}
    return asked.get(type(event)) is True


@dataclass(eq=False)
class _Stream:
    """One client's listen stream: what it asked for, and its interest in each watched server."""

    principal: Principal
    notifications: types.SubscriptionFilter
    wanted_uris: dict[str, frozenset[str]]  # server name -> the upstream URIs subscribed
    listens: dict[SessionKey, tuple[_Watcher, _Listen]] = field(default_factory=dict)

    def wants(self, event: ServerEvent) -> bool:
        return _asked(self.notifications, event)


@dataclass(eq=False)
class _Channel:
    """The bus and listen handler of one key (tenant + key id): its streams only ever see what is published here.
    ``servers`` and ``policy``: what the key's streams were last reconciled with."""

    principal: Principal
    servers: frozenset[SessionKey]
    policy: Policy
    bus: InMemorySubscriptionBus = field(default_factory=InMemorySubscriptionBus)
    handler: ListenHandler = field(init=False)
    members: set[_Stream] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.handler = ListenHandler(self.bus, max_subscriptions=MAX_STREAMS_PER_KEY,
                                     max_buffered_events=MAX_BUFFERED_EVENTS)


class _Watcher:
    """The change stream of one upstream server record, shared by the record's tenant's listening keys."""

    def __init__(self, relay: ChangeRelay, server: UpstreamServer) -> None:
        self.relay = relay
        self.server = server
        self.listens: set[_Listen] = set()
        self.tools: ToolDigest | None = None
        self.uris_changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self._listening_uris: frozenset[str] = frozenset()
        # Handshake era: events read off the session's standalone stream, waiting for the watcher's task.
        self._inbox: asyncio.Queue[ServerEvent] | None = None
        self._pending: set[ServerEvent] = set()

    def wanted_uris(self) -> frozenset[str]:
        return frozenset().union(*(listen.upstream_uris for listen in self.listens))

    def add(self, listen: _Listen) -> None:
        self.listens.add(listen)
        if not listen.upstream_uris <= self._listening_uris:
            self.uris_changed.set()  # the upstream stream is opened again with the wider filter

    async def run(self) -> None:
        delay = RECONNECT_MIN_S
        while True:
            started = time.monotonic()
            try:
                async with self.relay.clients.listener(self.server, idle_s=LISTEN_IDLE_S,
                                                       message_handler=self._on_message) as client:
                    await self._watch(client)
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # an upstream fault of any kind: watched again after the back-off
                log.info("change stream of upstream MCP server %s (version %d) ended: %s", self.server.name,
                         self.server.version, type(first_leaf(exc)).__name__)
            if self.uris_changed.is_set():
                continue
            # A stream that held a while starts the back-off over; one that ends at once (or never opens) doubles
            # it, so an upstream that accepts and drops streams is not asked again twice a second.
            held = time.monotonic() - started >= RECONNECT_MAX_S
            delay = RECONNECT_MIN_S if held else min(delay * 2, RECONNECT_MAX_S)
            await asyncio.sleep(delay)

    async def _watch(self, client: Client) -> None:
        self.uris_changed.clear()
        uris = self._listening_uris = self.wanted_uris()
        self.tools = await self.list_tools(client)
        async with anyio.create_task_group() as group:
            group.start_soon(self._stop_when_uris_change, group.cancel_scope)
            if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
                if not _offers_changes(client.server_capabilities):
                    # It serves no subscriptions/listen: nothing to hear, and asking again would only churn.
                    await self.uris_changed.wait()
                    return
                async with client.listen(tools_list_changed=True, prompts_list_changed=True,
                                         resources_list_changed=True, resource_subscriptions=sorted(uris)) as stream:
                    async for event in stream:
                        await self.relay.dispatch(self, client, event)
                group.cancel_scope.cancel()  # the upstream closed the stream: it is opened again
                return
            await self._watch_handshake_era(client, uris)

    async def _watch_handshake_era(self, client: Client, uris: frozenset[str]) -> None:
        """List changes arrive on the session's standalone stream (``_on_message`` queues them: the SDK calls it on
        its reading loop, which must not wait on a listing); resource updates only for URIs subscribed one by one,
        where the upstream offers subscriptions."""
        capabilities = client.server_capabilities
        if uris and capabilities.resources is not None and capabilities.resources.subscribe:
            for uri in sorted(uris):
                with contextlib.suppress(MCPError):
                    await client.session.subscribe_resource(uri)  # pyright: ignore[reportDeprecated]
        inbox = self._inbox = asyncio.Queue[ServerEvent]()
        self._pending.clear()
        try:
            while True:
                event = await inbox.get()
                self._pending.discard(event)
                await self.relay.dispatch(self, client, event)
        finally:
            self._inbox = None

    async def _stop_when_uris_change(self, scope: anyio.CancelScope) -> None:
        await self.uris_changed.wait()
        scope.cancel()

    async def _on_message(self, message: Any) -> None:
        inbox = self._inbox
        if inbox is None or not isinstance(message, _CHANGE_NOTIFICATIONS):
            return
        params = message.params.model_dump(mode="json", by_alias=True) if message.params is not None else None
        event = event_from_wire(message.method, params)
        # Events are level triggers: one pending copy of each is enough, and the distinct ones are capped.
        if event is None or event in self._pending or len(self._pending) >= MAX_BUFFERED_EVENTS:
            return
        self._pending.add(event)
        inbox.put_nowait(event)

    async def list_tools(self, client: Client) -> ToolDigest | None:
        tools: list[types.Tool] = []
        cursor: str | None = None
        try:
            with anyio.fail_after(self.server.timeout_s):
                for _ in range(MAX_LIST_PAGES):
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        break
        except (MCPError, TimeoutError) as exc:
            log.info("tools/list of upstream MCP server %s for its change stream failed: %s", self.server.name,
                     type(exc).__name__)
            return None
        return _tool_digest(tools)


class ChangeRelay:
    """Serves ``subscriptions/listen`` at ``/mcp`` (see the module's docstring)."""

    def __init__(self, gateway: ToolGateway) -> None:
        self._gateway = gateway
        self._channels: dict[tuple[str, str], _Channel] = {}
        self._watchers: dict[SessionKey, _Watcher] = {}
        self._streams = 0
        self._closed = False
        self._reconciler: asyncio.Task[None] | None = None
        self.reconcile_s = RECONCILE_S

    @property
    def clients(self) -> Any:
        return self._gateway.clients

    async def listen(self, ctx: ServerRequestContext[Any], params: types.SubscriptionsListenRequestParams,
                     principal: Principal) -> types.SubscriptionsListenResult:
        if self._closed:
            raise MCPError(types.INTERNAL_ERROR, "the gateway is shutting down")
        if self._streams >= MAX_STREAMS:
            raise MCPError(types.INTERNAL_ERROR, "Subscription limit reached")
        try:
            policy, _ = await self._gateway.policy(principal)
            servers = await self._gateway.allowed_servers(principal, policy)
        except StoreUnavailable as exc:
            raise MCPError(types.INTERNAL_ERROR, exc.message) from None
        wanted: dict[str, set[str]] = {}
        for uri in params.notifications.resource_subscriptions or ():
            parts = split_uri(uri)
            if parts is not None:
                wanted.setdefault(parts[0], set()).add(parts[1])
        key = (principal.tenant_id, principal.key_id)
        channel = self._channels.get(key)
        if channel is None:
            channel = self._channels[key] = _Channel(principal, frozenset(map(session_key, servers)), policy)
        stream = _Stream(principal, params.notifications, {name: frozenset(uris) for name, uris in wanted.items()})
        self._attach(stream, servers)
        channel.members.add(stream)
        self._streams += 1
        if self._reconciler is None or self._reconciler.done():
            self._reconciler = asyncio.get_running_loop().create_task(self._reconcile_all(),
                                                                      context=contextvars.Context())
        try:
            return await channel.handler(ctx, params)
        finally:
            self._streams -= 1
            channel.members.discard(stream)
            if not channel.members and self._channels.get(key) is channel:
                del self._channels[key]
            for watcher, listen in stream.listens.values():
                self._release(watcher, listen)

    def _attach(self, stream: _Stream, servers: Iterable[UpstreamServer]) -> None:
        """Watch every server in ``servers`` for the stream, and no other."""
        current = {session_key(server): server for server in servers}
        for key in [key for key in stream.listens if key not in current]:
            self._release(*stream.listens.pop(key))
        for key, server in current.items():
            if key not in stream.listens:
                watcher = self._watcher_for(server)
                listen = _Listen(stream.principal, stream.notifications,
                                 stream.wanted_uris.get(server.name, frozenset()))
                watcher.add(listen)
                stream.listens[key] = (watcher, listen)

    async def _reconcile_all(self) -> None:
        """Every ``reconcile_s``, each listening key's servers and policy read again (see ``_reconcile``)."""
        while self._channels and not self._closed:
            await asyncio.sleep(self.reconcile_s)
            for channel in list(self._channels.values()):
                try:
                    await self._reconcile(channel)
                except StoreUnavailable:
                    continue  # tried again next round; events meanwhile are checked (and withheld) one by one
                except Exception:  # one key's failure must not stop the others' reconciling
                    log.exception("reconciling the change streams of a key failed")

    async def _reconcile(self, channel: _Channel) -> None:
        """A change to what the key sees that no upstream announces: a server registered, changed or deleted, or
        allowed or refused by a new policy (its lists changed: all three announced, and the servers watched
        follow), or a policy that shows or hides tools of a server it still allows (``tools/list_changed``)."""
        principal = channel.principal
        policy, version = await self._gateway.policy(principal)
        servers = await self._gateway.allowed_servers(principal, policy)
        keys = frozenset(map(session_key, servers))
        for stream in list(channel.members):
            self._attach(stream, servers)
        events: list[ServerEvent] = []
        if keys != channel.servers:
            events = [ToolsListChanged(), PromptsListChanged(), ResourcesListChanged()]
        else:
            for server in servers:
                watcher = self._watchers.get(session_key(server))
                tools = watcher.tools if watcher is not None else None
                if tools is not None and visible_tools(channel.policy, server.name, tools) != \
                        visible_tools(policy, server.name, tools):
                    events = [ToolsListChanged()]
                    break
        channel.servers, channel.policy = keys, policy
        for event in events:
            if any(stream.wants(event) for stream in channel.members) and \
                    await self._audit(principal, version, None, event, event):
                await channel.bus.publish(event)

    def _watcher_for(self, server: UpstreamServer) -> _Watcher:
        key = session_key(server)
        watcher = self._watchers.get(key)
        if watcher is None:
            watcher = self._watchers[key] = _Watcher(self, server)
            # A fresh context: the watcher outlives the request that opened it and must carry none of its state.
            watcher.task = asyncio.get_running_loop().create_task(watcher.run(), context=contextvars.Context())
        return watcher

    def _release(self, watcher: _Watcher, listen: _Listen) -> None:
        watcher.listens.discard(listen)
        if not watcher.listens:
            key = session_key(watcher.server)
            if self._watchers.get(key) is watcher:
                del self._watchers[key]
            if watcher.task is not None:
                watcher.task.cancel()

    async def dispatch(self, watcher: _Watcher, client: Client, event: ServerEvent) -> None:
        """One upstream event, checked, audited and published per listening key."""
        server = watcher.server
        before = after = None
        if isinstance(event, ToolsListChanged):
            before, after = watcher.tools, await watcher.list_tools(client)
            watcher.tools = after
        relayed: ServerEvent = (ResourceUpdated(uri=namespaced_uri(server.name, event.uri))
                                if isinstance(event, ResourceUpdated) else event)
        # The keys with a stream that asked for this event (several streams of one key share its channel).
        audiences = {(listen.principal.tenant_id, listen.principal.key_id): listen.principal
                     for listen in list(watcher.listens) if listen.wants(event)}
        for key, principal in audiences.items():
            channel = self._channels.get(key)
            if channel is None:
                continue
            try:
                policy, version = await self._gateway.policy(principal)
                in_force = {session_key(allowed) for allowed in await self._gateway.allowed_servers(principal, policy)}
            except StoreUnavailable:
                log.warning("a change notification of %s was withheld: the policy store is unavailable", server.name)
                continue  # fail closed: an event the key's policy cannot be read for is not relayed
            if session_key(server) not in in_force:
                continue  # the policy no longer allows the server, or its record was changed or deleted
            if before is not None and after is not None and \
                    visible_tools(policy, server.name, before) == visible_tools(policy, server.name, after):
                continue  # nothing this key may see changed
            if not await self._audit(principal, version, server, event, relayed):
                continue
            await channel.bus.publish(relayed)

    async def _audit(self, principal: Principal, policy_version: int | None, server: UpstreamServer | None,
                     event: ServerEvent, relayed: ServerEvent) -> bool:
        """The event's audit record (``server`` None: announced by Warden itself, its servers or policy changed);
        False when it could not be made durable (the event is then withheld)."""
        started = time.perf_counter()
        decision: dict[str, Any] = {"stage": "change_relay", "decision": "relayed", "event": _KINDS[type(event)]}
        if server is None:
            decision.update(source="warden", reason="servers_or_policy_changed")
        else:
            decision.update(source="upstream", server=server.name, server_version=server.version,
                            server_scope=server.scope)
        name = server.name if server is not None else "warden"
        uri = relayed.uri if isinstance(relayed, ResourceUpdated) else None
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        record = AuditEvent(created_at=utcnow(), request_id=f"req_{uuid.uuid4().hex}", endpoint=ENDPOINT,
                            http_status=200, latency_ms=elapsed_ms, overhead_ms=elapsed_ms,
                            tenant_id=principal.tenant_id, key_id=principal.key_id,
                            model=uri[:200] if uri is not None else None, policy_version=policy_version,
                            decisions=[decision])
        try:
            await self._gateway.services.audit.record(record)
        except AuditUnavailableError:
            log.error("a change notification of %s was withheld: the audit trail is unavailable", name)
            return False
        return True

    def end_streams(self) -> None:
        """End every listen stream gracefully (its buffered events, then the result that tells the client the
        stream ended on purpose) and refuse new ones: at the start of a drain, so open streams do not hold the
        server's shutdown and clients listen again elsewhere."""
        self._closed = True
        for channel in list(self._channels.values()):
            channel.handler.close()

    async def close(self) -> None:
        """End every listen stream and stop watching the upstreams."""
        self.end_streams()
        if self._reconciler is not None:
            self._reconciler.cancel()
        tasks = [watcher.task for watcher in self._watchers.values() if watcher.task is not None]
        self._watchers.clear()
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5.0)


