"""WARDEN_MCP_SESSION_IDLE_S: a handshake-era /mcp session unused that long is closed, and its id then answers 404;
one in use stays open."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from gateway_support import new_tenant_with_key
from mcp_support import Served, serve

from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.settings import Settings

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
IDLE_S = 1.0


@pytest.fixture
def short_idle_warden(warden_settings: Settings) -> Iterator[Served]:
    served = serve(create_app(warden_settings.model_copy(update={"mcp_session_idle_s": IDLE_S}), start_engine=False))
    yield served
    served.stop()


def _post(client: httpx.Client, base: str, body: dict[str, object], session: str | None = None) -> httpx.Response:
    headers = {**HEADERS, **({"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-11-25"} if session else {})}
    return client.post(f"{base}/mcp", json=body, headers=headers, timeout=30)


def test_an_idle_session_is_closed_after_the_setting_and_a_used_one_is_not(
        db: Database, warden_settings: Settings, short_idle_warden: Served) -> None:
    _, issued = new_tenant_with_key(db, warden_settings)
    base = short_idle_warden.base
    with httpx.Client(headers={"Authorization": f"Bearer {issued.api_key}"}) as client:
        opened = _post(client, base, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        assert _post(client, base, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                     session).status_code == 202
        for _ in range(3):  # used more often than the idle time: kept
            time.sleep(IDLE_S / 2)
            assert _post(client, base, {"jsonrpc": "2.0", "id": 2, "method": "ping"}, session).status_code == 200
        time.sleep(IDLE_S * 2.5)
        assert _post(client, base, {"jsonrpc": "2.0", "id": 3, "method": "ping"}, session).status_code == 404
