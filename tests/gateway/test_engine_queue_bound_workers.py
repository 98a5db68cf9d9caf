"""``max_engine_waiting_requests`` holds on every worker of a multi-worker gateway, not only on the one its engine
host sends stats snapshots to: two workers' pools over one real engine host (tiny model, one sequence at a time),
one of them queues long requests, and both workers' admission gates refuse (503 ``engine_queue_full``) while the
engine's queue is past the bound, then admit again once it has drained."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.core.heartbeat import Heartbeat
from engine.host import start_engine_host
from engine.protocol import EngineClient
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.core.settings import Settings
from gateway.ratelimit.overload import AdmissionGate, Overloaded, build_gate
from gateway.replicas import connect_replicas
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = pytest.mark.timeout(300)
BOUND = 2
QUEUED = 5  # requests beyond the one running: past the bound
WAIT_S = 60.0  # a loaded machine's slack for the engine to take or drop requests


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-llama"))


async def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.02)


def _refuses(gate: AdmissionGate) -> bool:
    try:
        slot = gate.try_acquire()
    except Overloaded as refused:
        assert refused.reason == "engine_queue_full"
        return True
    assert slot is not None
    slot.release()
    return False


async def _drain(pool: EngineClient, request: EngineRequest) -> None:
    async for _ in pool.generate(request):
        pass


def test_the_waiting_count_beside_the_heartbeat_reaches_every_reader(tmp_path: Path) -> None:
    writer = Heartbeat.create(tmp_path / "engine.beat")
    readers = [Heartbeat.at(tmp_path / "engine.beat") for _ in range(2)]  # two workers map the host's file
    writer.beat()
    writer.set_waiting(7)
    assert [(r.count, r.waiting) for r in readers] == [(1, 7), (1, 7)]
    writer.set_waiting(0)
    writer.beat()
    assert [(r.count, r.waiting) for r in readers] == [(2, 0), (2, 0)]
    (tmp_path / "older.beat").write_bytes(bytes(8))  # an older host's file: its counter alone
    with pytest.raises(OSError):  # the worker goes on unwatched, admitting by the stats it is sent
        Heartbeat.at(tmp_path / "older.beat")


@pytest.mark.slow  # an engine host loads the tiny model and two pools connect to it: about 20 s on a loaded machine
def test_every_worker_refuses_past_the_engine_queue_bound(tiny_model: Path, tmp_path: Path) -> None:
    config = EngineConfig(model=str(tiny_model), show_progress=False, num_kv_blocks=256, block_size=4, max_num_seqs=1)
    authkey = secrets.token_bytes(32)
    host = start_engine_host(config, tmp_path / "engine.sock", authkey)
    settings = Settings(max_engine_waiting_requests=BOUND)

    async def scenario() -> None:
        # The first caller is the host's stats reporter; the second is sent no snapshots while the first reads.
        pools = [await connect_replicas(config, [host.address], authkey) for _ in range(2)]
        gates = [build_gate(settings, lambda pool=pool: pool) for pool in pools]  # type: ignore[misc]
        params = SamplingParams(max_tokens=400, temperature=0, ignore_eos=True)
        queued = [asyncio.create_task(_drain(pools[0], EngineRequest(f"long-{i}", [5 + i, 6, 7], params)))
                  for i in range(1 + QUEUED)]
        try:
            await _until(lambda: all(_refuses(gate) for gate in gates), "a worker admitted past the engine's bound")
        finally:
            for task in queued:
                task.cancel()  # the pool aborts each request in the engine
            await asyncio.gather(*queued, return_exceptions=True)
        await _until(lambda: not any(_refuses(gate) for gate in gates), "a worker refused an idle engine")
        for pool in pools:
            await pool.shutdown()

    try:
        asyncio.run(scenario())
    finally:
        with contextlib.suppress(Exception):
            host.stop()
