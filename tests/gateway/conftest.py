"""Fixtures for the gateway tests: a fresh, migrated database per session (SQLite locally, a new Postgres
database when WARDEN_DATABASE_URL points at a server), and settings that use it."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from gateway.core.db import Database, normalize_database_url
from gateway.core.migrate import upgrade_database
from gateway.core.settings import Settings


def _fresh_postgres_database(base_url: str) -> Iterator[str]:
    url = make_url(normalize_database_url(base_url))
    name = f"warden_gw_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A database nobody else uses, at the latest migration."""
    base = os.environ.get("WARDEN_DATABASE_URL", "")
    if base.startswith(("postgresql", "postgres")):
        for url in _fresh_postgres_database(base):
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


