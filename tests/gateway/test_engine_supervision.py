"""The engine supervised in the default deployment shape (one replica, its engine in its own process) and behind
an engine host (``--workers N``): a killed engine comes back and serves again while /readyz says not_ready and
calls get 503 + Retry-After; a stopped (hung) engine with work waiting is killed by the step watchdog within its
bound and restarted; the watchdog never takes an idle engine for a hung one.

Real engine processes serving a tiny random Llama (SmolLM2's tokenizer), a real app over TestClient, guardrails off.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key, tiny_app_settings

from engine.config import EngineConfig
from engine.core.heartbeat import Heartbeat
from engine.errors import EngineDeadError
from engine.host import start_engine_host
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.replicas import ReplicaPool, connect_replicas
from gateway.replicas.watchdog import StepWatchdog
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = pytest.mark.timeout(240)
WATCHDOG_S = 2.0


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-supervised-model"))


@pytest.fixture(scope="module")
def app_settings(database_url: str, tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return tiny_app_settings(database_url, tiny_model, tmp_path_factory.mktemp("supervised-data"),
                             "supervision-test-secret", engine_in_process=False, engine_watchdog_s=WATCHDOG_S,
                             engine_standby=False)  # the cold restart (tests/replicas/test_standby.py: the standby)


@pytest.fixture(scope="module")
def client(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings)) as test_client:
        yield test_client


def _pool(client: TestClient) -> ReplicaPool:
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    assert isinstance(engine, ReplicaPool) and len(engine.replicas) == 1
    return engine


def _chat(client: TestClient, api_key: str, model: str, **extra: object):  # type: ignore[no-untyped-def]
    return client.post("/v1/chat/completions", headers={"authorization": f"Bearer {api_key}"},
                       json={"model": model, "max_tokens": 4, "temperature": 0,
                             "messages": [{"role": "user", "content": "Hello there"}], **extra})


def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> float:
    """Seconds until ``condition`` held; fails after ``timeout_s``."""
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout_s, f"timed out waiting for {what}"
        time.sleep(0.05)
    return time.monotonic() - started


@pytest.mark.slow  # an engine process is restarted (spawn, torch import, load): tens of seconds
def test_a_killed_engine_is_restarted_and_serves_again(client: TestClient, db: Database,
                                                       app_settings: Settings) -> None:
    pool = _pool(client)
    _, key = new_tenant_with_key(db, app_settings)
    assert client.get("/readyz").json() == {"status": "ready", "reason": "ready", "audit_quarantined": 0}
    assert _chat(client, key.api_key, pool.model_name).status_code == 200
    pid = pool.replicas[0].core_pid  # type: ignore[attr-defined]
    restarts = pool.restarts[0]
    os.kill(pid, signal.SIGKILL)
    _until(lambda: not pool.is_alive(), 10, "the pool to see the engine dead")
    # Down: not ready, and a call is a 503 the client can retry, until the supervisor brings the engine back.
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "not_ready", "reason": "engine", "audit_quarantined": 0}
    refused = _chat(client, key.api_key, pool.model_name)
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "engine_unavailable"
    assert int(refused.headers["retry-after"]) >= 1
    _until(lambda: client.get("/readyz").status_code == 200, 120, "the engine to come back")
    assert pool.restarts[0] == restarts + 1 and pool.replicas[0].core_pid != pid  # type: ignore[attr-defined]
    answer = _chat(client, key.api_key, pool.model_name)
    assert answer.status_code == 200 and answer.json()["usage"]["completion_tokens"] == 4


@pytest.mark.slow  # an engine process is restarted (spawn, torch import, load): tens of seconds
def test_a_hung_engine_with_work_is_killed_by_the_watchdog_and_restarted(client: TestClient, db: Database,
                                                                          app_settings: Settings) -> None:
    pool = _pool(client)
    _until(lambda: client.get("/readyz").status_code == 200, 120, "a ready engine")
    _, key = new_tenant_with_key(db, app_settings)
    replica = pool.replicas[0]
    pid = replica.core_pid  # type: ignore[attr-defined]
    time.sleep(WATCHDOG_S + 1)  # idle for longer than the bound: an idle engine is never taken for a hung one
    assert pool.replicas[0] is replica and replica.is_alive()
    os.kill(pid, signal.SIGSTOP)  # hung: alive, but its loop does not turn
    try:
        started = time.monotonic()
        stuck = _chat(client, key.api_key, pool.model_name)  # waits on the stopped engine until the watchdog acts
        waited = time.monotonic() - started
        assert stuck.status_code == 503 and stuck.json()["error"]["code"] == "engine_unavailable"
        assert "retry-after" in stuck.headers
        # The bound, plus the supervisor's tick and a loaded machine's slack.
        assert WATCHDOG_S <= waited < WATCHDOG_S + 5, waited
        assert pool.watchdog is not None and pool.watchdog.kills >= 1
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    _until(lambda: client.get("/readyz").status_code == 200, 120, "the engine to come back")
    assert pool.replicas[0].core_pid != pid  # type: ignore[attr-defined]
    assert _chat(client, key.api_key, pool.model_name).status_code == 200


@pytest.mark.slow  # an engine host starts, hangs and is killed: about 20 s
def test_a_worker_kills_a_hung_engine_host(tiny_model: Path, tmp_path: Path) -> None:
    """``--workers N``: the worker's pool reads the host's heartbeat file; a host that stops with the worker's request
    waiting is killed (the process running the hosts restarts it; here the test is that process)."""
    config = EngineConfig(model=str(tiny_model), show_progress=False, num_kv_blocks=64, block_size=4)
    authkey = secrets.token_bytes(32)
    host = start_engine_host(config, tmp_path / "engine.sock", authkey)

    async def scenario() -> None:
        pool = await connect_replicas(config, [host.address], authkey, watchdog_s=WATCHDOG_S)
        assert isinstance(pool, ReplicaPool)
        try:
            request = EngineRequest(request_id="hung-host-1", prompt_token_ids=[1, 2, 3, 4],
                                    sampling_params=SamplingParams(max_tokens=4, temperature=0, ignore_eos=True))
            outputs = [o async for o in pool.generate(request)]
            assert outputs[-1].finished
            os.kill(host.process.pid, signal.SIGSTOP)
            started = time.monotonic()
            with pytest.raises(EngineDeadError):
                async for _ in pool.generate(EngineRequest(request_id="hung-host-2", prompt_token_ids=[1, 2, 3],
                                                           sampling_params=request.sampling_params)):
                    pass
            assert WATCHDOG_S <= time.monotonic() - started < WATCHDOG_S + 5
        finally:
            await pool.shutdown()

    try:
        asyncio.run(scenario())
        host.process.join(10)
        assert host.process.exitcode == -signal.SIGKILL
    finally:
        host.stop()


def test_the_heartbeat_file_is_read_by_another_mapping(tmp_path: Path) -> None:
    writer = Heartbeat.create(tmp_path / "engine.beat")
    reader = Heartbeat.at(tmp_path / "engine.beat")
    for _ in range(3):
        writer.beat()
    assert reader.count == 3
    replaced = Heartbeat.create(tmp_path / "engine.beat")  # a restarted engine's file: the old reader keeps its own
    replaced.beat()
    assert reader.count == 3 and Heartbeat.at(tmp_path / "engine.beat").count == 1
    assert oct((tmp_path / "engine.beat").stat().st_mode & 0o777) == "0o600"


class _Replica:
    """The parts of an engine client the watchdog reads, for its timing rules (the processes are tested above)."""

    def __init__(self) -> None:
        self.heartbeat = Heartbeat.shared()
        self.core_pid = 1
        self.work = False

    def has_work(self) -> bool:
        return self.work

    def is_alive(self) -> bool:
        return True


def test_the_watchdog_fires_only_after_the_bound_with_work_and_no_beat() -> None:
    now = [0.0]
    watchdog = StepWatchdog(30.0, clock=lambda: now[0])
    replica = _Replica()

    def at(t: float) -> bool:
        now[0] = t
        return watchdog.hung(0, replica)

    assert not at(0) and not at(100)  # idle: never
    replica.work = True
    assert not at(101) and not at(130)  # the clock starts when work appears
    assert at(131.5)
    replica.heartbeat.beat()  # a step completed: the clock starts again
    assert not at(132) and not at(161) and at(162.5)
    replica.work = False
    assert not at(200)
    fresh = _Replica()  # a restarted replica in the same slot starts afresh
    fresh.work = True
    now[0] = 300
    assert not watchdog.hung(0, fresh)
    now[0] = 329
    assert not watchdog.hung(0, fresh)
    in_thread = _Replica()
    in_thread.core_pid = None  # type: ignore[assignment]
    in_thread.work = True
    assert not watchdog.watchable(in_thread) and not watchdog.hung(1, in_thread)
