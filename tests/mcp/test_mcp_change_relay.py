"""Change notifications of upstream MCP servers relayed through Warden's /mcp: the official SDK's client listening
(``subscriptions/listen``) and the SDK's MCPServer as the upstream, on loopback. Events reach only the tenant and key
whose policy allows the server (and lets it see the tool that changed), under Warden's names, each one audited."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from admin_support import auth, token_for
from mcp.client.subscriptions import Subscription
from mcp.server.context import ServerRequestContext
from mcp.shared.subscriptions import PromptsListChanged, ResourcesListChanged, ResourceUpdated, ToolsListChanged
from mcp_support import (
    NotifyingUpstream,
    Served,
    audit_rows,
    serve,
    tenant_with_upstream,
    verified_export,
    warden_client,
)

from gateway.adminauth.roles import Role
from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.auth import Principal
from gateway.keys.service import IssuedKey, issue_key
from gateway.mcp import change_relay
from gateway.mcp.passthrough import namespaced_uri
from gateway.policystore.service import publish_policy
from gateway.tenants.models import Tenant
from policies import Policy

NOTIFICATIONS = "mcp.notifications"
QUIET_S = 1.0  # how long "nothing arrives" is watched for, after a later event shows the earlier one was handled


@pytest.fixture
def notifying() -> Iterator[Callable[..., tuple[NotifyingUpstream, Served]]]:
    """Starts notifying upstreams on loopback (stopped after the test; open streams are cut after a second)."""
    started: list[Served] = []

    def start(name: str = "tools", *, port: int | None = None, **kinds: bool) -> tuple[NotifyingUpstream, Served]:
        upstream = NotifyingUpstream(name, **kinds)
        served = serve(upstream, port=port, timeout_graceful_shutdown=1)
        started.append(served)
        return upstream, served

    yield start
    for served in started:
        served.stop()


async def _change(served: Served, **body: Any) -> None:
    async with httpx.AsyncClient(timeout=10) as http:
        response = await http.post(f"{served.base}/change", json=body)
        assert response.status_code == 204


async def _until(condition: Callable[[], bool], timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await anyio.sleep(0.02)


async def _next(stream: Subscription, timeout_s: float = 20.0) -> Any:
    with anyio.fail_after(timeout_s):
        return await stream.__anext__()


async def _nothing_more(stream: Subscription) -> None:
    with anyio.move_on_after(QUIET_S):
        event = await stream.__anext__()
        raise AssertionError(f"unexpected {event!r}")


def _relayed(db: Database, tenant_id: str, expected: int) -> list[AuditRecord]:
    """The tenant's records of relayed events once ``expected`` are stored (the writer is asynchronous), and
    after a moment more, so one too many shows too."""
    rows = audit_rows(db, tenant_id, NOTIFICATIONS, expected)
    time.sleep(0.2)
    return audit_rows(db, tenant_id, NOTIFICATIONS, len(rows))


def _second_key(db: Database, settings: Settings, tenant_id: str) -> IssuedKey:
    with db.transaction() as session:
        tenant = session.get(Tenant, tenant_id)
        assert tenant is not None
        return issue_key(tenant, pepper=load_server_secrets(settings).key_pepper, session=session)


async def test_a_tool_change_reaches_only_keys_that_may_see_the_tool_audited_and_verified(
        db: Database, warden_settings: Settings, warden: Served, notifying: Any, tmp_path: Path) -> None:
    upstream, served = notifying()
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, served, timeout_s=10.0)
    other_key = _second_key(db, warden_settings, tenant_id)
    with db.transaction() as session:  # hidden from every key: secret_*; from the second key also: lookup
        publish_policy(tenant_id, {"tools": {"denied_tools": ["tools__secret_*"]},
                                   "key_overrides": {other_key.key_id: {
                                       "tools": {"denied_tools": ["tools__secret_*", "tools__lookup"]}}}},
                       session=session)
    async with (warden_client(warden.base, issued.api_key) as client,
                warden_client(warden.base, other_key.api_key) as other,
                client.listen(tools_list_changed=True) as stream,
                other.listen(tools_list_changed=True) as other_stream):
        capabilities = client.server_capabilities  # advertised at the 2026 revision, where they are relayed
        assert capabilities.tools is not None and capabilities.tools.list_changed
        assert capabilities.resources is not None and capabilities.resources.subscribe
        await _until(lambda: upstream.bus.subscribed >= 1)

        await _change(served, add_tool="secret_keys")  # a tool no key may see: nothing is relayed
        await _change(served, add_tool="lookup")  # seen by the first key only
        assert isinstance(await _next(stream), ToolsListChanged)
        await _nothing_more(stream)
        await _nothing_more(other_stream)
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "tools__lookup" in names and "tools__secret_keys" not in names

        await _change(served, add_tool="report")  # seen by both
        assert isinstance(await _next(stream), ToolsListChanged)
        assert isinstance(await _next(other_stream), ToolsListChanged)

    rows = _relayed(db, tenant_id, 3)
    first = [row for row in rows if row.key_id == issued.key_id]
    assert len(first) == 2 and len(rows) == 3
    decision = first[0].decisions[0]
    assert decision["stage"] == "change_relay" and decision["event"] == "tools/list_changed"
    assert decision["server"] == "tools" and first[0].http_status == 200

    exported = verified_export(warden, warden_settings, tenant_id, tmp_path / "export.jsonl")
    assert sum(1 for line in exported.splitlines() if NOTIFICATIONS in line) == 3


async def test_events_stay_with_the_tenant_whose_policy_allows_the_server(
        db: Database, warden_settings: Settings, warden: Served, notifying: Any) -> None:
    first_upstream, first = notifying()
    second_upstream, second = notifying()
    tenant_a, key_a = tenant_with_upstream(db, warden_settings, warden, first, timeout_s=10.0)
    tenant_b, key_b = tenant_with_upstream(db, warden_settings, warden, second, timeout_s=10.0)
    # Tenant C registers the first upstream too, but its policy does not allow it.
    tenant_c, key_c = tenant_with_upstream(db, warden_settings, warden, first, {"tools": {"allowed_servers": ["x"]}},
                                           timeout_s=10.0)
    warden.app.state.mcp.relay.reconcile_s = 0.2  # Warden's own announcements (a policy change) come at once
    kinds: dict[str, Any] = {"tools_list_changed": True, "prompts_list_changed": True, "resources_list_changed": True}
    async with (warden_client(warden.base, key_a.api_key) as client_a,
                warden_client(warden.base, key_b.api_key) as client_b,
                warden_client(warden.base, key_c.api_key) as client_c,
                client_a.listen(**kinds) as stream_a, client_b.listen(**kinds) as stream_b,
                client_c.listen(**kinds) as stream_c):
        await _until(lambda: first_upstream.bus.subscribed >= 1 and second_upstream.bus.subscribed >= 1)
        await _change(first, event="prompts")
        assert isinstance(await _next(stream_a), PromptsListChanged)
        await _change(second, event="resources")
        assert isinstance(await _next(stream_b), ResourcesListChanged)
        for stream in (stream_a, stream_b, stream_c):
            await _nothing_more(stream)

        # The tenant's policy changes while it listens: the server is no longer allowed. Warden announces that its
        # lists changed, and nothing of that server is relayed from then on.
        with db.transaction() as session:
            publish_policy(tenant_a, {"tools": {"allowed_servers": ["x"]}}, session=session)
        announced = {type(await _next(stream_a)) for _ in range(3)}
        assert announced == {ToolsListChanged, PromptsListChanged, ResourcesListChanged}
        await _change(first, event="prompts")
        await _nothing_more(stream_a)
    assert first_upstream.bus.subscribed == 1  # one watcher for the tenant allowed; none for the tenant refused
    relayed_a = [(row.decisions[0]["source"], row.decisions[0]["event"]) for row in _relayed(db, tenant_a, 4)]
    assert relayed_a[0] == ("upstream", "prompts/list_changed") and len(relayed_a) == 4
    assert all(source == "warden" for source, _ in relayed_a[1:])
    assert len(_relayed(db, tenant_b, 1)) == 1 and _relayed(db, tenant_c, 0) == []


async def test_a_resource_update_is_relayed_under_wardens_uri_to_its_subscribers(
        db: Database, warden_settings: Settings, warden: Served, notifying: Any) -> None:
    upstream, served = notifying()
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, served, timeout_s=10.0)
    uri = namespaced_uri("tools", "file:///customers/c9.txt")
    async with (warden_client(warden.base, issued.api_key) as client,
                client.listen(resource_subscriptions=[uri]) as stream,
                client.listen(tools_list_changed=True) as tools_only):
        await _until(lambda: upstream.bus.subscribed >= 1)
        await _change(served, event="updated", uri="file:///elsewhere.txt")  # not subscribed
        await _change(served, event="updated", uri="file:///customers/c9.txt")
        assert await _next(stream) == ResourceUpdated(uri=uri)
        await _nothing_more(stream)
        await _nothing_more(tools_only)
    [row] = _relayed(db, tenant_id, 1)
    assert row.model == uri and row.decisions[0]["event"] == "resources/updated"


async def test_a_handshake_era_upstreams_notifications_are_relayed(db: Database, warden_settings: Settings,
                                                                  warden: Served, notifying: Any) -> None:
    upstream, served = notifying(handshake_only=True)
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, served, timeout_s=10.0)
    async with (warden_client(warden.base, issued.api_key) as client,
                client.listen(tools_list_changed=True) as stream):
        await _until(lambda: bool(upstream.mcp.sessions))  # Warden's watcher took its baseline
        event = None
        for attempt in range(40):  # until the session's standalone stream is open upstream
            await _change(served, add_tool=f"tool_{attempt}")
            with anyio.move_on_after(0.5):
                event = await stream.__anext__()
            if event is not None:
                break
        assert isinstance(event, ToolsListChanged)
    assert _relayed(db, tenant_id, 1)[0].decisions[0]["event"] == "tools/list_changed"


async def test_the_relay_listens_again_after_the_upstream_restarts(db: Database, warden_settings: Settings,
                                                                    warden: Served, notifying: Any) -> None:
    upstream, served = notifying()
    _, issued = tenant_with_upstream(db, warden_settings, warden, served, timeout_s=10.0)
    async with (warden_client(warden.base, issued.api_key) as client,
                client.listen(prompts_list_changed=True) as stream):
        await _until(lambda: upstream.bus.subscribed >= 1)
        served.stop()
        restarted, served_again = notifying(port=served.port)
        await _until(lambda: restarted.bus.subscribed >= 1, timeout_s=40.0)
        await _change(served_again, event="prompts")
        assert isinstance(await _next(stream), PromptsListChanged)


class _StuckSession:
    """A listen stream's session whose client has stopped reading: every write waits for ever."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.unstuck = anyio.Event()

    async def send_notification(self, notification: Any, related_request_id: Any = None) -> None:
        await self.unstuck.wait()
        self.sent.append(notification)


