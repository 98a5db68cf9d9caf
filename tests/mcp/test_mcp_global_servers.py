"""Global upstream servers: registered by a platform admin for every tenant, offered where the tenant's tool policy
allows them, shadowed for one tenant by a server of its own with the same name; the schema that holds them."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from admin_support import auth, token_for
from alembic import command
from gateway_support import fresh_postgres_database, new_tenant_with_key, unique_name
from mcp_support import UPSTREAM_TOKEN, Served, audit_rows, tenant_with_upstream, warden_client
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from gateway.adminauth.roles import Role
from gateway.core.db import Database
from gateway.core.migrate import alembic_config, upgrade_database
from gateway.core.settings import Settings
from gateway.mcp.models import McpServer
from gateway.policystore.service import publish_policy
from gateway.tenants.service import create_tenant

GLOBAL_URL = "/admin/v1/mcp-servers"


def _call(method: str, url: str, headers: dict[str, str], body: dict[str, Any] | None = None) -> httpx.Response:
    return httpx.request(method, url, json=body, headers=headers, timeout=30)


def _code(result: Any) -> str | None:
    return (result.meta or {}).get("warden/error") if result.is_error else None


@pytest.fixture
def global_name(warden: Served, warden_settings: Settings) -> Iterator[str]:
    """A fresh global server name, its record deleted after the test (the other tests' tenants see global servers)."""
    name = f"g-{uuid.uuid4().hex[:8]}"
    yield name
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    _call("DELETE", f"{warden.base}{GLOBAL_URL}/{name}", platform)


def _tool_call_decision(db: Database, tenant_id: str) -> dict[str, Any]:
    rows = audit_rows(db, tenant_id, "mcp.tools/call", 1)
    assert rows, "no audit record of the tool call"
    return next(d for d in rows[-1].decisions if d.get("stage") == "tool_call")


async def test_a_global_server_serves_every_tenant_its_policy_allows(db: Database, warden_settings: Settings,
                                                                     warden: Served, upstream: Served,
                                                                     global_name: str) -> None:
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    created = _call("POST", f"{warden.base}{GLOBAL_URL}", platform,
                    {"name": global_name, "url": f"{upstream.base}/mcp", "allow_private_network": True})
    assert created.status_code == 201, created.text
    assert created.json()["scope"] == "global" and created.json()["version"] == 1

    allowed, allowed_key = new_tenant_with_key(db, warden_settings)
    barred, barred_key = new_tenant_with_key(db, warden_settings)
    with db.transaction() as session:
        publish_policy(barred.id, {"tools": {"allowed_servers": ["tools"]}}, session=session)
    async with warden_client(warden.base, allowed_key.api_key) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        result = await client.call_tool(f"{global_name}__add", {"a": 2, "b": 3})
        resources = {resource.name for resource in (await client.list_resources()).resources}
        prompt = await client.get_prompt(f"{global_name}__summarize", {"topic": "the ticket"})
    assert f"{global_name}__add" in names
    assert f"{global_name}__customer_file" in resources and prompt.messages  # resources and prompts too
    assert not result.is_error
    decision = _tool_call_decision(db, allowed.id)
    assert (decision["server"], decision["server_scope"], decision["status"]) == (global_name, "global", "ok")

    async with warden_client(warden.base, barred_key.api_key) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        refused = await client.call_tool(f"{global_name}__add", {"a": 2, "b": 3})
    assert not any(name.startswith(f"{global_name}__") for name in names)
    assert _code(refused) == "denied"

    # The global record does not appear in a tenant's own registry.
    own = _call("GET", f"{warden.base}/admin/v1/tenants/{allowed.id}/mcp-servers", platform).json()
    assert all(view["name"] != global_name for view in own)
    # A deleted global server is gone for everyone.
    assert _call("DELETE", f"{warden.base}{GLOBAL_URL}/{global_name}", platform).status_code == 204
    async with warden_client(warden.base, allowed_key.api_key) as client:
        assert _code(await client.call_tool(f"{global_name}__add", {"a": 2, "b": 3})) == "unknown_tool"


async def test_a_tenants_own_server_shadows_a_global_one_of_the_same_name(db: Database, warden_settings: Settings,
                                                                          warden: Served, upstream: Served,
                                                                          global_name: str) -> None:
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    created = _call("POST", f"{warden.base}{GLOBAL_URL}", platform,
                    {"name": global_name, "url": f"{upstream.base}/mcp", "allow_private_network": True})
    assert created.status_code == 201, created.text
    shadowing, shadowing_key = tenant_with_upstream(db, warden_settings, warden, upstream, name=global_name)
    other, other_key = new_tenant_with_key(db, warden_settings)
    for tenant_id, api_key, scope in ((shadowing, shadowing_key.api_key, "tenant"),
                                      (other.id, other_key.api_key, "global")):
        async with warden_client(warden.base, api_key) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            assert not (await client.call_tool(f"{global_name}__add", {"a": 1, "b": 1})).is_error
        assert names.count(f"{global_name}__add") == 1  # one server per name, never both
        assert _tool_call_decision(db, tenant_id)["server_scope"] == scope


async def test_global_credentials_are_sealed_and_sent(db: Database, warden_settings: Settings, warden: Served,
                                                      guarded_upstream: Served, global_name: str) -> None:
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    created = _call("POST", f"{warden.base}{GLOBAL_URL}", platform,
                    {"name": global_name, "url": f"{guarded_upstream.base}/mcp", "allow_private_network": True,
                     "credentials": {"headers": {"Authorization": f"Bearer {UPSTREAM_TOKEN}"}}})
    assert created.status_code == 201 and created.json()["has_credentials"] is True
    assert UPSTREAM_TOKEN not in created.text
    with db.session() as session:
        blob = session.scalars(select(McpServer.credentials).where(McpServer.tenant_id.is_(None),
                                                                   McpServer.name == global_name)).one()
    assert blob is not None and UPSTREAM_TOKEN.encode() not in blob
    _, issued = new_tenant_with_key(db, warden_settings)
    async with warden_client(warden.base, issued.api_key) as client:
        assert not (await client.call_tool(f"{global_name}__add", {"a": 1, "b": 1})).is_error


def test_only_a_platform_admin_writes_the_global_registry(db: Database, warden_settings: Settings, warden: Served,
                                                          global_name: str) -> None:
    tenant, _ = new_tenant_with_key(db, warden_settings)
    tenant_admin = auth(token_for(warden_settings, Role.TENANT_ADMIN, tenant.id))
    auditor = auth(token_for(warden_settings, Role.AUDITOR, tenant.id))
    platform = auth(token_for(warden_settings, Role.PLATFORM_ADMIN))
    body = {"name": global_name, "url": "https://example.com/mcp"}
    refused = _call("POST", f"{warden.base}{GLOBAL_URL}", tenant_admin, body)
    assert refused.status_code == 403
    assert set(refused.json()["error"]) == {"message", "type", "param", "code"}
    assert _call("POST", f"{warden.base}{GLOBAL_URL}", platform, body).status_code == 201
    assert _call("POST", f"{warden.base}{GLOBAL_URL}", platform, body).status_code == 409
    assert _call("PATCH", f"{warden.base}{GLOBAL_URL}/{global_name}", tenant_admin, {"timeout_s": 3}).status_code == 403
    assert _call("DELETE", f"{warden.base}{GLOBAL_URL}/{global_name}", tenant_admin).status_code == 403
    assert _call("GET", f"{warden.base}{GLOBAL_URL}", auditor).status_code == 403
    # Tenant admins read it (what their tenants are offered); credentials never appear.
    listed = _call("GET", f"{warden.base}{GLOBAL_URL}", tenant_admin).json()
    assert [view["scope"] for view in listed if view["name"] == global_name] == ["global"]
    assert _call("PATCH", f"{warden.base}{GLOBAL_URL}/{global_name}", platform, {"timeout_s": 3}).status_code == 200
    versions = _call("GET", f"{warden.base}{GLOBAL_URL}/{global_name}/versions", tenant_admin).json()
    assert [(view["version"], view["timeout_s"]) for view in versions] == [(1, 10.0), (2, 3.0)]
    assert _call("GET", f"{warden.base}{GLOBAL_URL}/nope-{global_name}", platform).status_code == 404


def test_the_schema_keeps_one_current_global_record_per_name(db: Database) -> None:
    name = f"g-{uuid.uuid4().hex[:8]}"

    def row(version: int) -> McpServer:
        return McpServer(tenant_id=None, name=name, version=version, url="https://example.com/mcp", credentials=None,
                         timeout_s=1.0, allow_private_network=False, deleted=True, is_current=True,
                         created_by="test")

    with db.transaction() as session:
        session.add(row(1))
    for version in (2, 1):  # a second current version, and a repeated version number
        with pytest.raises(IntegrityError), db.transaction() as session:
            duplicate = row(version)
            duplicate.is_current = version == 2
            session.add(duplicate)
            session.flush()


@pytest.fixture
def scratch_url(tmp_path: Path) -> Iterator[str]:
    """An empty database of the backend under test, for migrating up and down."""
    base = os.environ.get("WARDEN_DATABASE_URL", "")
    if base.startswith(("postgresql", "postgres")):
        yield from fresh_postgres_database(base, "warden_mcp_mig")
        return
    yield f"sqlite:///{tmp_path / 'migrations.db'}"


def test_migration_0007_round_trips(scratch_url: str) -> None:
    upgrade_database(scratch_url, "0006")
    db = Database(scratch_url)
    try:
        with db.transaction() as session:
            tenant_id = create_tenant(unique_name("mig"), session=session).id
            session.execute(McpServer.__table__.insert().values(
                tenant_id=tenant_id, name="tools", version=1, url="https://example.com/mcp", timeout_s=1.0,
                allow_private_network=False, deleted=False, is_current=True, created_by="test"))
    finally:
        db.dispose()
    upgrade_database(scratch_url)
    db = Database(scratch_url)
    try:
        with db.transaction() as session:
            session.add(McpServer(tenant_id=None, name="tools", version=1, url="https://example.com/mcp",
                                  timeout_s=1.0, allow_private_network=False, deleted=False, is_current=True,
                                  created_by="test"))
    finally:
        db.dispose()
    command.downgrade(alembic_config(scratch_url), "0006")
    db = Database(scratch_url)
    try:
        with db.session() as session:  # the global record went with the schema that held it; the tenant's stayed
            assert session.scalar(select(func.count()).select_from(McpServer.__table__)) == 1
    finally:
        db.dispose()
    upgrade_database(scratch_url)
