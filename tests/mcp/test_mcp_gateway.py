"""Warden's /mcp endpoint end to end: the official SDK as the client and as the upstream servers, on loopback."""

from __future__ import annotations

import json
import time
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest
from admin_support import auth, token_for
from gateway_support import new_tenant_with_key
from mcp_support import (
    LEAK_TEXT,
    Served,
    audit_rows,
    serve,
    tenant_with_upstream,
    upstream_app,
    verified_export,
    warden_client,
)
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from gateway.adminauth.roles import Role
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.policystore.service import publish_policy


def _register(warden: Served, settings: Settings, tenant_id: str, name: str, url: str, **fields: Any) -> httpx.Response:
    body = {"name": name, "url": url, "allow_private_network": True, "timeout_s": 5.0, **fields}
    return httpx.post(f"{warden.base}/admin/v1/tenants/{tenant_id}/mcp-servers", json=body,
                      headers=auth(token_for(settings, Role.PLATFORM_ADMIN)), timeout=30)


# A tenant with the upstream registered as "tools", with a short upstream timeout (the fault tests wait on it).
_tenant = partial(tenant_with_upstream, timeout_s=5.0)


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


async def test_a_denied_tool_is_neither_listed_nor_run(db: Database, warden_settings: Settings, warden: Served,
                                                       upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream,
                        {"tools": {"denied_tools": ["tools__delete_*"]}})
    async with warden_client(warden.base, issued.api_key) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool("tools__delete_repo", {"repo": "prod"})
    assert "tools__delete_repo" not in names and "tools__add" in names
    assert _error_code(result) == "denied"
    assert "deleted" not in _text(result)


async def test_allow_list_and_key_override(db: Database, warden_settings: Settings, warden: Served,
                                           upstream: Served) -> None:
    tenant, issued = new_tenant_with_key(db, warden_settings)
    assert _register(warden, warden_settings, tenant.id, "tools", f"{upstream.base}/mcp").status_code == 201
    with db.transaction() as session:
        publish_policy(tenant.id, {"tools": {"allowed_tools": ["tools__add", "tools__echo"]},
                                   "key_overrides": {issued.key_id: {"tools": {"allowed_tools": ["tools__echo"]}}}},
                       session=session)
    async with warden_client(warden.base, issued.api_key) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        refused = await client.call_tool("tools__add", {"a": 1, "b": 1})
    assert names == {"tools__echo"}
    assert _error_code(refused) == "denied"


async def test_arguments_violating_the_policy_constraint_are_refused(db: Database, warden_settings: Settings,
                                                                     warden: Served, upstream: Served) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "integer", "maximum": 100}}, "required": ["a"]}
    _, issued = _tenant(db, warden_settings, warden, upstream,
                        {"tools": {"rules": {"tools__add": {"arguments_schema": schema}}}})
    async with warden_client(warden.base, issued.api_key) as client:
        refused = await client.call_tool("tools__add", {"a": 1000, "b": 1})
        allowed = await client.call_tool("tools__add", {"a": 99, "b": 1})
    assert _error_code(refused) == "invalid_arguments"
    assert "maximum" in _text(refused) or "100" in _text(refused)
    assert _text(allowed) == "100"


async def test_a_tool_needing_approval_runs_only_with_the_approval_flag(db: Database, warden_settings: Settings,
                                                                        warden: Served, upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream,
                        {"tools": {"rules": {"tools__delete_*": {"requires_approval": True}}}})
    async with warden_client(warden.base, issued.api_key) as client:
        refused = await client.call_tool("tools__delete_repo", {"repo": "scratch"})
        wrong_flag = await client.call_tool("tools__delete_repo", {"repo": "scratch"}, meta={"warden/approved": "yes"})
        approved = await client.call_tool("tools__delete_repo", {"repo": "scratch"}, meta={"warden/approved": True})
    assert _error_code(refused) == "approval_required" and _error_code(wrong_flag) == "approval_required"
    assert _text(approved) == "deleted scratch"


@pytest.mark.parametrize("action", ["flag", "block"])
async def test_an_injection_in_a_tool_result_is_flagged_or_blocked(db: Database, warden_settings: Settings,
                                                                   warden: Served, upstream: Served,
                                                                   action: str) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream, {"tools": {"result_injection": action}})
    async with warden_client(warden.base, issued.api_key) as client:
        result = await client.call_tool("tools__fetch_page", {"url": "https://example.com"})
        clean = await client.call_tool("tools__echo", {"text": "The weather in Paris is sunny."})
    if action == "block":
        assert _error_code(result) == "result_blocked"
        assert "Ignore all previous instructions" not in _text(result)
    else:
        assert not result.is_error and (result.meta or {}).get("warden/injection_flagged") is True
    assert not clean.is_error and "warden/injection_flagged" not in (clean.meta or {})