async def test_a_subscriber_that_stops_reading_is_disconnected_at_the_buffer_cap() -> None:
    channel = change_relay._Channel(Principal(tenant_id="t", key_id="k"), frozenset(), Policy())
    session = _StuckSession()
    ctx: Any = ServerRequestContext(session=session, lifespan_context=None,  # type: ignore[arg-type]
                                    protocol_version="2026-07-28", method="subscriptions/listen",
                                    request_id="listen-1")
    uris = [f"warden://tools/{index}" for index in range(change_relay.MAX_BUFFERED_EVENTS + 50)]
    params = types.SubscriptionsListenRequestParams(
        notifications=types.SubscriptionFilter(resource_subscriptions=uris))
    async with anyio.create_task_group() as group:
        result: list[Any] = []

        async def serve_stream() -> None:
            result.append(await channel.handler(ctx, params))

        group.start_soon(serve_stream)
        await anyio.sleep(0.05)  # the handler subscribed and is stuck writing the acknowledgement
        for uri in uris:
            await channel.bus.publish(ResourceUpdated(uri=uri))
        session.unstuck.set()
    # The acknowledgement, then what the buffer held when the stream was ended; the rest was never kept.
    assert len(session.sent) == 1 + change_relay.MAX_BUFFERED_EVENTS
    assert len(result) == 1


