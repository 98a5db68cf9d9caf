"""The standby engine: a pool that keeps one more engine process started promotes it into the slot of an engine
that is SIGKILLed, so the next request is served by it without waiting for a cold restart, and then starts another
standby; the setting's default is on for CPU engines only. Real engine processes serving a tiny random Llama."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable

import pytest
from test_pool import QUESTIONS, SYSTEM, chat_ids, drain, request

from engine import launch
from engine.config import EngineConfig
from engine.protocol import EngineClient
from gateway.replicas import ReplicaPool, start_replicas
from gateway.replicas.launch import wants_standby

pytestmark = pytest.mark.timeout(240)


async def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


def test_the_standby_is_on_by_default_for_cpu_engines_only() -> None:
    assert wants_standby(None, "cpu")
    assert not wants_standby(None, "cuda:0")
    assert wants_standby(True, "cuda") and not wants_standby(False, "cpu")


@pytest.mark.slow  # three engine processes start (spawn, torch import, load): tens of seconds on a shared CPU
async def test_a_killed_engine_is_replaced_by_the_standby_and_a_new_standby_starts(tiny_config: EngineConfig) -> None:
    pool = await start_replicas(tiny_config, 1, supervise_one=True, standby=True)
    assert isinstance(pool, ReplicaPool)
    try:
        await _until(lambda: pool.standby is not None and pool.standby.is_alive(), 180, "the standby to start")
        serving, spare = pool.replicas[0], pool.standby
        assert spare is not None and spare.core_pid != serving.core_pid  # type: ignore[attr-defined]
        prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[0]}])
        assert (await drain(pool.generate(request(prompt, "salt-a"))))[-1].finish_reason == "length"

        os.kill(serving.core_pid, signal.SIGKILL)  # type: ignore[attr-defined]
        await _until(lambda: not serving.is_alive(), 10, "the engine to die")
        # The next request is served at once, by the promoted standby (no cold restart: nothing else is started).
        outputs = await drain(pool.generate(request(prompt, "salt-b")))
        assert outputs[-1].finish_reason == "length" and sum(len(o.token_ids) for o in outputs) == 4
        assert pool.replicas[0] is spare and pool.promotions == 1 and pool.restarts == [1]
        assert pool.is_alive() and pool.in_flight == [0]

        # Another standby is started in the background, a new process.
        await _until(lambda: pool.standby is not None and pool.standby.is_alive(), 180, "a new standby")
        assert pool.standby is not spare
        assert pool.standby.core_pid not in (serving.core_pid, spare.core_pid)  # type: ignore[union-attr,attr-defined]
    finally:
        await pool.shutdown()
    assert pool.standby is None and not spare.is_alive()


@pytest.mark.slow  # two engine processes start
async def test_a_standby_that_dies_idle_is_started_again(tiny_config: EngineConfig) -> None:
    pool = await start_replicas(tiny_config, 1, supervise_one=True, standby=True)
    assert isinstance(pool, ReplicaPool)
    try:
        await _until(lambda: pool.standby is not None and pool.standby.is_alive(), 180, "the standby to start")
        first = pool.standby
        os.kill(first.core_pid, signal.SIGKILL)  # type: ignore[union-attr,attr-defined]
        await _until(lambda: pool.standby is not None and pool.standby is not first and pool.standby.is_alive(), 180,
                     "another standby")
        assert pool.promotions == 0 and pool.restarts == [0] and pool.replicas[0].is_alive()
    finally:
        await pool.shutdown()


async def test_a_cold_restart_that_ends_after_a_promotion_becomes_the_standby(tiny_config: EngineConfig) -> None:
    # In-process engines (threads): the pool's bookkeeping is the same as for engine processes, and fast.
    first = await launch.start_engine(tiny_config, in_process=True)
    standby_may_start, restart_may_finish = asyncio.Event(), asyncio.Event()
    restarted: list[EngineClient] = []

    async def restart(index: int) -> EngineClient:
        engine = await launch.start_engine(tiny_config, in_process=True)
        await restart_may_finish.wait()
        restarted.append(engine)
        return engine

    async def open_standby() -> EngineClient:
        await standby_may_start.wait()
        return await launch.start_engine(tiny_config, in_process=True)

    pool = ReplicaPool([first], block_size=tiny_config.block_size, restart=restart, standby=open_standby)
    pool.supervise()
    try:
        await first.shutdown()  # dies with no standby ready: a cold restart begins
        await _until(lambda: bool(pool._restarting), 10, "the cold restart to begin")
        standby_may_start.set()
        await _until(lambda: pool.promotions == 1, 60, "the standby to be promoted")
        promoted = pool.replicas[0]
        assert promoted.is_alive() and promoted is not first and pool.restarts == [1]
        restart_may_finish.set()
        await _until(lambda: bool(restarted) and pool.standby is restarted[0], 60, "the restarted engine to stand by")
        assert pool.replicas[0] is promoted and pool.restarts == [1]  # the slot kept the promoted engine
        prompt = chat_ids(pool, [{"role": "user", "content": QUESTIONS[1]}])
        assert (await drain(pool.generate(request(prompt, "salt-c"))))[-1].finish_reason == "length"
    finally:
        await pool.shutdown()
    assert not any(engine.is_alive() for engine in (first, promoted, *restarted))
