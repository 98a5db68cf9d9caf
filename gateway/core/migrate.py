"""Running Alembic migrations from code (``warden db upgrade``, ``warden serve``, tests), and the schema check that
keeps a server that does not migrate (``warden serve --no-migrate``, a Kubernetes pod) out of rotation until its
database has the schema it was built for.

On Postgres every upgrade runs under a session-level advisory lock, so any number of concurrent runs (a Helm hook
Job retried while the last one still runs, several pods starting at once) apply each migration exactly once: the
first takes the lock and migrates, the others wait for it and then find nothing left to do.

A database already at this code's head (every restart after the first) is recognised with one ``SELECT`` against
the revision ids read from the scripts' source text, so a restart neither imports Alembic nor runs its environment.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from gateway.core.db import make_engine, normalize_database_url
from gateway.core.revisions import ScriptRevisions, read_script_revisions

if TYPE_CHECKING:
    from alembic.config import Config

# Alembic is imported where a migration actually runs: a server whose database is current never needs it.


def _migrations_dir() -> Path:
    # Located, not imported: migrations/env.py imports the gateway's models, and the arrow runs that way only.
    spec = importlib.util.find_spec("migrations")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the migrations package (Alembic's script directory) is not installed beside gateway")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


MIGRATIONS_DIR = _migrations_dir()

# One fixed 64-bit key for Warden's schema in a database (pg_advisory_lock takes a signed bigint); derived from a
# name so it is unlikely to collide with another application's advisory locks in a shared database.
MIGRATION_LOCK_KEY = int.from_bytes(hashlib.sha256(b"warden.schema-migrations").digest()[:8], "big", signed=True)
_WAIT_STEP_S = 1.0
VERSION_TABLE = "alembic_version"  # Alembic's default; migrations/env.py does not rename it
log = logging.getLogger(__name__)


class DatabaseUnreachable(RuntimeError):
    """The database did not accept a connection within the wait the caller allowed."""


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

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
    ``wait_s`` for the server to accept connections (raises :class:`DatabaseUnreachable` past that).

    Upgrading to ``head`` a database that is already there returns after one query, without Alembic; any other
    state (no schema, an older or unknown revision) takes Alembic's path below, unchanged."""
    if revision == "head" and is_at_head(database_url, wait_s=wait_s):
        return
    from alembic import command

    if not _is_postgres(database_url):
        command.upgrade(alembic_config(database_url), revision)
        return
    with migration_lock(database_url, wait_s=wait_s):
        command.upgrade(alembic_config(database_url), revision)


def is_at_head(database_url: str, *, wait_s: float = 0.0) -> bool:
    """Whether the database's recorded revisions are exactly this code's heads. Read without the migration lock: a
    concurrent upgrade can only move a database towards the head, never away from it."""
    engine = make_engine(database_url)
    try:
        with _connect_waiting(engine, wait_s) as connection:
            current = database_revisions(connection)
    finally:
        engine.dispose()
    return bool(current) and current == _scripts().heads


def database_revisions(connection: Connection) -> frozenset[str]:
    """The revisions stamped in the database's ``alembic_version`` table; empty when it has none (no schema)."""
    if not inspect(connection).has_table(VERSION_TABLE):
        return frozenset()
    return frozenset(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


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
def _connect_waiting(engine: Engine, wait_s: float) -> Iterator[Connection]:
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


def _scripts() -> ScriptRevisions:
    """This code's migration scripts' revision graph (read once per process)."""
    return read_script_revisions(MIGRATIONS_DIR / "versions")


def schema_is_behind(connection: Connection) -> bool:
    """Whether the database's schema is older than the newest migration this code carries: no schema at all, or a
    revision this code knows that is not its head.

    A revision this code does not know was written by newer code (a rolling upgrade migrates before the new pods
    start, while the old ones still serve); migrations only add what older code can ignore, so that counts as not
    behind: the old pods keep serving until they are replaced."""
    current = database_revisions(connection)
    if not current:
        return True
    scripts = _scripts()
    if scripts.heads <= current:
        return False
    return current <= scripts.revisions  # a revision this code does not know is newer than this code


class SchemaRevisionCheck:
    """Readiness' schema gate: current once the database has reached this code's head revision (sticky: a schema
    does not move back under a running server, so a current one is never queried again); while it is behind (or
    cannot be read), it is asked again at most every ``recheck_s``, off the event loop."""

    def __init__(self, engine: Engine, *, recheck_s: float = 1.0) -> None:
        self._engine = engine
        self.recheck_s = recheck_s
        self._current = False
        self._next_check = 0.0
        self._lock = asyncio.Lock()

    async def is_current(self) -> bool:
        if self._current:
            return True
        async with self._lock:
            if not self._current and time.monotonic() >= self._next_check:
                try:
                    self._current = not await asyncio.to_thread(self._behind)
                except SQLAlchemyError as exc:
                    # Only the class: a driver's message can name the host and the user.
                    log.warning("the schema revision could not be read (%s)", type(exc).__name__)
                self._next_check = time.monotonic() + self.recheck_s
        return self._current

    def _behind(self) -> bool:
        with self._engine.connect() as connection:
            return schema_is_behind(connection)
