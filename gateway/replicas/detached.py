"""Engines that outlive a crash of the gateway: detached hosts (``engine.host``, each in its own session) at sockets in
the data directory's ``run`` directory, found and attached to again by the restarted gateway.

One worker (``HostSlots``): the gateway's serving engine and its standby are both detached hosts, each at one of a few
socket addresses (slots) beside ``DetachedEngine.address``. A standby promoted into a dead engine's place keeps its
slot, and the next standby takes a free one, so whatever the pool holds at the moment of a crash is left serving. The
restarted gateway attaches to the oldest live host of this deployment that loads its config (the serving engine: a
standby is always started after the engine it stands by for) and adopts another live one as its standby, instead of
loading the model again. A host still loading when its gateway died is waited for, not duplicated. Which slots this
gateway holds is kept here; a slot whose host is gone (its claim lock released) is free again.

Several workers (``keep_detached_host``): the hosts the workers share are detached hosts too, one per replica at a
fixed socket, so a crash of ``warden serve``'s process group leaves them serving and the restarted ``warden serve``
attaches to them.

Every attach checks the host first (``engine.host.attach_detached_host``: socket owner and peer uid, the deployment's
key both ways, the config and model files' fingerprint); a host of ours for another config is stopped and replaced.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import EngineDeadError

if TYPE_CHECKING:
    from engine.config import EngineConfig
    from engine.host import AttachedHost, DetachedHost
    from engine.protocol import EngineClient

log = logging.getLogger(__name__)
SLOTS = 3  # the serving engine, its standby, and one more for a cold restart that overlaps a promotion


@dataclass(frozen=True)
class DetachedEngine:
    """Where a one-worker gateway keeps its engines as detached hosts, the key they are reached with, and how long a
    host waits for a gateway after losing its last one."""

    address: Path
    authkey: bytes
    orphan_s: float

    def addresses(self) -> list[Path]:
        """The slots: ``address`` itself, then ``<stem>.1<suffix>``, ... beside it."""
        return [self.address, *(self.address.with_name(f"{self.address.stem}.{i}{self.address.suffix}")
                                for i in range(1, SLOTS))]


@dataclass
class EarlyHost:
    """A detached host ``HostSlots.prepare`` found serving (left by a gateway that crashed), found loading, or
    started, at ``address``."""

    config: EngineConfig
    slots: HostSlots
    address: Path
    found: AttachedHost | None = None
    spawned: DetachedHost | None = None
    loading: bool = False  # a host of a gateway that died is still loading there: wait for it

    @property
    def place(self) -> DetachedEngine:
        return self.slots.place

    def is_alive(self) -> bool:
        if self.found is not None:
            return self.found.is_alive()
        return self.loading or (self.spawned is not None and self.spawned.process.poll() is None)

    def stop(self, timeout: float) -> None:
        if self.found is not None:
            self.found.conn.close()
            self.found.stop(timeout)
        if self.spawned is not None:
            self.spawned.stop(timeout)
            self.spawned.status.close()


class HostSlots:
    """The slots of one gateway's detached hosts, and which of them it holds (a host it attached to, waits for or
    started there). ``prepare`` is called from worker threads (the pool's restarts and standby may overlap)."""

    def __init__(self, place: DetachedEngine) -> None:
        self.place = place
        self._held: set[Path] = set()
        self._lock = threading.Lock()

    def prepare(self, config: EngineConfig) -> EarlyHost:
        """A live host of this deployment serving ``config`` that this gateway does not hold yet, attached (the
        oldest, when a crash left several); else one still loading, to wait for; else one started in a free slot.
        Raises ``ForeignHostError`` when something not ours listens in a slot, ``EngineDeadError`` when every slot is
        taken."""
        from engine.host import host_starting, spawn_detached_host

        with self._lock:
            self._held = {address for address in self._held if host_starting(address)}
            free = [address for address in self.place.addresses() if address not in self._held]
            found = _oldest_live_host(config, free, self.place.authkey)
            if found is not None:
                log.warning("attaching to the engine left running at %s (pid %d): the model is loaded already",
                            found.address, found.pid)
                self._held.add(found.address)
                return EarlyHost(config, self, found.address, found=found)
            loading = next((address for address in free if host_starting(address)), None)
            if loading is not None:
                log.warning("an engine host is still loading at %s; waiting for it", loading)
                self._held.add(loading)
                return EarlyHost(config, self, loading, loading=True)
            if not free:
                raise EngineDeadError(f"every engine slot beside {self.place.address} is taken")
            spawned = spawn_detached_host(config, free[0], self.place.authkey, self.place.orphan_s)
            self._held.add(free[0])
            return EarlyHost(config, self, free[0], spawned=spawned)


def _oldest_live_host(config: EngineConfig, addresses: list[Path], authkey: bytes) -> AttachedHost | None:
    """The longest-running live host of ours for ``config`` at ``addresses``, attached; the others are let go (they
    serve on). A standby always starts after the engine it stands by for, so this is the engine that was serving."""
    from engine.host import attach_detached_host

    found = [host for host in (attach_detached_host(config, address, authkey) for address in addresses)
             if host is not None]
    if not found:
        return None
    found.sort(key=lambda host: float(host.info.get("started_monotonic", 0.0)))
    for other in found[1:]:
        other.conn.close()
        other.release()
    return found[0]


def prepare_host(config: EngineConfig, place: DetachedEngine) -> EarlyHost:
    """``HostSlots(place).prepare(config)``: the first engine of a gateway starting at ``place``."""
    return HostSlots(place).prepare(config)


async def open_host(early: EarlyHost) -> EngineClient:
    """The client of a detached host once it serves (waiting for one loading, or for the one started); its
    ``shutdown`` stops the host. A caller that gives up while the host it started still loads stops that host."""
    from engine.host import connect_detached_host, open_detached_client, wait_for_detached_host

    loop = asyncio.get_running_loop()
    if early.loading:
        found = await loop.run_in_executor(None, wait_for_detached_host, early.config, early.address,
                                           early.place.authkey)
        # None: it died or loads another config (stopped then): prepare again
        early = EarlyHost(early.config, early.slots, early.address, found=found) if found is not None else \
            await loop.run_in_executor(None, early.slots.prepare, early.config)
        if early.loading:  # yet another host began loading meanwhile: wait no more
            raise EngineDeadError(f"the engine host at {early.address} did not become ready")
    host = early.found
    if host is None:
        assert early.spawned is not None
        spawned = early.spawned
        try:
            await loop.run_in_executor(None, spawned.wait_ready)  # stops the host and raises if it fails to load
            host = await loop.run_in_executor(None, connect_detached_host, early.config, spawned.address,
                                              early.place.authkey, spawned.process)
        except asyncio.CancelledError:
            # Given up (the gateway stops while its standby loads): leave no engine loading for nobody. SIGTERM, not
            # a wait, which would block the event loop.
            if spawned.process.poll() is None:
                spawned.process.terminate()
            raise
        except BaseException:
            spawned.stop(5.0)
            raise
    try:
        return await open_detached_client(early.config, host)
    except BaseException:
        host.conn.close()
        host.stop(5.0)
        raise


def keep_detached_host(config: EngineConfig, address: Path, authkey: bytes, orphan_s: float) -> AttachedHost:
    """The detached host serving ``config`` at ``address`` (one of ``warden serve --workers N``'s shared hosts),
    blocking until it serves: the one a crashed ``warden serve`` left there, one still loading there, else one
    started now. Held by its pidfd only: the connection the check opened is closed, since a caller that never reads
    would be sent the host's stats until its socket filled and the host's loop blocked."""
    from engine.host import (
        attach_detached_host,
        connect_detached_host,
        host_starting,
        spawn_detached_host,
        wait_for_detached_host,
    )

    found = attach_detached_host(config, address, authkey)
    if found is None and host_starting(address):
        log.warning("an engine host is still loading at %s; waiting for it", address)
        found = wait_for_detached_host(config, address, authkey)
    if found is not None:
        log.warning("attaching to the engine host left running at %s (pid %d): the model is loaded already",
                    address, found.pid)
    else:
        spawned = spawn_detached_host(config, address, authkey, orphan_s)
        spawned.wait_ready()  # stops the host and raises if it fails to load
        try:
            found = connect_detached_host(config, address, authkey, spawned.process)
        except BaseException:
            spawned.stop(5.0)
            raise
    found.conn.close()
    return found
