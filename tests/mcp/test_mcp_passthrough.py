"""Resources and prompts of the tenant's allowed upstreams through Warden: namespaced, screened like tool results
(PII masked, injections blocked per the tool policy), refused for servers the policy does not allow, audited."""

from __future__ import annotations

import json
import time

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import Served, tenant_with_upstream, warden_client
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from sqlalchemy import select

from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.mcp.passthrough import namespaced_template, namespaced_uri, split_uri

RAW_EMAIL = "jane.doe@example.com"


def _endpoints(db: Database, tenant_id: str, count: int) -> list[tuple[str, int]]:
    deadline = time.monotonic() + 20
    while True:
        with db.session() as session:
            rows = [(row.endpoint, row.http_status) for row in session.scalars(
                select(AuditRecord).where(AuditRecord.chain_id == tenant_id, AuditRecord.endpoint.startswith("mcp."))
                .order_by(AuditRecord.seq))]
        if len(rows) >= count or time.monotonic() > deadline:
            return rows
        time.sleep(0.05)


def test_resource_uris_round_trip_and_foreign_ones_are_not_warden_s() -> None:
    uri = namespaced_uri("tools", "file:///a b/c?d=1#e")
    assert split_uri(uri) == ("tools", "file:///a b/c?d=1#e")
    assert split_uri("file:///customers/c9.txt") is None and split_uri("warden://tools/") is None


async def test_resources_and_prompts_are_passed_through_screened_and_audited(
        db: Database, warden_settings: Settings, warden: Served, upstream: Served) -> None:
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, upstream,
                                             {"tools": {"result_injection": "block"}}, timeout_s=10.0)
    async with warden_client(warden.base, issued.api_key) as client:
        resources = {resource.name: resource.uri for resource in (await client.list_resources()).resources}
        assert resources["tools__customer_file"] == namespaced_uri("tools", "file:///customers/c9.txt")
        read = await client.read_resource(resources["tools__customer_file"])
        text = json.dumps(read.model_dump(mode="json"))
        assert RAW_EMAIL not in text and "EMAIL_ADDRESS" in text
        with pytest.raises(MCPError, match="blocked"):
            await client.read_resource(resources["tools__web_page"])

        prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
        assert "tools__summarize" in prompts
        prompt = await client.get_prompt("tools__summarize", {"topic": "the ticket"})
        text = json.dumps(prompt.model_dump(mode="json"))
        assert "the ticket" in text and RAW_EMAIL not in text
        with pytest.raises(MCPError, match="unknown"):
            await client.get_prompt("elsewhere__summarize", {"topic": "x"})
    assert _endpoints(db, tenant_id, 6) == [
        ("mcp.resources/list", 200), ("mcp.resources/read", 200), ("mcp.resources/read", 422),
        ("mcp.prompts/list", 200), ("mcp.prompts/get", 200), ("mcp.prompts/get", 404)]


async def test_a_server_the_policy_does_not_allow_offers_nothing(db: Database, warden_settings: Settings,
                                                                  warden: Served, upstream: Served) -> None:
    _, issued = tenant_with_upstream(db, warden_settings, warden, upstream, {"tools": {"allowed_servers": ["other"]}},
                                     timeout_s=10.0)
    async with warden_client(warden.base, issued.api_key) as client:
        assert (await client.list_resources()).resources == []
        assert (await client.list_prompts()).prompts == []
        with pytest.raises(MCPError, match="unknown"):
            await client.read_resource(namespaced_uri("tools", "file:///customers/c9.txt"))


def test_a_template_expands_to_a_warden_uri_that_maps_back_to_the_upstreams_expansion() -> None:
    template = namespaced_template("tools", "file:///notes/{name}.txt")
    assert template == "warden://tools/file%3A%2F%2F%2Fnotes%2F{name}.txt"
    expanded = template.replace("{name}", "q3-report")  # what a client's RFC 6570 expansion of {name} gives
    assert split_uri(expanded) == ("tools", "file:///notes/q3-report.txt")
    assert namespaced_template("tools", "db://{+path}{?a,b}") == "warden://tools/db%3A%2F%2F{+path}{?a,b}"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_resource_templates_are_listed_namespaced_and_their_expansions_read(
        db: Database, warden_settings: Settings, warden: Served, upstream: Served, mode: str) -> None:
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, upstream, timeout_s=10.0)
    async with warden_client(warden.base, issued.api_key, mode=mode) as client:
        templates = {template.name: template.uri_template
                     for template in (await client.list_resource_templates()).resource_templates}
        assert templates == {"tools__note": namespaced_template("tools", "file:///notes/{name}.txt")}
        read = await client.read_resource(templates["tools__note"].replace("{name}", "q3"))
    text = json.dumps(read.model_dump(mode="json"))
    assert "note q3" in text and RAW_EMAIL not in text  # screened like any resource
    assert read.contents[0].uri == namespaced_uri("tools", "file:///notes/q3.txt")
    assert _endpoints(db, tenant_id, 2) == [("mcp.resources/templates/list", 200), ("mcp.resources/read", 200)]


@pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")  # the handshake era's own methods
async def test_handshake_era_subscriptions_are_refused_clearly_and_never_advertised(
        db: Database, warden_settings: Settings, warden: Served, upstream: Served) -> None:
    """Change notifications are relayed over ``subscriptions/listen`` only (tests/mcp/test_mcp_change_relay.py):
    a handshake-era session is offered none and told so when it subscribes."""
    _, issued = tenant_with_upstream(db, warden_settings, warden, upstream, timeout_s=10.0)
    uri = namespaced_uri("tools", "file:///customers/c9.txt")
    async with warden_client(warden.base, issued.api_key, mode="legacy") as client:
        assert client.protocol_version not in MODERN_PROTOCOL_VERSIONS
        capabilities = client.server_capabilities
        assert capabilities.resources is not None and not capabilities.resources.subscribe
        assert not capabilities.resources.list_changed and not (capabilities.tools and capabilities.tools.list_changed)
        assert not (capabilities.prompts and capabilities.prompts.list_changed)
        with anyio.fail_after(10):  # refused at once, never left waiting
            for send in (client.session.subscribe_resource, client.session.unsubscribe_resource):
                with pytest.raises(MCPError, match="only over subscriptions/listen"):
                    await send(uri)