async def test_streams_end_gracefully_when_the_gateway_drains(db: Database, warden_settings: Settings,
                                                               notifying: Any) -> None:
    settings = warden_settings.model_copy(update={"shutdown_grace_s": 1.0, "shutdown_unready_s": 0.0})
    draining = serve(create_app(settings, start_engine=False))
    try:
        upstream, served = notifying()
        _, issued = tenant_with_upstream(db, warden_settings, draining, served, timeout_s=10.0)
        async with (warden_client(draining.base, issued.api_key) as client,
                    client.listen(tools_list_changed=True) as stream):
            await _until(lambda: upstream.bus.subscribed >= 1)
            relay = draining.app.state.mcp.relay
            [watcher] = relay._watchers.values()
            assert watcher.task is not None
            # The drain starts on the server's own loop (what its SIGTERM handler does).
            watcher.task.get_loop().call_soon_threadsafe(draining.app.state.lifecycle.begin_drain)
            with anyio.fail_after(10):
                remaining = [event async for event in stream]  # ends: the stream was closed on purpose
            assert remaining == []
    finally:
        started = time.monotonic()
        draining.stop()
    assert not draining.thread.is_alive() and time.monotonic() - started < 10


async def test_registry_and_policy_changes_are_announced_and_new_servers_watched(
        db: Database, warden_settings: Settings, warden: Served, notifying: Any) -> None:
    first_upstream, first = notifying()
    second_upstream, second = notifying()
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, first, timeout_s=10.0)
    relay = warden.app.state.mcp.relay
    relay.reconcile_s = 0.2
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    servers = f"{warden.base}/admin/v1/tenants/{tenant_id}/mcp-servers"
    async with (warden_client(warden.base, issued.api_key) as client,
                client.listen(tools_list_changed=True) as stream):
        await _until(lambda: first_upstream.bus.subscribed >= 1)
        async with httpx.AsyncClient(timeout=30, headers=platform) as admin:
            registered = await admin.post(servers, json={"name": "more", "url": f"{second.base}/mcp",
                                                         "allow_private_network": True, "timeout_s": 10.0})
            assert registered.status_code == 201, registered.text
            assert isinstance(await _next(stream), ToolsListChanged)  # announced by Warden: a server came
            assert "more__add" in [tool.name for tool in (await client.list_tools()).tools]
            await _until(lambda: second_upstream.bus.subscribed >= 1)  # and watched from now on
            await _change(second, add_tool="fresh")
            assert isinstance(await _next(stream), ToolsListChanged)

            with db.transaction() as session:  # a policy that hides a tool of a server still allowed
                publish_policy(tenant_id, {"tools": {"denied_tools": ["more__fresh"]}}, session=session)
            assert isinstance(await _next(stream), ToolsListChanged)
            await _nothing_more(stream)

            assert (await admin.delete(f"{servers}/more")).status_code == 204
            assert isinstance(await _next(stream), ToolsListChanged)
            await _change(second, add_tool="after_deletion")  # the deleted server's events say nothing now
            await _nothing_more(stream)
    rows = _relayed(db, tenant_id, 4)
    assert [(row.decisions[0]["source"], row.decisions[0].get("server")) for row in rows] == [
        ("warden", None), ("upstream", "more"), ("warden", None), ("warden", None)]


async def test_an_upstream_that_serves_no_listen_is_not_asked_again_and_again(
        db: Database, warden_settings: Settings, warden: Served, notifying: Any) -> None:
    upstream, served = notifying(listen_served=False)
    _, issued = tenant_with_upstream(db, warden_settings, warden, served, timeout_s=10.0)
    async with (warden_client(warden.base, issued.api_key) as client,
                client.listen(tools_list_changed=True) as stream):
        await _until(lambda: "tools/list" in upstream.methods)  # Warden's watcher opened its session
        await anyio.sleep(2 * change_relay.RECONNECT_MIN_S + 0.5)  # long enough for two reconnects
        await _nothing_more(stream)
    assert "subscriptions/listen" not in upstream.methods
    assert upstream.methods.count("server/discover") == 1
