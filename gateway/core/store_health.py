"""Which database errors mean "the store is unavailable", and a circuit that fails fast while it is.

Unavailable (answered as 503 ``store_unavailable`` on the request path): the server cannot be reached or dropped
the connection, it is shutting down or out of resources, a statement or lock wait ran past its budget, or no pooled
connection was free within the pool timeout. A refused statement (a constraint, bad data, a bug) is not: it keeps
its own handling.

A connection failure opens the circuit: for ``probe_interval_s`` nobody touches the store (callers serve from a
cache or refuse at once instead of each waiting out a connect timeout on a worker thread), then one call at a time
probes it; the first call the store answers closes the circuit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

log = logging.getLogger(__name__)

# SQLSTATE classes and codes that say the server (not the statement) is the problem: 08 connection exception,
# 53 insufficient resources, 57P0x shutdown / cannot connect now, 58 system error.
_CONNECTION_SQLSTATE_PREFIXES = ("08", "53", "57P", "58")


def _sqlstate(exc: DBAPIError) -> str | None:
    state = getattr(exc.orig, "sqlstate", None)
    return state if isinstance(state, str) else None


def is_connection_failure(exc: BaseException) -> bool:
    """The store could not be reached or lost the connection: worth opening the circuit for."""
    if isinstance(exc, PoolTimeoutError | InterfaceError):
        return True
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True
    if not isinstance(exc, OperationalError):
        return False
    state = _sqlstate(exc)
    if state is not None:
        return state.startswith(_CONNECTION_SQLSTATE_PREFIXES)
    # psycopg raises connection failures (refused, timed out, closed by the server) without a SQLSTATE; SQLite's
    # OperationalErrors ("database is locked", "no such table") are answers from the file, not lost connections.
    return exc.orig is not None and type(exc.orig).__module__.startswith("psycopg")


def is_store_unavailable(exc: BaseException) -> bool:
    """The request could not be served because of the store, not because of the request."""
    if isinstance(exc, PoolTimeoutError | OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


class StoreCircuit:
    """Thread-safe: the request path's worker threads share one."""

    def __init__(self, probe_interval_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._probe_interval_s = probe_interval_s
        self._clock = clock
        self._lock = threading.Lock()
        self._down_since: float | None = None
        self._next_probe_at = 0.0
        self._probing = False

    @property
    def is_open(self) -> bool:
        return self._down_since is not None

    def down_for_s(self) -> float:
        down_since = self._down_since
        return 0.0 if down_since is None else self._clock() - down_since

    def try_acquire(self) -> bool:
        """May this call use the store? While open: False, except for one probe per interval."""
        with self._lock:
            if self._down_since is None:
                return True
            if self._probing or self._clock() < self._next_probe_at:
                return False
            self._probing = True
            return True

    def succeeded(self) -> None:
        with self._lock:
            was_down = self._down_since
            self._down_since = None
            self._probing = False
        if was_down is not None:
            log.warning("database reachable again after %.1fs", self._clock() - was_down)

    def failed(self) -> None:
        with self._lock:
            now = self._clock()
            opened = self._down_since is None
            if opened:
                self._down_since = now
            self._next_probe_at = now + self._probe_interval_s
            self._probing = False
        if opened:
            log.warning("database unreachable: failing fast, probing every %.1fs", self._probe_interval_s)

    def release(self) -> None:
        """A call ended without telling whether the store answered (cancelled, or no statement ran)."""
        with self._lock:
            self._probing = False
