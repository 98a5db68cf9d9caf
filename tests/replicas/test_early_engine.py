"""The engine `warden serve` starts before its own set-up (``spawn_early``): the pool's first start attaches to that
process instead of spawning a second one, an engine for another config is never adopted, and one nobody attached to
is stopped (``discard_early``)."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from engine.config import EngineConfig
from engine.launch import SpawnedEngine
from gateway.cli import _spawns_engine_early
from gateway.core.settings import Settings
from gateway.replicas import ReplicaPool, start_replicas
from gateway.replicas import launch as replicas_launch
from tests.replicas.test_pool import chat_ids, drain, request

QUESTION = [{"role": "user", "content": "What is the capital of France?"}]


def early_engine() -> SpawnedEngine:
    assert len(replicas_launch._early) == 1
    return replicas_launch._early[0]


def test_an_unattached_early_engine_is_stopped(tiny_config: EngineConfig) -> None:
    replicas_launch.spawn_early(tiny_config)
    spawned = early_engine()
    assert spawned.is_alive()
    replicas_launch.discard_early()
    assert not spawned.is_alive() and replicas_launch._early == []
    replicas_launch.discard_early()  # nothing left: a no-op


def test_an_early_engine_for_another_config_is_not_adopted(tiny_config: EngineConfig) -> None:
    replicas_launch.spawn_early(tiny_config)
    spawned = early_engine()
    other = dataclasses.replace(tiny_config, max_num_seqs=tiny_config.max_num_seqs + 1)
    assert replicas_launch._take_early(other) is None
    assert not spawned.is_alive() and replicas_launch._early == []


@pytest.mark.slow  # two engine processes start (spawn, torch import, load): tens of seconds on a shared CPU
async def test_the_pool_attaches_to_the_early_engine_once(tiny_config: EngineConfig) -> None:
    replicas_launch.spawn_early(tiny_config)
    spawned = early_engine()
    pool = await start_replicas(tiny_config, 1, supervise_one=True, standby=False)
    assert isinstance(pool, ReplicaPool)
    try:
        assert pool.replicas[0].core_pid == spawned.process.pid  # type: ignore[attr-defined]
        assert replicas_launch._early == []  # the pool owns it now
        replicas_launch.discard_early()  # what `warden serve` does on exit: must not touch the pool's engine
        assert pool.replicas[0].is_alive()
        outputs = await drain(pool.generate(request(chat_ids(pool, QUESTION), "salt-a")))
        assert outputs[-1].finish_reason == "length"
        # A later start (a restart) spawns afresh: the early engine is adopted once.
        fresh = await start_replicas(tiny_config, 1, supervise_one=True, standby=False)
        try:
            assert fresh.replicas[0].core_pid != spawned.process.pid  # type: ignore[attr-defined]
        finally:
            await fresh.shutdown()
    finally:
        await pool.shutdown()
    assert not spawned.is_alive()


@pytest.mark.parametrize(
    ("workers", "environment", "early"),
    [
        (1, {}, True),
        (2, {"WARDEN_REDIS_URL": "redis://127.0.0.1:6379/0"}, False),  # engine hosts are shared by the workers
        (1, {"WARDEN_ENGINE_IN_PROCESS": "true"}, False),
        (1, {"WARDEN_ENGINE_REPLICAS": "2"}, False),
    ],
)
def test_serve_starts_the_engine_early_for_one_worker_and_one_engine_process(
        monkeypatch: pytest.MonkeyPatch, workers: int, environment: dict[str, str], early: bool) -> None:
    for name in ("WARDEN_ENGINE_IN_PROCESS", "WARDEN_ENGINE_REPLICAS", "WARDEN_ENGINE_SOCKETS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert _spawns_engine_early(argparse.Namespace(workers=workers), Settings()) is early