async def test_a_result_over_the_size_cap_is_refused(db: Database, warden_settings: Settings, warden: Served,
                                                     upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream, {"tools": {"max_result_bytes": 4096}})
    async with warden_client(warden.base, issued.api_key) as client:
        small = await client.call_tool("tools__big", {"size": 100})
        large = await client.call_tool("tools__big", {"size": 20_000})
    assert not small.is_error
    assert _error_code(large) == "result_too_large"


async def test_per_tool_rate_limit(db: Database, warden_settings: Settings, warden: Served, upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream,
                        {"tools": {"rules": {"tools__echo": {"calls_per_minute": 2}}}})
    async with warden_client(warden.base, issued.api_key) as client:
        results = [await client.call_tool("tools__echo", {"text": f"call {i}"}) for i in range(3)]
        other = await client.call_tool("tools__add", {"a": 1, "b": 2})
    assert [_error_code(result) for result in results] == [None, None, "rate_limited"]
    assert not other.is_error


async def test_upstream_faults_become_mcp_errors(db: Database, warden_settings: Settings, warden: Served,
                                                 upstream: Served, malformed_upstream: Served) -> None:
    tenant_id, issued = _tenant(db, warden_settings, warden, upstream)
    dead_port = malformed_upstream.port + 1 if malformed_upstream.port < 65535 else 1
    assert _register(warden, warden_settings, tenant_id, "down", f"http://127.0.0.1:{dead_port}/mcp").status_code \
        == 201
    assert _register(warden, warden_settings, tenant_id, "garbage",
                     f"{malformed_upstream.base}/mcp").status_code == 201
    assert _register(warden, warden_settings, tenant_id, "slowpoke", f"{upstream.base}/mcp",
                     timeout_s=0.5).status_code == 201
    async with warden_client(warden.base, issued.api_key) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}  # the broken ones are left out
        down = await client.call_tool("down__add", {"a": 1, "b": 1})
        garbage = await client.call_tool("garbage__add", {"a": 1, "b": 1})
        started = time.monotonic()
        slow = await client.call_tool("slowpoke__slow", {"seconds": 10})
        slow_s = time.monotonic() - started
        unknown = await client.call_tool("tools__no_such_tool", {})
        still_fine = await client.call_tool("tools__add", {"a": 1, "b": 1})
    assert "tools__add" in names and not any(name.startswith(("down__", "garbage__")) for name in names)
    assert _error_code(down) == "upstream_unavailable"
    assert _error_code(garbage) == "upstream_unavailable"
    assert _error_code(slow) == "upstream_timeout" and slow_s < 3.0
    assert unknown.is_error and "no_such_tool" in _text(unknown)  # the upstream's own answer, passed on
    assert _text(still_fine) == "2"


async def test_another_tenants_key_reaches_none_of_its_servers(db: Database, warden_settings: Settings,
                                                                warden: Served, upstream: Served) -> None:
    _tenant(db, warden_settings, warden, upstream)
    _, outsider = new_tenant_with_key(db, warden_settings)
    async with warden_client(warden.base, outsider.api_key) as client:
        tools = (await client.list_tools()).tools
        result = await client.call_tool("tools__add", {"a": 1, "b": 1})
    assert tools == []
    assert _error_code(result) == "unknown_tool"


def _initialize(base: str, api_key: str) -> str:
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}}}
    response = httpx.post(f"{base}/mcp", json=body, timeout=30,
                          headers={"Authorization": f"Bearer {api_key}", "MCP-Protocol-Version": "2025-11-25",
                                   "Accept": "application/json, text/event-stream"})
    assert response.status_code == 200, response.text
    return response.headers["mcp-session-id"]


def test_a_session_id_is_bound_to_the_key_that_opened_it(db: Database, warden_settings: Settings, warden: Served,
                                                         upstream: Served) -> None:
    _, owner = _tenant(db, warden_settings, warden, upstream)
    _, other = new_tenant_with_key(db, warden_settings)
    session_id = _initialize(warden.base, owner.api_key)
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25",
               "Mcp-Session-Id": session_id}
    stolen = httpx.post(f"{warden.base}/mcp", json=listing, timeout=30,
                        headers={**headers, "Authorization": f"Bearer {other.api_key}"})
    assert stolen.status_code == 404
    anonymous = httpx.post(f"{warden.base}/mcp", json=listing, timeout=30, headers=headers)
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["type"] == "authentication_error"
    assert "tools__add" not in stolen.text


