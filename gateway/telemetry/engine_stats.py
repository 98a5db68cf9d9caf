"""Feeds the engine's own gauges and counters (``engine.metrics.EngineStats``) into the gateway's metrics.

The engine process pushes a snapshot to its client at most every half second while busy and once when it goes
idle; this task copies the latest one into Prometheus every ``interval_s`` (and ``/metrics`` does once more
before rendering, so a scrape is never a full interval stale). Engines that report no stats are skipped. Each poll
also sets how many engine replicas are alive, and flushes the calls' batched metrics
(``gateway.telemetry.metrics.GatewayMetrics.flush``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from engine.metrics import EngineStats, EngineStatsSource
from engine.protocol import EngineClient
from gateway.replicas.pool import ReplicaPool
from gateway.telemetry.metrics import GatewayMetrics

log = logging.getLogger(__name__)


class EngineStatsReader:
    def __init__(self, metrics: GatewayMetrics, engine: Callable[[], EngineClient | None]) -> None:
        self.metrics = metrics
        self.engine = engine
        self._last: EngineStats | None = None
        self._restarts_seen = 0  # the pool's restarts already added to the counter

    def poll(self) -> None:
        self.metrics.flush()  # the calls' batched metrics too, for the other workers' scrapes (multiprocess mode)
        engine = self.engine()
        if engine is None:
            return
        # A replica pool counts its live engines; a single engine is one or none.
        live = engine.live() if isinstance(engine, ReplicaPool) else [engine.is_alive()]
        self.metrics.engines_alive.labels(engine.model_name).set(sum(live))
        if isinstance(engine, ReplicaPool) and sum(engine.restarts) > self._restarts_seen:
            self.metrics.replica_restarts.labels(engine.model_name).inc(sum(engine.restarts) - self._restarts_seen)
            self._restarts_seen = sum(engine.restarts)
        if not isinstance(engine, EngineStatsSource):
            return
        stats = engine.stats()
        if stats is None or stats is self._last:
            return
        self._last = stats
        self.metrics.observe_engine_stats(engine.model_name, stats)

    async def run(self, interval_s: float) -> None:
        while True:
            try:
                self.poll()
            except Exception:  # metrics must never take the gateway down
                log.exception("reading the engine's stats failed")
            await asyncio.sleep(interval_s)
