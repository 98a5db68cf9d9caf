"""A pod that does not migrate (``warden serve --no-migrate``) stays out of rotation until the migration Job has
brought its database to the schema it was built for: /readyz answers ``not_ready`` / ``schema`` against an empty
database or one at an older revision, and turns ready once the database is upgraded. A database migrated by newer
code (a rolling upgrade's Job runs before the old pods are replaced) keeps the old pods ready. Needs Postgres
(WARDEN_DATABASE_URL)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from fastapi.testclient import TestClient
from gateway_support import fresh_postgres_database, tiny_app_settings
from sqlalchemy import text

from gateway.app import create_app
from gateway.core.db import make_engine
from gateway.core.migrate import SchemaRevisionCheck, alembic_config, schema_is_behind, upgrade_database
from tests.engine.tiny_models import write_tiny_checkpoint

BASE_URL = os.environ.get("WARDEN_DATABASE_URL", "")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not BASE_URL.startswith(("postgresql", "postgres")), reason="needs Postgres"),
]


@pytest.fixture
def fresh_url() -> Iterator[str]:
    yield from fresh_postgres_database(BASE_URL, "warden_schema")


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("schema-model"))


def _older_revision() -> str:
    """The newest revision before the code's head."""
    scripts = ScriptDirectory.from_config(alembic_config(""))
    head = scripts.get_revision(scripts.get_current_head())
    assert isinstance(head.down_revision, str), "the head has one parent"
    return head.down_revision


def _behind(url: str) -> bool:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return schema_is_behind(connection)
    finally:
        engine.dispose()


def _readyz(client: TestClient) -> tuple[int, str]:
    response = client.get("/readyz")
    return response.status_code, response.json()["reason"]


@pytest.mark.slow  # a tiny checkpoint is written and an app with its engine starts: tens of seconds
def test_readiness_waits_for_the_migration(fresh_url: str, tiny_model: Path, tmp_path: Path) -> None:
    settings = tiny_app_settings(fresh_url, tiny_model, tmp_path / "data", "schema-secret", log_format="none",
                                 audit_checkpoint_interval_s=0.0, audit_maintenance_interval_s=0.0)
    with TestClient(create_app(settings)) as client:
        recheck_s = client.app.state.schema.recheck_s  # type: ignore[attr-defined]
        assert _readyz(client) == (503, "schema")  # no schema at all
        assert client.get("/healthz").status_code == 200  # liveness never depends on the database

        upgrade_database(fresh_url, _older_revision())
        time.sleep(recheck_s)
        assert _readyz(client) == (503, "schema")  # one migration behind

        upgrade_database(fresh_url)
        upgraded = time.monotonic()
        while _readyz(client) != (200, "ready"):  # at the next check, at most recheck_s later
            # bounded generously: a loaded machine may take seconds for one query
            assert time.monotonic() - upgraded < recheck_s + 15.0, "readiness did not follow the upgrade"
            time.sleep(0.05)


def test_a_revision_from_newer_code_is_not_behind(fresh_url: str) -> None:
    assert _behind(fresh_url)
    upgrade_database(fresh_url, _older_revision())
    assert _behind(fresh_url)
    upgrade_database(fresh_url)
    assert not _behind(fresh_url)
    engine = make_engine(fresh_url)
    try:
        with engine.begin() as connection:
            # What the next release's migration leaves: a revision this code has never seen.
            connection.execute(text("UPDATE alembic_version SET version_num = 'ffffffffffff'"))
    finally:
        engine.dispose()
    assert not _behind(fresh_url)


def test_the_check_is_cached_while_behind_and_never_repeated_once_current(fresh_url: str) -> None:
    engine = make_engine(fresh_url)
    try:
        hourly = SchemaRevisionCheck(engine, recheck_s=3600.0)
        assert not asyncio.run(hourly.is_current())
        upgrade_database(fresh_url)
        assert not asyncio.run(hourly.is_current())  # behind as of its last look, less than recheck_s ago
        check = SchemaRevisionCheck(engine)  # (asking again after recheck_s: test_readiness_waits_for_the_migration)
        assert asyncio.run(check.is_current())
        with engine.begin() as connection:
            connection.execute(text("DELETE FROM alembic_version"))
        assert asyncio.run(check.is_current())  # current once: never asked again
    finally:
        engine.dispose()


def test_an_unreachable_database_is_not_current_and_its_address_is_not_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    engine = make_engine("postgresql+psycopg://warden:hunter2@127.0.0.1:1/warden")
    try:
        with caplog.at_level(logging.WARNING, logger="gateway.core.migrate"):
            assert not asyncio.run(SchemaRevisionCheck(engine).is_current())
    finally:
        engine.dispose()
    assert "could not be read (OperationalError)" in caplog.text
    assert "hunter2" not in caplog.text and "127.0.0.1" not in caplog.text
