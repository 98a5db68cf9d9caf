"""A restart against a database already at head skips Alembic: ``upgrade_database`` recognises it with one query
against the revision graph read from the scripts' text (no Alembic import, no advisory lock), and any other state
still takes Alembic's path. The graph read from text must equal Alembic's own. SQLite always; Postgres when
WARDEN_DATABASE_URL points at one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from gateway_support import fresh_postgres_database
from sqlalchemy import create_engine, text

from gateway.core.db import make_engine, normalize_database_url
from gateway.core.migrate import (
    MIGRATION_LOCK_KEY,
    MIGRATIONS_DIR,
    alembic_config,
    database_revisions,
    is_at_head,
    schema_is_behind,
    upgrade_database,
)
from gateway.core.revisions import ScriptRevisions, read_script_revisions

ROOT = Path(__file__).resolve().parents[2]
BASE_URL = os.environ.get("WARDEN_DATABASE_URL", "")


def _alembic_graph() -> ScriptRevisions:
    scripts = ScriptDirectory.from_config(alembic_config(""))
    return ScriptRevisions(revisions=frozenset(s.revision for s in scripts.walk_revisions()),
                           heads=frozenset(scripts.get_heads()))


def _revisions(url: str) -> frozenset[str]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return database_revisions(connection)
    finally:
        engine.dispose()


def _older_revision() -> str:
    scripts = ScriptDirectory.from_config(alembic_config(""))
    head = scripts.get_revision(scripts.get_current_head())
    assert isinstance(head.down_revision, str)
    return head.down_revision


def _upgrade_imports_alembic(url: str) -> bool:
    """Whether ``upgrade_database(url)`` in a fresh interpreter imports Alembic."""
    probe = ("import sys\nfrom gateway.core.migrate import upgrade_database\n"
             f"upgrade_database({url!r})\nprint('alembic' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120,
                            check=True, env={**os.environ, "WARDEN_LOG_FORMAT": "none"})
    return result.stdout.strip().splitlines()[-1] == "True"


def test_the_graph_read_from_text_is_alembics() -> None:
    assert read_script_revisions(MIGRATIONS_DIR / "versions") == _alembic_graph()


def _script(directory: Path, revision: str, down_revision: str) -> None:
    (directory / f"{revision}.py").write_text(
        f"revision = {revision!r}\ndown_revision = {down_revision}\n\ndef upgrade():\n    pass\n")


def test_branches_and_merges_give_the_heads_alembic_gives(tmp_path: Path) -> None:
    versions = tmp_path / "scripts" / "versions"
    versions.mkdir(parents=True)
    _script(versions, "a", "None")
    _script(versions, "b", "'a'")
    _script(versions, "c", "'a'")
    _script(versions, "m", "('b', 'c')")
    _script(versions, "d", "'a'")
    (versions / "__init__.py").write_text("")
    graph = read_script_revisions(versions)
    assert graph == ScriptRevisions(revisions=frozenset("abcmd"), heads=frozenset("md"))


def test_a_script_with_computed_ids_is_read_by_alembic(tmp_path: Path) -> None:
    versions = tmp_path / "scripts" / "versions"
    versions.mkdir(parents=True)
    _script(versions, "a", "None")
    (versions / "b.py").write_text("revision = 'b' + 'x'\ndown_revision = 'a'\n\ndef upgrade():\n    pass\n")
    assert read_script_revisions(versions) == ScriptRevisions(revisions=frozenset({"a", "bx"}),
                                                             heads=frozenset({"bx"}))


def test_sqlite_restart_at_head_skips_alembic_and_an_older_schema_is_upgraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'warden.db'}"
    assert not is_at_head(url)  # no schema at all
    assert _upgrade_imports_alembic(url)  # the first start migrates
    assert is_at_head(url)
    assert not _upgrade_imports_alembic(url)  # a restart does not need Alembic

    from alembic import command

    command.downgrade(alembic_config(url), _older_revision())
    assert not is_at_head(url)
    upgrade_database(url)
    assert _revisions(url) == _alembic_graph().heads


def test_an_unknown_revision_is_not_head_and_not_behind(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'warden.db'}"
    upgrade_database(url)
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text("UPDATE alembic_version SET version_num = 'from-newer-code'"))
        with engine.connect() as connection:
            assert not schema_is_behind(connection)  # written by newer code: old pods keep serving
            connection.execute(text("UPDATE alembic_version SET version_num = :old"), {"old": _older_revision()})
            assert schema_is_behind(connection)
    finally:
        engine.dispose()
    assert not is_at_head(url)


@pytest.fixture
def fresh_pg_url() -> Iterator[str]:
    yield from fresh_postgres_database(BASE_URL, "warden_athead")


@pytest.mark.postgres
@pytest.mark.skipif(not BASE_URL.startswith(("postgresql", "postgres")), reason="needs Postgres")
def test_postgres_restart_at_head_takes_no_lock_and_an_older_schema_waits_for_it(fresh_pg_url: str) -> None:
    url = fresh_pg_url
    assert _upgrade_imports_alembic(url)
    assert is_at_head(url)
    assert not _upgrade_imports_alembic(url)

    holder = create_engine(normalize_database_url(url), isolation_level="AUTOCOMMIT")
    try:
        with holder.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            upgrade_database(url)  # at head: returns while another process holds the migration lock

            from alembic import command

            command.downgrade(alembic_config(url), _older_revision())
            done = threading.Event()
            worker = threading.Thread(target=lambda: (upgrade_database(url), done.set()), daemon=True)
            worker.start()
            assert not done.wait(1.0)  # behind: the upgrade waits for the lock, as before
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
            assert done.wait(60)
            worker.join()
    finally:
        holder.dispose()
    assert _revisions(url) == _alembic_graph().heads
