"""Running Alembic migrations from code (``warden db upgrade``, ``warden serve``, tests).

On Postgres every upgrade runs under a session-level advisory lock, so any number of concurrent runs (a Helm hook
Job retried while the last one still runs, several pods starting at once) apply each migration exactly once: the
first takes the lock and migrates, the others wait for it and then find nothing left to do.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text
from sqlalchemy.exc import OperationalError

import migrations
from gateway.core.db import make_engine, normalize_database_url

MIGRATIONS_DIR = Path(migrations.__file__).resolve().parent

# One fixed 64-bit key for Warden's schema in a database (pg_advisory_lock takes a signed bigint); derived from a
# name so it is unlikely to collide with another application's advisory locks in a shared database.
MIGRATION_LOCK_KEY = int.from_bytes(hashlib.sha256(b"warden.schema-migrations").digest()[:8], "big", signed=True)
_WAIT_STEP_S = 1.0


class DatabaseUnreachable(RuntimeError):
    """The database did not accept a connection within the wait the caller allowed."""


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option(
        "file_template", "%%(year)d_%%(month).2d_%%(day).2d_%%(hour).2d%%(minute).2d-%%(rev)s_%%(slug)s"
    )
    config.set_main_option("timezone", "UTC")
    config.attributes["database_url"] = database_url
    return config


def upgrade_database(database_url: str, revision: str = "head", *, wait_s: float = 0.0) -> None:
    """Apply every migration up to ``revision``; on Postgres under the advisory lock, after waiting up to
    ``wait_s`` for the server to accept connections (raises :class:`DatabaseUnreachable` past that)."""
    if not _is_postgres(database_url):
        command.upgrade(alembic_config(database_url), revision)
        return
    with migration_lock(database_url, wait_s=wait_s):
        command.upgrade(alembic_config(database_url), revision)


@contextmanager
def migration_lock(database_url: str, *, wait_s: float = 0.0) -> Iterator[None]:
    """Holds Warden's migration advisory lock on a connection of its own for the duration of the block.

    The lock is session-level, so it survives the migrations' own transactions (run on another connection) and is
    released by the server if this process dies while holding it."""
    engine = make_engine(database_url).execution_options(isolation_level="AUTOCOMMIT")
    try:
        with _connect_waiting(engine, wait_s) as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
    finally:
        engine.dispose()


@contextmanager
def _connect_waiting(engine, wait_s: float) -> Iterator[Connection]:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + wait_s
    while True:
        try:
            connection = engine.connect()
            break
        except OperationalError as exc:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # The driver's message can name the host and user but never the password; keep only its class.
                raise DatabaseUnreachable(
                    f"the database did not accept a connection within {wait_s:g}s ({type(exc.orig).__name__})"
                ) from None
            time.sleep(min(_WAIT_STEP_S, remaining))  # the last try comes at the deadline, not a step before it
    with connection:
        yield connection


def _is_postgres(database_url: str) -> bool:
    return normalize_database_url(database_url).startswith("postgresql")
