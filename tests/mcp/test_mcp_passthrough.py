"""Resources and prompts of the tenant's allowed upstreams through Warden: namespaced, screened like tool results
(PII masked, injections blocked per the tool policy), refused for servers the policy does not allow, audited."""

from __future__ import annotations

import json
import time

import pytest
from mcp.shared.exceptions import MCPError
from mcp_support import Served, tenant_with_upstream, warden_client
from sqlalchemy import select

from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.mcp.passthrough import namespaced_uri, split_uri

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
