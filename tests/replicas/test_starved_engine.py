"""A busy engine is never taken for a dead one: a worker's pool (``connect_replicas``, the path of ``warden serve
--workers N``) over a real engine host process that is stopped and resumed in short bursts (SIGSTOP/SIGCONT, as a
process starved of CPU runs) while hundreds of requests with long prompts are in flight. The host reads nothing
while stopped, so the socket between them fills both ways; every request must still complete, with no
``EngineDeadError`` and no restart. Under the gateway's own event loop (uvloop, whose ``add_reader`` switches the
shared socket to non-blocking) and under asyncio's.

The host is ``bench.stub_engine`` (the engine host protocol, a fixed two-delta answer, no model), so the transport is
what is under test. That a stopped engine is still killed once it stays stopped past the watchdog's bound is
``tests/gateway/test_engine_supervision.py::test_a_worker_kills_a_hung_engine_host``.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvloop

from bench.stub_engine import AUTHKEY_ENV
from engine.config import EngineConfig
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, connect_replicas

pytestmark = pytest.mark.timeout(120)
REQUESTS = 400
PROMPT_TOKENS = 4000  # ~12 KB pickled per request: a few dozen fill a socket's buffer
STOPPED_S, RUNNING_S = 0.3, 0.05  # each burst far below any watchdog bound
REPO = Path(__file__).resolve().parents[2]


class StubHost:
    def __init__(self, address: Path, authkey: bytes) -> None:
        self.address = address
        env = {**os.environ, AUTHKEY_ENV: authkey.hex(), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen([sys.executable, "-m", "bench.stub_engine", "--socket", str(address)],
                                        env=env, cwd=REPO, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while not address.exists():
            assert self.process.poll() is None and time.monotonic() < deadline, "the stub engine did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        os.kill(self.process.pid, signal.SIGCONT)
        self.process.terminate()
        self.process.wait(10)


@pytest.fixture
def stub_host(tmp_path: Path) -> Iterator[tuple[StubHost, bytes]]:
    authkey = secrets.token_bytes(32)
    host = StubHost(tmp_path / "stub.sock", authkey)
    yield host, authkey
    host.stop()


async def _starve(pid: int, done: asyncio.Event) -> None:
    """Stop and resume ``pid`` in bursts until ``done``."""
    try:
        while not done.is_set():
            os.kill(pid, signal.SIGSTOP)
            await asyncio.sleep(STOPPED_S)
            os.kill(pid, signal.SIGCONT)
            await asyncio.sleep(RUNNING_S)
    finally:
        os.kill(pid, signal.SIGCONT)


async def _complete(pool: ReplicaPool, index: int) -> bool:
    request = EngineRequest(request_id=f"starved-{index}", prompt_token_ids=[1 + index % 1000] * PROMPT_TOKENS,
                            sampling_params=SamplingParams(max_tokens=2))
    outputs = [output async for output in pool.generate(request)]
    return outputs[-1].finished


async def _scenario(config: EngineConfig, host: StubHost, authkey: bytes) -> None:
    pool = await connect_replicas(config, [host.address], authkey, watchdog_s=5.0)
    assert isinstance(pool, ReplicaPool)
    replica = pool.replicas[0]
    try:
        done = asyncio.Event()
        starving = asyncio.create_task(_starve(host.process.pid, done))
        # Stopped before the first request is sent: the first stop alone has the requests' ~5 MB wait on a socket
        # that holds a few hundred KB.
        await asyncio.sleep(0)
        results = await asyncio.gather(*(_complete(pool, i) for i in range(REQUESTS)), return_exceptions=True)
        done.set()
        await starving
        errors = [r for r in results if isinstance(r, BaseException)]
        assert not errors, f"{len(errors)} of {REQUESTS} failed, first: {errors[0]!r}"
        assert all(results)
        assert pool.replicas[0] is replica and replica.is_alive()
        assert pool.restarts == [0]
        assert pool.watchdog is not None and pool.watchdog.kills == 0
    finally:
        await pool.shutdown()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_an_engine_stopped_in_bursts_completes_every_request(loop: str, stub_host: tuple[StubHost, bytes],
                                                            tiny_model_dir: Path) -> None:
    host, authkey = stub_host
    config = EngineConfig(model=str(tiny_model_dir), show_progress=False)
    factory = uvloop.new_event_loop if loop == "uvloop" else asyncio.new_event_loop
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(_scenario(config, host, authkey))
    assert host.process.poll() is None, "the engine host itself must not have died"
