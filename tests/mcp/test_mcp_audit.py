"""The audit of /mcp beyond one record per tool call: listings audited, a call's content stored as the tenant's
``audit_content`` says, and calls in flight at shutdown cut at the end of the grace period and audited as such."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import httpx
import pytest
from mcp_support import Served, audit_rows, serve, tenant_with_upstream, warden_client
from mcp_types import HEADER_MISMATCH
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.settings import Settings

RAW_EMAIL = "jane.doe@example.com"  # in the upstream's lookup_customer result (mcp_support.LEAK_TEXT)


async def test_each_listing_is_one_audit_record(db: Database, warden_settings: Settings, warden: Served,
                                                upstream: Served) -> None:
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, upstream,
                                             {"tools": {"denied_tools": ["tools__big"]}})
    async with warden_client(warden.base, issued.api_key) as client:
        listed = (await client.list_tools()).tools
        await client.list_tools()
    rows = audit_rows(db, tenant_id, "mcp.tools/list", 2)
    assert len(rows) >= 2 and all(row.http_status == 200 and row.key_id == issued.key_id for row in rows)
    listing = rows[0].decisions[0]
    assert listing["stage"] == "tool_list" and listing["servers"] == ["tools"] and listing["failed"] == {}
    assert listing["tools"] == len(listed) and "tools__big" not in [tool.name for tool in listed]


@pytest.mark.parametrize("mode", ["full", "redacted", "hashes"])
async def test_a_calls_content_follows_the_tenants_audit_content(db: Database, warden_settings: Settings,
                                                                 warden: Served, upstream: Served, mode: str) -> None:
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, upstream, {"audit_content": mode})
    async with warden_client(warden.base, issued.api_key) as client:
        released = await client.call_tool("tools__lookup_customer", {"customer_id": "c9"})
    assert RAW_EMAIL not in json.dumps(released.model_dump(mode="json"))  # the default policy masks results
    [row] = audit_rows(db, tenant_id, "mcp.tools/call", 1)
    content = row.content
    assert content is not None and content["mode"] == mode
    stored = json.dumps(content)
    if mode == "full":
        assert content["arguments"] == {"customer_id": "c9"} and RAW_EMAIL in stored
    elif mode == "redacted":
        assert content["arguments"] == {"customer_id": "c9"} and RAW_EMAIL not in stored
        assert "EMAIL_ADDRESS" in stored  # the released, masked result
    else:
        assert set(content) == {"mode", "arguments_sha256", "result_sha256"}


@pytest.fixture
def draining_warden(warden_settings: Settings) -> Iterator[Served]:
    """A Warden of its own (its shutdown is one-way), with a one-second grace period."""
    settings = warden_settings.model_copy(update={"shutdown_grace_s": 1.0, "shutdown_unready_s": 0.0})
    served = serve(create_app(settings, start_engine=False))
    yield served
    served.stop()


async def test_a_call_in_flight_at_shutdown_is_cut_after_the_grace_and_audited(
        db: Database, warden_settings: Settings, draining_warden: Served, upstream: Served) -> None:
    tenant_id, issued = tenant_with_upstream(db, warden_settings, draining_warden, upstream)
    lifecycle = draining_warden.app.state.lifecycle
    async with warden_client(draining_warden.base, issued.api_key) as client:
        call = asyncio.create_task(client.call_tool("tools__slow", {"seconds": 30}))
        deadline = time.monotonic() + 20
        while lifecycle.open_calls == 0:
            assert time.monotonic() < deadline and not call.done()
            await asyncio.sleep(0.02)
        # The drain starts on the server's own loop (what its SIGTERM handler does); the loop is the call's.
        loop = next(iter(lifecycle._calls)).get_loop()
        started = time.monotonic()
        loop.call_soon_threadsafe(lifecycle.begin_drain)
        result = await asyncio.wait_for(call, timeout=15)
    assert time.monotonic() - started < 10  # cut at the grace's end, not after the tool's 30 s
    assert result.is_error and (result.meta or {}).get("warden/error") == "shutdown"

    # New requests are refused while draining, in the error shape, with a retry hint.
    refused = httpx.post(f"{draining_warden.base}/mcp", json={}, timeout=30,
                         headers={"Authorization": f"Bearer {issued.api_key}"})
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "shutdown"
    assert "retry-after" in refused.headers

    [row] = audit_rows(db, tenant_id, "mcp.tools/call", 1)
    assert (row.http_status, row.error_type) == (503, "shutdown")
    assert next(d for d in row.decisions if d["stage"] == "tool_call")["tool"] == "slow"


async def test_calls_list_nothing_behind_the_callers_back(db: Database, warden_settings: Settings, warden: Served,
                                                          upstream: Served) -> None:
    """A 2026-revision call's Mcp-Param-* headers are checked against the schema last listed to the tenant, not by
    listing every tool again per call (which would reach every upstream and audit a listing the client never
    made); a header that disagrees with the body is still refused."""
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, upstream)
    async with warden_client(warden.base, issued.api_key) as client:
        assert client.protocol_version in MODERN_PROTOCOL_VERSIONS
        await client.list_tools()
        for region in ("eu", "us", "ap"):
            routed = await client.call_tool("tools__route", {"region": region})
            assert not routed.is_error and f"routed to {region}" in json.dumps(routed.model_dump(mode="json"))
        assert not (await client.call_tool("tools__add", {"a": 1, "b": 2})).is_error
        version = client.protocol_version
    audit_rows(db, tenant_id, "mcp.tools/call", 4)
    assert len(audit_rows(db, tenant_id, "mcp.tools/list", 1)) == 1
    mismatched = httpx.post(f"{warden.base}/mcp", timeout=30, json={
        "jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "tools__route", "arguments": {"region": "eu"},
            "_meta": {"io.modelcontextprotocol/protocolVersion": version,
                      "io.modelcontextprotocol/clientCapabilities": {}}}},
        headers={"Authorization": f"Bearer {issued.api_key}", "Mcp-Protocol-Version": version,
                 "Mcp-Method": "tools/call", "Mcp-Name": "tools__route", "Mcp-Param-Region": "us",
                 "Accept": "application/json, text/event-stream"})
    assert mismatched.status_code == 400, mismatched.text
    assert mismatched.json()["error"]["code"] == HEADER_MISMATCH
