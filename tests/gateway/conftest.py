"""Fixtures for the gateway tests: a fresh, migrated database per session (SQLite locally, a new Postgres
database when WARDEN_DATABASE_URL points at a server), and settings that use it."""

from __future__ import annotations

import os
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from gateway_support import fresh_postgres_database, new_tenant_with_key
from live_server import LiveServer, client_for, start_live_server

from gateway.core.db import Database
from gateway.core.migrate import upgrade_database
from gateway.core.settings import Settings


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database nobody else uses, at the latest migration."""
    base = os.environ.get("WARDEN_DATABASE_URL", "")
    if base.startswith(("postgresql", "postgres")):
        for url in fresh_postgres_database(base, "warden_gw"):
            upgrade_database(url)
            yield url
        return
    url = f"sqlite:///{tmp_path_factory.mktemp('db') / 'warden-test.db'}"
    upgrade_database(url)
    yield url


@pytest.fixture(scope="session")
def db(database_url: str) -> Iterator[Database]:
    database = Database(database_url)
    yield database
    database.dispose()


@pytest.fixture
def settings(database_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=database_url, data_dir=tmp_path / "data", server_secret="test-server-secret",
                    redis_url=None, key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05)


# The live HTTPS server with the real engine, shared by every live test module in the session.
@pytest.fixture(scope="session")
def live(database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    settings = Settings(database_url=database_url, data_dir=tmp_path_factory.mktemp("live"),
                        server_secret="live-test-secret", redis_url=None, engine_in_process=True,
                        key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05)
    server = start_live_server(settings)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def tls_context(live: LiveServer) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=str(live.cert))


@pytest.fixture(scope="session")
def model_id(live: LiveServer) -> str:
    return live.services.engine.model_name


@pytest.fixture
def tenant_client(live: LiveServer, db: Database, tls_context: ssl.SSLContext):  # type: ignore[no-untyped-def]
    tenant, issued = new_tenant_with_key(db, live.settings)
    return tenant, issued, client_for(live, tls_context, issued.api_key)
