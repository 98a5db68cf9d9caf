"""A gateway worker whose event loop froze while its streams ran is hung up on by the engine host once it leaves more
than the backlog bound unread (``WARDEN_ENGINE_MAX_BACKLOG_MIB``); when the loop runs again its streams end with
``EngineDeadError`` (the outputs its socket still held first, never a hang), and its pool (``connect_replicas``, as
``warden serve --workers N`` opens it) reconnects to the same host and serves: no permanent 503.

The freeze is real: the test blocks the loop the pool runs on, so neither its reader nor its supervisor turns, as in
a worker stuck in a blocking call, until the host has hung up on it (the socket's peer end closed: POLLRDHUP).
"""

from __future__ import annotations

import asyncio
import secrets
import select
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.errors import EngineDeadError
from engine.host import MAX_BACKLOG_ENV, start_engine_host
from engine.outputs import RequestOutput
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.replicas import ReplicaPool, connect_replicas
from tests.engine.tiny_models import write_tiny_checkpoint

# A host process loads the tiny model: 10-60 s on a shared CPU.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
STREAMS, LONG_TOKENS = 8, 1900  # far more output than 64 KiB: the bound is passed long before they would finish
HANG_GUARD_S = 120.0  # a host that never hangs up (or a pool that never comes back) fails here, not at the timeout


@pytest.fixture(scope="module")
def long_context_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-llama-2k-frozen"), max_position_embeddings=2048)


def _frozen_until_hung_up(fd: int) -> None:
    """Block this thread (the pool's loop) until the host closes its end of the connection at ``fd``."""
    poller = select.poll()
    poller.register(fd, select.POLLRDHUP)
    deadline = time.monotonic() + HANG_GUARD_S
    while not poller.poll(100):
        assert time.monotonic() < deadline, "the host never hung up on the frozen worker"


async def _rest(stream: AsyncIterator[RequestOutput]) -> tuple[int, BaseException | None]:
    tokens = 0
    try:
        async for delta in stream:
            tokens += len(delta.token_ids)
    except EngineDeadError as exc:
        return tokens, exc
    return tokens, None


async def test_a_worker_frozen_past_the_backlog_bound_reconnects_and_serves(
        long_context_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_BACKLOG_ENV, "0.0625")  # 64 KiB, read by the host at its start
    config = EngineConfig(model=str(long_context_dir), show_progress=False, num_kv_blocks=2048, block_size=16)
    authkey = secrets.token_bytes(32)
    host = start_engine_host(config, tmp_path / "engine.sock", authkey)
    pool = await connect_replicas(config, [host.address], authkey)
    assert isinstance(pool, ReplicaPool)
    try:
        first = pool.replicas[0]
        long = SamplingParams(max_tokens=LONG_TOKENS, temperature=0, ignore_eos=True)
        streams = [pool.generate(EngineRequest(f"s{i}", [5 + i, 6, 7], long)).__aiter__() for i in range(STREAMS)]
        await asyncio.wait_for(asyncio.gather(*(s.__anext__() for s in streams)), HANG_GUARD_S)  # all running
        _frozen_until_hung_up(first._inbox.fileno())  # type: ignore[attr-defined]
        ended = await asyncio.wait_for(asyncio.gather(*(_rest(s) for s in streams)), HANG_GUARD_S)
        assert all(isinstance(exc, EngineDeadError) for _, exc in ended), ended
        assert all(tokens < LONG_TOKENS - 1 for tokens, _ in ended)  # cut short: the host aborted them
        short = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)
        deadline = asyncio.get_running_loop().time() + HANG_GUARD_S
        while True:  # the supervisor reconnects within RECONNECT_BACKOFF_S; until then a request fails fast
            try:
                tokens = [t async for d in pool.generate(EngineRequest("after", [9, 9], short)) for t in d.token_ids]
                break
            except EngineDeadError:
                assert asyncio.get_running_loop().time() < deadline, "the pool never reconnected to its host"
                await asyncio.sleep(0.2)
        assert len(tokens) == 8
        assert pool.replicas[0] is not first and pool.replicas[0].core_pid == host.process.pid  # type: ignore
        assert host.is_alive()
    finally:
        await pool.shutdown()
        host.stop()
