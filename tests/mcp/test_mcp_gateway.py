"""Warden's /mcp endpoint end to end: the official SDK as the client and as the upstream servers, on loopback."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from admin_support import auth, token_for
from gateway_support import new_tenant_with_key
from mcp_support import LEAK_TEXT, Served, warden_client

from gateway.adminauth.roles import Role
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.keys.service import IssuedKey
from gateway.policystore.service import publish_policy
from gateway.tenants.models import Tenant


def _register(warden: Served, settings: Settings, tenant_id: str, name: str, url: str, **fields: Any) -> httpx.Response:
    body = {"name": name, "url": url, "allow_private_network": True, "timeout_s": 5.0, **fields}
    return httpx.post(f"{warden.base}/admin/v1/tenants/{tenant_id}/mcp-servers", json=body,
                      headers=auth(token_for(settings, Role.PLATFORM_ADMIN)), timeout=30)


def _tenant(db: Database, settings: Settings, warden: Served, upstream: Served,
            policy: dict[str, Any] | None = None) -> tuple[Tenant, IssuedKey]:
    tenant, issued = new_tenant_with_key(db, settings)
    response = _register(warden, settings, tenant.id, "tools", f"{upstream.base}/mcp")
    assert response.status_code == 201, response.text
    if policy is not None:
        with db.transaction() as session:
            publish_policy(tenant.id, policy, session=session)
    return tenant, issued


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


def _error_code(result: Any) -> str | None:
    return (result.meta or {}).get("warden/error") if result.is_error else None


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_tools_are_listed_namespaced_and_called_through_warden(
        db: Database, warden_settings: Settings, warden: Served, upstream: Served, mode: str) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream)
    async with warden_client(warden.base, issued.api_key, mode=mode) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert {"tools__add", "tools__echo", "tools__lookup_customer"} <= names
        result = await client.call_tool("tools__add", {"a": 2, "b": 40})
    assert not result.is_error
    assert _text(result) == "42"
    assert result.meta and result.meta["warden/request_id"]


async def test_pii_in_a_result_is_masked(db: Database, warden_settings: Settings, warden: Served,
                                         upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream)
    async with warden_client(warden.base, issued.api_key) as client:
        result = await client.call_tool("tools__lookup_customer", {"customer_id": "c1"})
    text = _text(result)
    assert not result.is_error
    assert "jane.doe@example.com" not in text and "555 0134" not in text
    assert "<EMAIL_ADDRESS>" in text and text != LEAK_TEXT
