"""The engine hosts of a multi-worker gateway (``warden serve --workers N``): one ``engine.host`` process per engine
replica, started before the workers, which connect to them (``connect_replicas``) instead of each loading its own
engine; restarted when one dies (the workers' pools reconnect on their own); stopped after the workers.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.replicas.pool import RESTART_BACKOFF_S, restart_delay

if TYPE_CHECKING:
    from engine.config import EngineConfig
    from engine.host import EngineHostProcess

log = logging.getLogger(__name__)
WATCH_INTERVAL_S = 0.5


class EngineHosts:
    def __init__(self, configs: list[EngineConfig], sockets: list[Path], authkey: bytes,
                 hosts: list[EngineHostProcess]) -> None:
        self.configs = configs
        self.sockets = sockets
        self.restarts = [0] * len(hosts)
        self._authkey = authkey
        self._hosts = hosts
        self._started_at = [time.monotonic()] * len(hosts)
        self._backoff = [RESTART_BACKOFF_S[0]] * len(hosts)
        self._stopping = threading.Event()
        self._watcher = threading.Thread(target=self._watch, name="engine-hosts-watch", daemon=True)

    @classmethod
    def start(cls, config: EngineConfig, count: int, socket_dir: Path, authkey: bytes) -> EngineHosts:
        """Start ``count`` hosts at once and wait until all serve; if one fails, the others are stopped and its
        error is raised."""
        from engine.host import start_engine_host
        from gateway.replicas.launch import replica_configs

        configs = [config] if count == 1 else replica_configs(config, count, in_process=False)
        sockets = [socket_dir / f"engine-{i}.sock" for i in range(count)]
        with ThreadPoolExecutor(max_workers=count, thread_name_prefix="engine-host-start") as pool:
            futures = [pool.submit(start_engine_host, c, s, authkey) for c, s in zip(configs, sockets, strict=True)]
        errors = [f.exception() for f in futures if f.exception() is not None]
        if errors:
            for future in futures:
                if future.exception() is None:
                    future.result().stop()
            raise errors[0]  # type: ignore[misc]
        hosts = cls(configs, sockets, authkey, [f.result() for f in futures])
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
        from engine.host import start_engine_host

        lived = time.monotonic() - self._started_at[index]
        delay, self._backoff[index] = restart_delay(lived, self._backoff[index])
        log.error("engine host %d is dead (exit code %s, up %.0f s); restarting it in %.0f s", index,
                  self._hosts[index].process.exitcode, lived, delay)
        if self._stopping.wait(delay):
            return
        try:
            self._hosts[index] = start_engine_host(self.configs[index], self.sockets[index], self._authkey)
        except Exception:
            log.exception("engine host %d failed to restart; trying again", index)
            self._started_at[index] = time.monotonic()  # a failed start counts as dying young
            return
        self._started_at[index] = time.monotonic()
        self.restarts[index] += 1
        log.warning("engine host %d restarted (%d restarts)", index, self.restarts[index])
