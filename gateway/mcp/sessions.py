"""Client sessions to upstream MCP servers kept open across calls: one per server record (tenant, name, version,
URL and credentials), opened on first use, shared by concurrent calls, reopened after a failure or a long idle,
and closed when the record changes, when too many are open, or at shutdown.

Each session lives in a task of its own, because the SDK's client holds anyio task groups and cancel scopes that
must be exited by the task that entered them; calls from request tasks only send through it. A session that is
retired while calls are still using it closes when the last of them returns.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from gateway.mcp.registry import UpstreamServer

log = logging.getLogger(__name__)

# Sessions kept open (one per server record in use); the least recently used beyond this is closed.
MAX_SESSIONS = 256
# A session unused this long is closed (and reopened on next use): a handshake-era upstream may have expired it, and
# a deleted record's session must not stay open for ever.
IDLE_REOPEN_S = 300.0
# How long closing one session may take at shutdown before its task is cancelled.
CLOSE_TIMEOUT_S = 5.0
# How long a call whose session closed under it waits to learn why.
CAUSE_WAIT_S = 1.0

SessionKey = tuple[str, str, int, str, str]
Opener = Callable[[UpstreamServer], AbstractAsyncContextManager[Client]]


def session_key(server: UpstreamServer) -> SessionKey:
    credentials = hashlib.sha256(repr(sorted(server.headers.items())).encode()).hexdigest()
    return server.tenant_id, server.name, server.version, server.url, credentials


@dataclass(eq=False)
class KeptSession:
    """One open client session and the task that owns it."""

    key: SessionKey
    ready: asyncio.Future[Client]
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    users: int = 0
    last_used: float = field(default_factory=time.monotonic)
    retired: bool = False
    # What ended the session after it opened (its transport failing, say): what its in-flight calls failed of.
    failure: BaseException | None = None

    @property
    def usable(self) -> bool:
        return not self.retired and self.task is not None and not self.task.done()

    def close_when_unused(self) -> None:
        self.retired = True
        if self.users == 0:
            self.stop.set()


@dataclass(frozen=True, slots=True)
class Lease:
    client: Client
    # True when the session was opened before this call: a failure that says the upstream forgot the session is
    # then worth one retry on a fresh one.
    reused: bool


async def _cause_of_closing(kept: KeptSession, exc: BaseException) -> BaseException | None:
    """When a call failed because its session closed under it, what closed the session (an oversize response, a
    broken connection): the error the caller should see instead of the SDK's bare "Connection closed"."""
    if not (isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED) or kept.task is None:
        return None
    if not kept.task.done():  # the owner task is still unwinding what closed the session
        await asyncio.wait([kept.task], timeout=CAUSE_WAIT_S)
    return first_leaf(kept.failure) if kept.failure is not None else None


