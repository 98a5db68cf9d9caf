"""Database engine, sessions and the declarative base shared by every domain's models.

The gateway uses a synchronous SQLAlchemy engine and runs its queries in a worker thread, so the same code
runs on SQLite (embedded default) and Postgres (psycopg 3).

On Postgres every wait is bounded (``StoreTimeouts``): connecting, each statement, each lock wait, a transaction
left idle, the wait for a pooled connection, and a peer that vanished without closing the connection (TCP
keepalives and user timeout). A worker thread therefore never waits on the store longer than these budgets, and the
thread pool the audit spool's fsync shares stays available. The request path's ``Database`` also carries a
``StoreCircuit`` and turns an outage into ``StoreUnavailable`` (a 503); background work (audit writer, retention,
checkpoints) uses its own ``Database`` with a longer statement budget and sees the driver's errors unchanged.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import MetaData, create_engine, event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from gateway.core.errors import StoreUnavailable
from gateway.core.store_health import StoreCircuit, is_connection_failure, is_store_unavailable

if TYPE_CHECKING:
    from gateway.core.settings import Settings

log = logging.getLogger(__name__)

# Explicit constraint names so migrations are reproducible on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def normalize_database_url(url: str) -> str:
    """``postgresql://`` means psycopg 3 here (the only Postgres driver in the lock)."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed.render_as_string(hide_password=False)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers don't block the audit writer
    cursor.execute("PRAGMA busy_timeout=10000")  # several workers share one file
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


@dataclass(frozen=True, slots=True)
class StoreTimeouts:
    """Budgets for one engine's waits on Postgres, in seconds; 0 means no limit. SQLite has its busy timeout."""

    connect_s: float = 3.0  # libpq and psycopg round below 2 s up to 2 s
    statement_s: float = 0.0
    lock_s: float = 0.0
    idle_in_transaction_s: float = 0.0
    pool_s: float = 30.0
    tcp_s: float = 10.0  # keepalive probing and unacknowledged-send limit: a peer gone silent is noticed
    pool_size: int = 10
    max_overflow: int = 10

    @classmethod
    def request_path(cls, settings: Settings) -> StoreTimeouts:
        """The /v1 lookups and the admin and audit APIs: short, so an outage is a quick 503, not a hang. No idle-in-
        transaction limit: an audit export reads from one transaction at its client's pace."""
        return cls(connect_s=settings.db_connect_timeout_s, statement_s=settings.db_statement_timeout_s,
                   lock_s=settings.db_lock_timeout_s, pool_s=settings.db_pool_timeout_s,
                   tcp_s=settings.db_tcp_timeout_s)

    @classmethod
    def background(cls, settings: Settings) -> StoreTimeouts:
        """The audit writer's batches, retention and checkpoints: a longer statement budget, a small pool."""
        return cls(connect_s=settings.db_connect_timeout_s,
                   statement_s=settings.db_background_statement_timeout_s, lock_s=settings.db_lock_timeout_s,
                   idle_in_transaction_s=settings.db_background_idle_in_transaction_timeout_s,
                   pool_s=settings.db_pool_timeout_s, tcp_s=settings.db_tcp_timeout_s, pool_size=3, max_overflow=2)

    def server_options(self) -> list[str]:
        budgets = {"statement_timeout": self.statement_s, "lock_timeout": self.lock_s,
                   "idle_in_transaction_session_timeout": self.idle_in_transaction_s}
        return [f"-c {name}={round(seconds * 1000)}" for name, seconds in budgets.items() if seconds > 0]

    def postgres_connect_args(self, url_query: Mapping[str, Any]) -> dict[str, Any]:
        """libpq parameters for these budgets. What the URL sets itself wins; server options are appended to the
        URL's own ``options`` (connect_args would otherwise replace it)."""
        args: dict[str, Any] = {
            "connect_timeout": max(2, math.ceil(self.connect_s)),
            "keepalives": 1,
            "keepalives_idle": max(1, round(self.tcp_s / 2)),
            "keepalives_interval": max(1, round(self.tcp_s / 6)),
            "keepalives_count": 3,
            "tcp_user_timeout": round(self.tcp_s * 1000),
        }
        args = {name: value for name, value in args.items() if name not in url_query}
        url_options = url_query.get("options")
        options = " ".join(part for part in [url_options if isinstance(url_options, str) else "",
                                             *self.server_options()] if part)
        if options:
            args["options"] = options
        return args


def make_engine(url: str, timeouts: StoreTimeouts | None = None) -> Engine:
    """``hide_parameters``: a failed statement's values (tenant ids, prompt content) never reach an exception
    message, and so never a log line or a response."""
    url = normalize_database_url(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10}, hide_parameters=True)
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    timeouts = timeouts or StoreTimeouts()
    return create_engine(url, pool_pre_ping=True, pool_size=timeouts.pool_size, max_overflow=timeouts.max_overflow,
                         pool_timeout=timeouts.pool_s, hide_parameters=True,
                         connect_args=timeouts.postgres_connect_args(make_url(url).query))


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


class Database:
    """Owns the engine and hands out short-lived sessions.

    With a ``circuit``, an outage (``is_store_unavailable``) leaves a session as ``StoreUnavailable`` carrying
    ``retry_after_s``, and while the circuit is open sessions fail that way at once, without touching the store.
    """

    def __init__(self, url: str, *, timeouts: StoreTimeouts | None = None, circuit: StoreCircuit | None = None,
                 retry_after_s: int = 5) -> None:
        self.timeouts = timeouts or StoreTimeouts()  # kept: the audit drain process opens its own engine with them
        self.engine = make_engine(url, self.timeouts)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.circuit = circuit
        self._retry_after_s = retry_after_s

    @contextmanager
    def _guarded(self) -> Iterator[None]:
        circuit = self.circuit
        if circuit is None:
            yield
            return
        if not circuit.try_acquire():
            raise StoreUnavailable(self._retry_after_s)
        try:
            yield
        except StoreUnavailable:
            circuit.release()
            raise
        except Exception as exc:
            lost = is_connection_failure(exc)
            if lost:
                circuit.failed()  # logs the outage once, not per call
            else:
                circuit.succeeded()  # the store answered, if only to refuse or to cancel the statement
            if is_store_unavailable(exc):
                if not lost:  # a budget ran out: class names only, the driver's message may quote the statement
                    log.warning("database call failed: %s (%s)", type(exc).__name__,
                                type(getattr(exc, "orig", None) or exc).__name__)
                raise StoreUnavailable(self._retry_after_s) from exc
            raise
        except BaseException:
            circuit.release()
            raise
        else:
            circuit.succeeded()

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._guarded(), self._sessions() as session:
            yield session

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        with self._guarded(), self._sessions.begin() as session:
            yield session

    def dispose(self) -> None:
        self.engine.dispose()