def test_requests_without_a_valid_key_are_refused(warden: Served) -> None:
    for headers in ({}, {"Authorization": "Bearer wdn_nope"}, {"Authorization": "Basic abc"}):
        response = httpx.post(f"{warden.base}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                              headers=headers, timeout=30)
        assert response.status_code == 401
        assert set(response.json()["error"]) == {"message", "type", "param", "code"}


async def test_every_call_is_in_the_tenants_verified_audit_chain(db: Database, warden_settings: Settings,
                                                                 warden: Served, upstream: Served,
                                                                 tmp_path: Path) -> None:
    tenant_id, issued = _tenant(db, warden_settings, warden, upstream, {"tools": {"denied_tools": ["tools__delete_*"]}})
    async with warden_client(warden.base, issued.api_key) as client:
        await client.call_tool("tools__add", {"a": 1, "b": 2})
        await client.call_tool("tools__delete_repo", {"repo": "prod"})
        await client.call_tool("tools__lookup_customer", {"customer_id": "c9"})
    rows = audit_rows(db, tenant_id, "mcp.tools/call", 3)
    assert [row.http_status for row in rows] == [200, 403, 200]
    calls = [next(d for d in row.decisions if d["stage"] == "tool_call") for row in rows]
    assert [(c["server"], c["tool"], c["status"]) for c in calls] == [
        ("tools", "add", "ok"), ("tools", "delete_repo", "denied"), ("tools", "lookup_customer", "ok")]
    assert all(len(c["arguments_sha256"]) == 64 for c in calls)
    assert calls[0]["result_bytes"] > 0 and calls[1]["result_bytes"] is None
    assert all(row.key_id == issued.key_id and row.model.startswith("tools__") for row in rows)
    assert "jane.doe" not in json.dumps([row.decisions for row in rows])

    exported = verified_export(warden, warden_settings, tenant_id, tmp_path / "export.jsonl")
    lines = [json.loads(line) for line in exported.splitlines()]
    assert sum(1 for line in lines if line.get("endpoint") == "mcp.tools/call") == 3


async def test_arguments_are_masked_before_they_leave_when_the_policy_asks(db: Database, warden_settings: Settings,
                                                                          warden: Served, upstream: Served) -> None:
    text = "Please write to jane.doe@example.com about the invoice."
    _, masking = _tenant(db, warden_settings, warden, upstream,
                         {"tools": {"mask_argument_pii": True, "mask_result_pii": False}})
    _, passing = _tenant(db, warden_settings, warden, upstream, {"tools": {"mask_result_pii": False}})
    async with warden_client(warden.base, masking.api_key) as client:
        masked = await client.call_tool("tools__echo", {"text": text})
    async with warden_client(warden.base, passing.api_key) as client:
        unmasked = await client.call_tool("tools__echo", {"text": text})
    # The upstream echoes what it received; results are not screened here, so this is what left Warden.
    assert "jane.doe@example.com" not in _text(masked) and "<EMAIL_ADDRESS>" in _text(masked)
    assert _text(unmasked) == text


async def test_an_invalid_constraint_in_the_policy_fails_closed(db: Database, warden_settings: Settings,
                                                                warden: Served, upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream,
                        {"tools": {"rules": {"tools__add": {"arguments_schema": {"type": "no-such-type"}}}}})
    async with warden_client(warden.base, issued.api_key) as client:
        result = await client.call_tool("tools__add", {"a": 1, "b": 2})
    assert _error_code(result) == "policy_invalid"
    assert "3" not in _text(result)


async def test_an_oversize_upstream_response_is_cut_off_not_buffered(db: Database, warden_settings: Settings,
                                                                     warden: Served, upstream: Served) -> None:
    _, issued = _tenant(db, warden_settings, warden, upstream)
    size = warden_settings.max_body_bytes + 1_000_000  # past what Warden reads from an upstream
    async with warden_client(warden.base, issued.api_key) as client:
        cut = await client.call_tool("tools__big", {"size": size})
        after = await client.call_tool("tools__add", {"a": 2, "b": 2})
    assert _error_code(cut) == "upstream_unavailable" and "larger than" in _text(cut)
    assert _text(after) == "4"


async def test_a_redirect_to_an_unregistered_host_is_not_followed(db: Database, warden_settings: Settings,
                                                                   warden: Served) -> None:
    """An upstream that answers with a redirect to another origin (here another loopback port serving a real MCP
    server) gets an MCP error for the call; the redirect's target never sees a request."""
    reached: list[str] = []
    inner = upstream_app("target")

    async def target(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            reached.append(scope["method"])
        await inner(scope, receive, send)

    async def redirect(request: Request) -> Response:
        return RedirectResponse(f"{target_served.base}/mcp", status_code=307)

    target_served = serve(target)
    redirector = serve(Starlette(routes=[Route("/mcp", redirect, methods=["GET", "POST", "DELETE"])]))
    try:
        tenant_id, issued = _tenant(db, warden_settings, warden, redirector)
        async with warden_client(warden.base, issued.api_key) as client:
            assert (await client.list_tools()).tools == []  # the server is left out of the listing
            result = await client.call_tool("tools__add", {"a": 1, "b": 1})
        assert _error_code(result) == "upstream_error" and "not followed" in _text(result), _text(result)
        assert reached == []
        [row] = audit_rows(db, tenant_id, "mcp.tools/call", 1)
        assert row.http_status == 502
    finally:
        redirector.stop()
        target_served.stop()
