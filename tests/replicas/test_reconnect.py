"""A worker's pool (``connect_replicas``, ``warden serve --workers N``) reconnects to an engine host that another
process restarts within seconds of the host's socket answering again, however long the host was down: its retries
are capped at ``RECONNECT_BACKOFF_S``, not the minute a cold engine restart backs off to. A worker that starts while
the host is down waits for it instead of failing its start-up (which would make uvicorn stop every worker)."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.host import start_engine_host
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, connect_replicas
from gateway.replicas.pool import RECONNECT_BACKOFF_S

# Host processes load the model: 20-60 s (a first one on a machine may build the C++ kernels: minutes).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
FAILED_ATTEMPTS = 5  # the uncapped backoff would wait 32 s after this many
REATTACH_SLACK_S = 6.0  # the supervisor's look (0.5 s) and one connect, on a machine shared with other work


class HangingUp:
    """A listener at the host's socket that hangs up on every caller (a host that is not back yet), counting them."""

    def __init__(self, address: Path) -> None:
        self.address = address
        self.accepted = 0
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.bind(str(address))
        self._sock.listen()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._thread.join(5)
        self.address.unlink()


async def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout_s, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def test_a_worker_reattaches_within_seconds_of_the_host_answering_again(tiny_config: EngineConfig,
                                                                         tmp_path: Path) -> None:
    authkey = secrets.token_bytes(32)
    address = tmp_path / "engine.sock"
    host = start_engine_host(tiny_config, address, authkey)
    hosts = [host]

    async def scenario() -> None:
        pool = await connect_replicas(tiny_config, [address], authkey)
        assert isinstance(pool, ReplicaPool)
        try:
            os.kill(host.process.pid, signal.SIGKILL)
            host.process.join(10)
            await _until(lambda: not pool.is_alive(), 10, "the pool to see the host die")
            address.unlink(missing_ok=True)  # a killed host leaves its socket file
            absent = HangingUp(address)
            try:
                # Every attempt in these 5 is refused; uncapped, they would take 1+2+4+8+16 s and the next 32 s.
                elapsed = await _until(lambda: absent.accepted >= FAILED_ATTEMPTS, 60, "the pool's retries")
                assert elapsed < FAILED_ATTEMPTS * RECONNECT_BACKOFF_S[1] + 3
            finally:
                absent.close()
            loop = asyncio.get_running_loop()
            hosts.append(await loop.run_in_executor(None, start_engine_host, tiny_config, address, authkey))
            # From the moment the restarted host listens: the next retry is at most RECONNECT_BACKOFF_S[1] away, then
            # the connect itself (the greeting, the tokenizer's load: seconds on a loaded machine). Uncapped, the
            # retry after the 5 refused ones would come 32 s after the last.
            reattached = await _until(pool.is_alive, 60, "the pool to reconnect")
            assert reattached < RECONNECT_BACKOFF_S[1] + REATTACH_SLACK_S, reattached
            request = EngineRequest(request_id="after-restart", prompt_token_ids=[1, 2, 3, 4],
                                    sampling_params=SamplingParams(max_tokens=3, temperature=0, ignore_eos=True))
            outputs = [o async for o in pool.generate(request)]
            assert outputs[-1].finished and sum(len(o.token_ids) for o in outputs) == 3
            assert pool.restarts == [1]
        finally:
            await pool.shutdown()

    try:
        asyncio.run(scenario())
    finally:
        for started in hosts:
            started.stop(10)


def test_a_worker_started_while_its_host_is_down_waits_for_it(tiny_config: EngineConfig, tmp_path: Path) -> None:
    authkey = secrets.token_bytes(32)
    address = tmp_path / "engine.sock"
    hosts = []

    async def scenario() -> None:
        connecting = asyncio.create_task(connect_replicas(tiny_config, [address], authkey))
        await asyncio.sleep(3.0)  # refused at least twice meanwhile
        assert not connecting.done()
        loop = asyncio.get_running_loop()
        hosts.append(await loop.run_in_executor(None, start_engine_host, tiny_config, address, authkey))
        pool = await asyncio.wait_for(connecting, RECONNECT_BACKOFF_S[1] + REATTACH_SLACK_S)
        try:
            assert pool.is_alive()
        finally:
            await pool.shutdown()

    try:
        asyncio.run(scenario())
    finally:
        for started in hosts:
            started.stop(10)
