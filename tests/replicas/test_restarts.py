"""A replica that dies: requests it had not started yet go to another replica instead of failing, and the pool's
supervisor brings it back (backing off while restarts fail), with the pool's counters never going backwards."""

from __future__ import annotations

import asyncio
import dataclasses
import time

import pytest
from test_pool import QUESTIONS, SYSTEM, chat_ids, drain, request, salts_on

from engine import launch
from engine.config import EngineConfig
from engine.errors import EngineDeadError
from engine.protocol import EngineClient
from gateway.replicas import ReplicaPool, start_replicas

pytestmark = pytest.mark.timeout(120)


async def _until(condition, timeout_s: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_request_the_dead_replica_had_not_started_runs_on_another(tiny_config: EngineConfig) -> None:
    # One sequence at a time per replica: a second request for the same key waits in replica 0's queue.
    config = dataclasses.replace(tiny_config, max_num_seqs=1)
    pool = await start_replicas(config, 2, in_process=True, restart_dead=False)
    assert isinstance(pool, ReplicaPool)
    try:
        prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[0]}])
        salt = salts_on(pool, prompt, 0, 1)[0]
        running = pool.generate(request(prompt, salt, max_tokens=400))
        await anext(running)  # replica 0 is busy with it
        waiting = request(prompt, salt, max_tokens=6)
        queued = asyncio.create_task(drain(pool.generate(waiting)))
        await _until(lambda: pool.replica_of(waiting.request_id) == 0)
        await asyncio.sleep(0.2)  # it reached the engine and waits there, without a delta
        await pool.replicas[0].shutdown()
        with pytest.raises(EngineDeadError):  # it had streamed: the client saw part of it, so it cannot be re-run
            await drain(running)
        outputs = await queued
        assert outputs[-1].finish_reason == "length" and sum(len(o.token_ids) for o in outputs) == 6
        assert pool.routed == [2, 1] and pool.in_flight == [0, 0]
    finally:
        await pool.shutdown()


async def test_the_supervisor_restarts_a_dead_replica_and_counters_carry_on(tiny_config: EngineConfig) -> None:
    pool = await start_replicas(tiny_config, 2, in_process=True)
    assert isinstance(pool, ReplicaPool)
    try:
        prompt = chat_ids(pool, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": QUESTIONS[1]}])
        salt = salts_on(pool, prompt, 0, 1)[0]
        assert (await drain(pool.generate(request(prompt, salt))))[-1].finish_reason == "length"
        await _until(lambda: (s := pool.stats()) is not None and s.prompt_tokens == len(prompt))
        dead = pool.replicas[0]
        await dead.shutdown()
        assert pool.live() == [False, True]
        await _until(lambda: pool.live() == [True, True])
        assert pool.restarts == [1, 0] and pool.replicas[0] is not dead
        outputs = await drain(pool.generate(request(prompt, salt)))  # its key is back on the restarted replica
        assert outputs[-1].finish_reason == "length" and pool.routed[0] == 2
        # The dead replica's prompt tokens still count beside the new one's: the total never went backwards.
        await _until(lambda: (s := pool.stats()) is not None and s.prompt_tokens == 2 * len(prompt))
    finally:
        await pool.shutdown()


async def test_a_failing_restart_is_retried_after_a_longer_wait(tiny_config: EngineConfig) -> None:
    engines = [await launch.start_engine(tiny_config, in_process=True) for _ in range(2)]
    attempts: list[float] = []

    async def restart(index: int) -> EngineClient:
        attempts.append(time.monotonic())
        if len(attempts) == 1:
            raise RuntimeError("the device is not back yet")
        return await launch.start_engine(tiny_config, in_process=True)

    pool = ReplicaPool(engines, block_size=tiny_config.block_size, restart=restart)
    pool.supervise()
    try:
        died = time.monotonic()
        await engines[1].shutdown()
        await _until(lambda: pool.live() == [True, True])
        assert len(attempts) == 2 and pool.restarts == [0, 1]
        assert attempts[0] - died >= 1.0  # the first wait
        assert attempts[1] - attempts[0] >= 2.0  # doubled: it died young (here, it never came up)
    finally:
        await pool.shutdown()
