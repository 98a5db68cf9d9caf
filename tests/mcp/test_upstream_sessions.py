"""Kept upstream sessions: one SDK client session per server record, reused across calls, never shared between
tenants, replaced when the record changes or the upstream forgets it, and closed at shutdown. The upstream is the
official SDK's server held to the handshake era, so every session opened is one ``initialize`` it counts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from admin_support import auth, token_for
from gateway_support import new_tenant_with_key
from mcp_support import HandshakeUpstream, Served, serve, warden_client

from gateway.adminauth.roles import Role
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.mcp.registry import UpstreamServer
from gateway.mcp.upstream import UpstreamClients


@pytest.fixture
def handshake_upstream() -> Iterator[tuple[HandshakeUpstream, Served]]:
    upstream = HandshakeUpstream("legacy")
    served = serve(upstream)
    yield upstream, served
    served.stop()


def _servers_url(warden: Served, tenant_id: str) -> str:
    return f"{warden.base}/admin/v1/tenants/{tenant_id}/mcp-servers"


def _register(warden: Served, settings: Settings, tenant_id: str, url: str) -> None:
    body = {"name": "legacy", "url": url, "allow_private_network": True, "timeout_s": 5.0}
    response = httpx.post(_servers_url(warden, tenant_id), json=body,
                          headers=auth(token_for(settings, Role.PLATFORM_ADMIN)), timeout=30)
    assert response.status_code == 201, response.text


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def _until(condition: Any, timeout_s: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "condition not reached"
        await asyncio.sleep(0.02)


async def test_calls_share_one_session_per_record_and_tenant(db: Database, warden_settings: Settings, warden: Served,
                                                             handshake_upstream: tuple[HandshakeUpstream, Served]
                                                             ) -> None:
    upstream, served = handshake_upstream
    first, first_key = new_tenant_with_key(db, warden_settings)
    _register(warden, warden_settings, first.id, f"{served.base}/mcp")
    async with warden_client(warden.base, first_key.api_key) as client:
        for a in range(4):
            assert _text(await client.call_tool("legacy__add", {"a": a, "b": 1})) == str(a + 1)
        assert [tool.name for tool in (await client.list_tools()).tools if tool.name == "legacy__add"]
    assert (upstream.initializes, upstream.tool_calls) == (1, 4)

    # The same URL registered by another tenant: a session of its own.
    second, second_key = new_tenant_with_key(db, warden_settings)
    _register(warden, warden_settings, second.id, f"{served.base}/mcp")
    async with warden_client(warden.base, second_key.api_key) as client:
        assert _text(await client.call_tool("legacy__add", {"a": 1, "b": 1})) == "2"
    assert upstream.initializes == 2

    # A new version of the first tenant's record: a new session, and the old one is ended upstream.
    response = httpx.patch(f"{_servers_url(warden, first.id)}/legacy", json={"timeout_s": 6.0},
                           headers=auth(token_for(warden_settings, Role.PLATFORM_ADMIN)), timeout=30)
    assert response.status_code == 200, response.text
    async with warden_client(warden.base, first_key.api_key) as client:
        assert _text(await client.call_tool("legacy__add", {"a": 2, "b": 2})) == "4"
    assert upstream.initializes == 3
    await _until(lambda: len(upstream.deleted) == 1)


async def test_a_session_the_upstream_forgot_is_reopened_and_the_call_sent_once(
        db: Database, warden_settings: Settings, warden: Served,
        handshake_upstream: tuple[HandshakeUpstream, Served]) -> None:
    upstream, served = handshake_upstream
    tenant, issued = new_tenant_with_key(db, warden_settings)
    _register(warden, warden_settings, tenant.id, f"{served.base}/mcp")
    async with warden_client(warden.base, issued.api_key) as client:
        assert _text(await client.call_tool("legacy__add", {"a": 1, "b": 2})) == "3"
        upstream.forget()  # as if the upstream restarted: the kept session's id now answers 404
        result = await client.call_tool("legacy__add", {"a": 2, "b": 3})
    assert not result.is_error and _text(result) == "5"
    assert (upstream.initializes, upstream.tool_calls) == (2, 2)


async def test_sessions_are_closed_at_shutdown(handshake_upstream: tuple[HandshakeUpstream, Served]) -> None:
    upstream, served = handshake_upstream
    clients = UpstreamClients(max_message_bytes=1_000_000)
    server = UpstreamServer(tenant_id="tenant", name="legacy", version=1, url=f"{served.base}/mcp", timeout_s=5.0,
                            allow_private_network=True, headers={})
    for _ in range(3):
        assert "add" in [tool.name for tool in await clients.list_tools(server)]
    assert upstream.initializes == 1 and clients.keeper.open_sessions == 1
    await clients.aclose()
    assert clients.keeper.open_sessions == 0
    assert len(upstream.deleted) == 1