def first_leaf(error: BaseException) -> BaseException:
    """The first exception in a (nested) group that is not a group itself: the one the caller should see."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


class SessionKeeper:
    def __init__(self, opener: Opener, *, max_sessions: int = MAX_SESSIONS,
                 idle_reopen_s: float = IDLE_REOPEN_S) -> None:
        self._opener = opener
        self._max_sessions = max_sessions
        self._idle_reopen_s = idle_reopen_s
        self._sessions: OrderedDict[SessionKey, KeptSession] = OrderedDict()
        self._all: set[KeptSession] = set()  # retired ones too, until their task ends
        self._closed = False

    @property
    def open_sessions(self) -> int:
        return sum(1 for kept in self._sessions.values() if kept.usable)

    @asynccontextmanager
    async def lease(self, server: UpstreamServer, *, keep_on: Callable[[BaseException], bool]) -> AsyncIterator[Lease]:
        """A session to ``server`` for one operation. An exception out of the operation retires the session unless
        ``keep_on`` says it leaves the session sound (an error the upstream answered with, say)."""
        if self._closed:
            raise RuntimeError("the upstream sessions are closed")
        kept, reused = self._session_for(server)
        kept.users += 1
        try:
            try:
                client = await asyncio.shield(kept.ready)
            except BaseException:
                if self._sessions.get(kept.key) is kept and kept.ready.done():
                    self._retire(kept)  # it failed to open: the next call tries again
                raise
            try:
                yield Lease(client, reused)
            except BaseException as exc:
                if not keep_on(exc):
                    self._retire(kept)
                cause = await _cause_of_closing(kept, exc)
                if cause is not None:
                    raise cause from None
                raise
        finally:
            kept.users -= 1
            kept.last_used = time.monotonic()
            if kept.retired and kept.users == 0:
                kept.stop.set()

    def reconcile(self, tenant_id: str, servers: Iterable[UpstreamServer]) -> None:
        """Close the tenant's sessions to records no longer in force (a server deleted or changed)."""
        current = {session_key(server) for server in servers}
        for key, kept in list(self._sessions.items()):
            if key[0] == tenant_id and key not in current:
                self._retire(kept)

    def _close_idle(self) -> None:
        # Least recently used first: stop at the first session used within the idle time.
        now = time.monotonic()
        for kept in list(self._sessions.values()):
            if now - kept.last_used <= self._idle_reopen_s:
                break
            if kept.users == 0:
                self._retire(kept)

    def _session_for(self, server: UpstreamServer) -> tuple[KeptSession, bool]:
        self._close_idle()
        key = session_key(server)
        kept = self._sessions.get(key)
        if kept is not None and not kept.usable:
            self._retire(kept)
            kept = None
        if kept is not None:
            self._sessions.move_to_end(key)
            return kept, kept.ready.done()
        # A newer version of the same record (or its new URL or credentials) replaces what the old one opened.
        for other in [s for k, s in self._sessions.items() if k[:2] == key[:2]]:
            self._retire(other)
        kept = self._start(key, server)
        while len(self._sessions) > self._max_sessions:
            self._retire(next(iter(self._sessions.values())))
        return kept, False

    def _start(self, key: SessionKey, server: UpstreamServer) -> KeptSession:
        loop = asyncio.get_running_loop()
        kept = KeptSession(key=key, ready=loop.create_future())
        # A fresh context: the session outlives the request that opened it and must carry none of its state.
        kept.task = loop.create_task(self._own(kept, server), context=contextvars.Context())
        kept.task.add_done_callback(lambda _task: self._forget(kept))
        self._sessions[key] = kept
        self._all.add(kept)
        return kept

    async def _own(self, kept: KeptSession, server: UpstreamServer) -> None:
        try:
            async with self._opener(server) as client:
                if not kept.ready.done():
                    kept.ready.set_result(client)
                await kept.stop.wait()
        except asyncio.CancelledError:
            if not kept.ready.done():
                kept.ready.cancel()
            raise
        except BaseException as exc:  # handed to the callers waiting for the session, or logged
            if not kept.ready.done():
                kept.ready.set_exception(exc)
            else:
                kept.failure = exc
                log.info("upstream MCP session to %s (version %d) ended: %s", server.name, server.version,
                         type(exc).__name__)
        finally:
            kept.retired = True

    def _forget(self, kept: KeptSession) -> None:
        if self._sessions.get(kept.key) is kept:
            del self._sessions[kept.key]
        self._all.discard(kept)
        if kept.ready.done() and not kept.ready.cancelled():
            kept.ready.exception()  # retrieved: a failed open is reported to its callers, not as "never retrieved"

    def _retire(self, kept: KeptSession) -> None:
        if self._sessions.get(kept.key) is kept:
            del self._sessions[kept.key]
        kept.close_when_unused()

    async def aclose(self) -> None:
        """Close every session (the endpoint drains its calls first); one that does not close within
        ``CLOSE_TIMEOUT_S`` is cancelled."""
        self._closed = True
        sessions = list(self._all)
        for kept in sessions:
            kept.retired = True
            kept.stop.set()
        tasks: list[asyncio.Task[Any]] = [kept.task for kept in sessions if kept.task is not None]
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=CLOSE_TIMEOUT_S)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=CLOSE_TIMEOUT_S)
