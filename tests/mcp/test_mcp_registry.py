"""The upstream registry through the admin API: versions, write-only credentials, who may allow private targets,
and the SSRF rules applied before Warden connects."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from admin_support import auth, token_for
from gateway_support import new_tenant_with_key
from mcp_support import UPSTREAM_TOKEN, Served, warden_client
from sqlalchemy import select, update

from gateway.adminauth.roles import Role
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.mcp.models import McpServer


def _servers_url(warden: Served, tenant_id: str, name: str = "") -> str:
    return f"{warden.base}/admin/v1/tenants/{tenant_id}/mcp-servers" + (f"/{name}" if name else "")


def _call(method: str, url: str, headers: dict[str, str], body: dict[str, Any] | None = None) -> httpx.Response:
    return httpx.request(method, url, json=body, headers=headers, timeout=30)


def _code(result: Any) -> str | None:
    return (result.meta or {}).get("warden/error") if result.is_error else None


async def test_credentials_are_sent_upstream_and_never_returned(db: Database, warden_settings: Settings,
                                                                warden: Served, guarded_upstream: Served,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    tenant, issued = new_tenant_with_key(db, warden_settings)
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    url = f"{guarded_upstream.base}/mcp"
    created = _call("POST", _servers_url(warden, tenant.id), platform,
                    {"name": "guarded", "url": url, "allow_private_network": True, "timeout_s": 5,
                     "credentials": {"headers": {"Authorization": "Bearer wrong"}}})
    assert created.status_code == 201, created.text
    async with warden_client(warden.base, issued.api_key) as client:
        refused = await client.call_tool("guarded__add", {"a": 1, "b": 2})
    assert _code(refused) == "upstream_error"  # the upstream answered 401

    updated = _call("PATCH", _servers_url(warden, tenant.id, "guarded"), platform,
                    {"credentials": {"headers": {"Authorization": f"Bearer {UPSTREAM_TOKEN}"}}})
    assert updated.status_code == 200, updated.text
    assert updated.json()["version"] == 2 and updated.json()["has_credentials"] is True
    async with warden_client(warden.base, issued.api_key) as client:
        result = await client.call_tool("guarded__add", {"a": 1, "b": 2})
    assert not result.is_error

    for response in (created, updated, _call("GET", _servers_url(warden, tenant.id), platform),
                     _call("GET", _servers_url(warden, tenant.id, "guarded"), platform),
                     _call("GET", _servers_url(warden, tenant.id, "guarded") + "/versions", platform)):
        assert UPSTREAM_TOKEN not in response.text and "Bearer wrong" not in response.text
        assert "credentials" not in response.text.replace("has_credentials", "")
    assert UPSTREAM_TOKEN not in caplog.text
    with db.session() as session:
        stored = session.scalars(select(McpServer.credentials).where(McpServer.tenant_id == tenant.id)).all()
    assert all(blob is not None and UPSTREAM_TOKEN.encode() not in blob for blob in stored)


async def test_versions_and_deletion(db: Database, warden_settings: Settings, warden: Served,
                                     upstream: Served) -> None:
    tenant, issued = new_tenant_with_key(db, warden_settings)
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    body = {"name": "tools", "url": f"{upstream.base}/mcp", "allow_private_network": True}
    assert _call("POST", _servers_url(warden, tenant.id), platform, body).status_code == 201
    assert _call("POST", _servers_url(warden, tenant.id), platform, body).status_code == 409
    assert _call("PATCH", _servers_url(warden, tenant.id, "tools"), platform, {"timeout_s": 7}).status_code == 200
    assert _call("DELETE", _servers_url(warden, tenant.id, "tools"), platform).status_code == 204
    versions = _call("GET", _servers_url(warden, tenant.id, "tools") + "/versions", platform).json()
    assert [(v["version"], v["timeout_s"], v["deleted"]) for v in versions] == [(1, 10.0, False), (2, 7.0, False),
                                                                                (3, 7.0, True)]
    assert _call("GET", _servers_url(warden, tenant.id, "tools"), platform).status_code == 404
    assert _call("GET", _servers_url(warden, tenant.id), platform).json() == []
    async with warden_client(warden.base, issued.api_key) as client:
        assert (await client.list_tools()).tools == []
        assert _code(await client.call_tool("tools__add", {"a": 1, "b": 1})) == "unknown_tool"
    # A name can be registered again after its deletion; the history continues.
    assert _call("POST", _servers_url(warden, tenant.id), platform, body).json()["version"] == 4


async def test_private_targets_need_a_platform_admin(db: Database, warden_settings: Settings, warden: Served,
                                                     upstream: Served) -> None:
    tenant, issued = new_tenant_with_key(db, warden_settings)
    tenant_admin = auth(token_for(warden_settings, Role.TENANT_ADMIN, tenant.id))
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    loopback = f"{upstream.base}/mcp"
    refused = _call("POST", _servers_url(warden, tenant.id), tenant_admin,
                    {"name": "tools", "url": loopback, "allow_private_network": True})
    assert refused.status_code == 403
    assert set(refused.json()["error"]) == {"message", "type", "param", "code"}
    # Registered without the flag, the loopback target is refused before any connection.
    assert _call("POST", _servers_url(warden, tenant.id), tenant_admin,
                 {"name": "tools", "url": loopback}).status_code == 201
    async with warden_client(warden.base, issued.api_key) as client:
        assert (await client.list_tools()).tools == []
        assert _code(await client.call_tool("tools__add", {"a": 1, "b": 1})) == "upstream_refused"
    allowed = _call("PATCH", _servers_url(warden, tenant.id, "tools"), platform, {"allow_private_network": True})
    assert allowed.json()["allow_private_network"] is True
    async with warden_client(warden.base, issued.api_key) as client:
        assert not (await client.call_tool("tools__add", {"a": 1, "b": 1})).is_error
    # A tenant admin who re-points the server loses the platform admin's allowance with it.
    moved = _call("PATCH", _servers_url(warden, tenant.id, "tools"), tenant_admin, {"url": f"{loopback}?v=2"})
    assert moved.status_code == 200 and moved.json()["allow_private_network"] is False
    other_tenant, _ = new_tenant_with_key(db, warden_settings)
    assert _call("GET", _servers_url(warden, other_tenant.id), tenant_admin).status_code == 404


@pytest.mark.parametrize("url", ["ftp://example.com/mcp", "http://user:pw@example.com/mcp", "http:///mcp",
                                 "example.com/mcp", "http://example.com:99999/mcp", "http://example.com/mcp#x"])
def test_bad_urls_are_refused_at_registration(db: Database, warden_settings: Settings, warden: Served,
                                              url: str) -> None:
    tenant, _ = new_tenant_with_key(db, warden_settings)
    response = _call("POST", _servers_url(warden, tenant.id), auth(token_for(warden_settings, Role.PLATFORM_ADMIN)),
                     {"name": "bad", "url": url})
    assert response.status_code in (400, 422), response.text
    assert "pw@" not in response.text  # a refused URL's credentials are not echoed


@pytest.mark.parametrize("name", ["Tools", "a__b", "-x", "x" * 40, "we ird"])
def test_server_names_that_would_break_namespacing_are_refused(db: Database, warden_settings: Settings,
                                                               warden: Served, name: str) -> None:
    tenant, _ = new_tenant_with_key(db, warden_settings)
    response = _call("POST", _servers_url(warden, tenant.id), auth(token_for(warden_settings, Role.PLATFORM_ADMIN)),
                     {"name": name, "url": "https://example.com/mcp"})
    assert response.status_code in (400, 422)


async def test_credentials_that_no_longer_open_fail_only_their_server(db: Database, warden_settings: Settings,
                                                                      warden: Served, upstream: Served,
                                                                      guarded_upstream: Served) -> None:
    tenant, issued = new_tenant_with_key(db, warden_settings)
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    for name, base, headers in (("tools", upstream.base, None),
                                ("guarded", guarded_upstream.base, {"Authorization": f"Bearer {UPSTREAM_TOKEN}"})):
        body = {"name": name, "url": f"{base}/mcp", "allow_private_network": True,
                "credentials": {"headers": headers} if headers else None}
        assert _call("POST", _servers_url(warden, tenant.id), platform, body).status_code == 201
    with db.transaction() as session:  # as if the server secret had been rotated, or the row edited
        session.execute(update(McpServer).where(McpServer.tenant_id == tenant.id, McpServer.name == "guarded")
                        .values(credentials=b"\x00" * 40))
    async with warden_client(warden.base, issued.api_key) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        broken = await client.call_tool("guarded__add", {"a": 1, "b": 1})
        fine = await client.call_tool("tools__add", {"a": 1, "b": 1})
    assert "tools__add" in names and not any(name.startswith("guarded__") for name in names)
    assert _code(broken) == "upstream_refused" and not fine.is_error


@pytest.mark.parametrize("headers", [{"Authorization": "Bearer x\n"}, {"Authorization": "Bearer x\r\nX-Evil: 1"},
                                     {"Authorizatión": "x"}, {"X-Key": "naïve"}, {"": "x"}, {"Bad Name": "x"}])
def test_credential_headers_that_could_split_or_garble_a_request_are_refused(
        db: Database, warden_settings: Settings, warden: Served, headers: dict[str, str]) -> None:
    tenant, _ = new_tenant_with_key(db, warden_settings)
    response = _call("POST", _servers_url(warden, tenant.id), auth(token_for(warden_settings, Role.PLATFORM_ADMIN)),
                     {"name": "svc", "url": "https://example.com/mcp", "credentials": {"headers": headers}})
    assert response.status_code in (400, 422), response.text
    assert "Bearer x" not in response.text  # a refused credential is not echoed back
