"""``warden db upgrade`` under Postgres's advisory lock: concurrent runs (a Helm hook Job and its retry, pods
starting together) apply every migration exactly once, and a run waits while another holds the lock. Needs
Postgres (WARDEN_DATABASE_URL)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from gateway_support import fresh_postgres_database
from sqlalchemy import URL, create_engine, inspect, make_url, text

from gateway.core.db import normalize_database_url
from gateway.core.migrate import MIGRATION_LOCK_KEY, alembic_config

BASE_URL = os.environ.get("WARDEN_DATABASE_URL", "")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not BASE_URL.startswith(("postgresql", "postgres")), reason="needs Postgres"),
]
WARDEN = str(Path(sys.executable).with_name("warden"))


@pytest.fixture
def fresh_url() -> Iterator[str]:
    yield from fresh_postgres_database(BASE_URL, "warden_lock")


def _upgrade(url: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "WARDEN_DATABASE_URL": url, "WARDEN_LOG_FORMAT": "none"}
    return subprocess.Popen([WARDEN, "db", "upgrade", *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _head(url: str) -> str:
    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    assert head is not None
    return head


def test_four_concurrent_upgrades_apply_each_migration_once(fresh_url: str) -> None:
    runs = [_upgrade(fresh_url) for _ in range(4)]
    results = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0] * 4, [err[-2000:] for _, err in results]
    engine = create_engine(normalize_database_url(fresh_url))
    try:
        with engine.connect() as conn:
            versions = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
            tables = set(inspect(conn).get_table_names())
    finally:
        engine.dispose()
    assert versions == [_head(fresh_url)]  # one row, at head: no run re-applied or skipped a step
    assert {"tenants", "api_keys", "audit_records"} <= tables


def test_an_upgrade_waits_while_another_holds_the_lock(fresh_url: str) -> None:
    holder = create_engine(normalize_database_url(fresh_url), isolation_level="AUTOCOMMIT")
    try:
        with holder.connect() as conn:
            conn.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            run = _upgrade(fresh_url)
            time.sleep(4.0)  # long enough for an unlocked run to have created its first tables
            assert run.poll() is None, run.communicate()[1][-2000:]
            assert "alembic_version" not in inspect(conn).get_table_names()
            conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
            _, err = run.communicate(timeout=120)
            assert run.returncode == 0, err[-2000:]
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar_one() == _head(fresh_url)
    finally:
        holder.dispose()


def test_an_unreachable_database_fails_after_the_wait_without_its_password() -> None:
    url = "postgresql+psycopg://warden:hunter2-not-logged@127.0.0.1:1/warden"
    started = time.monotonic()
    run = _upgrade(url, "--wait-s", "2")
    out, err = run.communicate(timeout=60)
    assert run.returncode == 1
    assert "did not accept a connection within 2s" in err
    assert "hunter2" not in out + err
    assert time.monotonic() - started >= 2.0


def test_the_password_comes_from_pgpassword_not_the_url(fresh_url: str) -> None:
    """The chart's shape: WARDEN_DATABASE_URL without credentials, the password from a Secret as PGPASSWORD."""
    url = make_url(normalize_database_url(fresh_url))
    assert url.password, "the test database URL should carry the password this test moves out of it"
    without_password = URL.create(url.drivername, username=url.username, host=url.host, port=url.port,
                                  database=url.database).render_as_string(hide_password=False)
    assert make_url(without_password).password is None
    env = {**os.environ, "WARDEN_DATABASE_URL": without_password, "WARDEN_LOG_FORMAT": "none"}
    wrong = subprocess.run([WARDEN, "db", "upgrade"], env={**env, "PGPASSWORD": "not-the-password"},
                           capture_output=True, text=True, timeout=120)
    assert wrong.returncode != 0 and "not-the-password" not in wrong.stdout + wrong.stderr
    right = subprocess.run([WARDEN, "db", "upgrade"], env={**env, "PGPASSWORD": str(url.password)},
                           capture_output=True, text=True, timeout=120)
    assert right.returncode == 0, right.stderr[-2000:]
