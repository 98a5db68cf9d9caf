"""The standby keeper when the gateway stops: the drain's start (``begin_shutdown``) stops the standby and starts no
other; a standby killed by the signal that stops the gateway (sent to the whole process group) is not logged as a
failure; one still loading is abandoned quietly; and the first standby waits ``standby_delay_s`` after the pool, so a
restarting gateway serves before a second model load competes with it. In-process engines: the same bookkeeping as
engine processes, and fast."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import pytest

from engine import launch
from engine.config import EngineConfig
from engine.protocol import EngineClient
from gateway.lifecycle import Lifecycle
from gateway.replicas import ReplicaPool
from gateway.replicas.pool import SUPERVISE_INTERVAL_S

pytestmark = pytest.mark.timeout(120)


async def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def _pool_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "gateway.replicas.pool" and r.levelno >= logging.ERROR]


async def test_a_standby_killed_with_the_gateway_is_not_a_failure(tiny_config: EngineConfig,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    serving = await launch.start_engine(tiny_config, in_process=True)
    opened: list[EngineClient] = []

    async def open_standby() -> EngineClient:
        opened.append(await launch.start_engine(tiny_config, in_process=True))
        return opened[-1]

    pool = ReplicaPool([serving], block_size=tiny_config.block_size, standby=open_standby)
    lifecycle = Lifecycle(grace_s=5.0, unready_s=0.0)
    lifecycle.on_drain(pool.begin_shutdown)
    pool.supervise()
    try:
        await _until(lambda: pool.standby is not None, 60, "the standby")
        spare = pool.standby
        assert spare is not None
        with caplog.at_level(logging.WARNING):
            # The group's SIGTERM reaches the standby and the gateway together; the drain begins just after.
            await spare.shutdown()
            await asyncio.sleep(SUPERVISE_INTERVAL_S / 2)
            lifecycle.begin_drain()
            await asyncio.sleep(3 * SUPERVISE_INTERVAL_S)
        assert _pool_errors(caplog) == []
        assert pool.standby is None and len(opened) == 1  # none started during the drain
        assert serving.is_alive()  # the serving engine drains on
    finally:
        lifecycle.close()
        await pool.shutdown()
    assert not serving.is_alive()


async def test_the_drain_stops_an_idle_standby_and_abandons_a_loading_one(tiny_config: EngineConfig,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    serving = await launch.start_engine(tiny_config, in_process=True)
    spare = await launch.start_engine(tiny_config, in_process=True)
    pool = ReplicaPool([serving], block_size=tiny_config.block_size, standby=lambda: asyncio.sleep(0, spare))
    pool.supervise()
    try:
        await _until(lambda: pool.standby is spare, 10, "the standby")
        pool.begin_shutdown()
        await _until(lambda: not spare.is_alive(), 30, "the idle standby to stop")
        assert pool.standby is None
    finally:
        await pool.shutdown()

    loading = asyncio.Event()
    never = asyncio.Event()

    async def slow_standby() -> EngineClient:
        loading.set()
        await never.wait()  # a model load that outlasts the drain's start
        raise AssertionError("unreachable")

    serving = await launch.start_engine(tiny_config, in_process=True)
    pool = ReplicaPool([serving], block_size=tiny_config.block_size, standby=slow_standby)
    pool.supervise()
    try:
        with caplog.at_level(logging.WARNING):
            await asyncio.wait_for(loading.wait(), 10)
            pool.begin_shutdown()
            await asyncio.sleep(2 * SUPERVISE_INTERVAL_S)
        assert _pool_errors(caplog) == [] and pool.standby is None
    finally:
        await pool.shutdown()


async def test_the_first_standby_waits_for_its_delay(tiny_config: EngineConfig) -> None:
    serving = await launch.start_engine(tiny_config, in_process=True)
    asked: list[float] = []
    started = time.monotonic()

    async def open_standby() -> EngineClient:
        asked.append(time.monotonic() - started)
        return await launch.start_engine(tiny_config, in_process=True)

    pool = ReplicaPool([serving], block_size=tiny_config.block_size, standby=open_standby, standby_delay_s=1.5)
    pool.supervise()
    try:
        await asyncio.sleep(1.0)
        assert asked == []
        await _until(lambda: pool.standby is not None, 30, "the standby")
        assert asked[0] >= 1.5
    finally:
        await pool.shutdown()
