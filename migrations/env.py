"""Alembic environment: Warden's models are the target; the URL comes from the caller or WARDEN_DATABASE_URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

import gateway.models  # noqa: F401  (registers every table on Base.metadata)
from gateway.core.db import Base, make_engine
from gateway.core.settings import Settings

config = context.config
target_metadata = Base.metadata


def _database_url() -> str:
    return config.attributes.get("database_url") or Settings().database_url


def run_migrations_offline() -> None:
    context.configure(url=_database_url(), target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=True, compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_with(connection)
        return
    engine = make_engine(_database_url())
    try:
        with engine.connect() as connection:
            _run_with(connection)
    finally:
        engine.dispose()


def _run_with(connection: Connection) -> None:
    # render_as_batch: SQLite cannot ALTER most things in place; batch mode rebuilds tables there.
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
