"""The engine hosts of a multi-worker gateway (``warden serve --workers N``): one ``engine.host`` process per engine
replica, started before the workers, which connect to them (``connect_replicas``) instead of each loading its own
engine; restarted when one dies (the workers' pools reconnect on their own); stopped after the workers.

A worker killed on its own is restarted by uvicorn's supervisor and connects to the same hosts; the host aborts only
the dead worker's requests. With ``orphan_s`` > 0 (``WARDEN_ENGINE_ORPHAN_S``) the hosts are detached
(``gateway.replicas.detached.keep_detached_host``): each runs in its own session, so a SIGKILL of ``warden serve``'s
whole process group leaves them serving, and the restarted ``warden serve`` attaches to them instead of loading the
model again; one that no worker reaches again exits ``orphan_s`` seconds after its last one left. With ``orphan_s``
0 each host is a child of ``warden serve`` and stops with it.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gateway.replicas.pool import RESTART_BACKOFF_S, restart_delay

if TYPE_CHECKING:
    from engine.config import EngineConfig

log = logging.getLogger(__name__)
WATCH_INTERVAL_S = 0.5


class RunningHost(Protocol):
    """A host as ``warden serve`` holds it: its own child (``engine.host.EngineHostProcess``) or a detached host
    held by its pidfd (``engine.host.AttachedHost``)."""

    def is_alive(self) -> bool: ...

    def stop(self, timeout: float = ...) -> None: ...


def start_host(config: EngineConfig, address: Path, authkey: bytes, orphan_s: float) -> RunningHost:
    """One serving host at ``address`` (blocking until it serves): detached when ``orphan_s`` > 0 (a live one left
    there by a crashed ``warden serve`` is attached to), else a child of this process."""
    if orphan_s > 0:
        from gateway.replicas.detached import keep_detached_host

        return keep_detached_host(config, address, authkey, orphan_s)
    from engine.host import start_engine_host

    return start_engine_host(config, address, authkey)


class EngineHosts:
    def __init__(self, configs: list[EngineConfig], sockets: list[Path], authkey: bytes,
                 hosts: list[RunningHost], orphan_s: float = 0.0) -> None:
        self.configs = configs
        self.sockets = sockets
        self.restarts = [0] * len(hosts)
        self._authkey = authkey
        self._orphan_s = orphan_s
        self._hosts = hosts
        self._started_at = [time.monotonic()] * len(hosts)
        self._backoff = [RESTART_BACKOFF_S[0]] * len(hosts)
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="engine-hosts-watch", daemon=True)

    @classmethod
    def start(cls, config: EngineConfig, count: int, socket_dir: Path, authkey: bytes, *,
              orphan_s: float = 0.0) -> EngineHosts:
        """Start ``count`` hosts at once (or attach to those a crash left serving, given ``orphan_s``) and wait until
        all serve; if one fails, the others are stopped and its error is raised."""
        from gateway.replicas.launch import replica_configs

        configs = [config] if count == 1 else replica_configs(config, count, in_process=False)
        sockets = [socket_dir / f"engine-{i}.sock" for i in range(count)]
        start = partial(start_host, authkey=authkey, orphan_s=orphan_s)
        with ThreadPoolExecutor(max_workers=count, thread_name_prefix="engine-host-start") as pool:
            futures = [pool.submit(start, c, s) for c, s in zip(configs, sockets, strict=True)]
        errors = [f.exception() for f in futures if f.exception() is not None]
        if errors:
            for future in futures:
                if future.exception() is None:
                    future.result().stop()
            raise errors[0]  # type: ignore[misc]
        hosts = cls(configs, sockets, authkey, [f.result() for f in futures], orphan_s)
        hosts._watcher.start()
        return hosts

    def alive(self) -> list[bool]:
        return [host.is_alive() for host in self._hosts]

    def stop(self) -> None:
        self._stopping.set()
        if self._watcher.is_alive():
            self._watcher.join(5)
        for host in self._hosts:
            host.stop()

    def _watch(self) -> None:
        while not self._stopping.wait(WATCH_INTERVAL_S):
            for index, host in enumerate(self._hosts):
                if not host.is_alive() and not self._stopping.is_set():
                    self._bring_back(index)

    def _bring_back(self, index: int) -> None:
        lived = time.monotonic() - self._started_at[index]
        delay, self._backoff[index] = restart_delay(lived, self._backoff[index])
        log.error("engine host %d is dead (up %.0f s); restarting it in %.0f s", index, lived, delay)
        if self._stopping.wait(delay):
            return
        try:
            self._hosts[index] = start_host(self.configs[index], self.sockets[index], self._authkey, self._orphan_s)
        except Exception:
            log.exception("engine host %d failed to restart; trying again", index)
            self._started_at[index] = time.monotonic()  # a failed start counts as dying young
            return
        self._started_at[index] = time.monotonic()
        self.restarts[index] += 1
        log.warning("engine host %d restarted (%d restarts)", index, self.restarts[index])
