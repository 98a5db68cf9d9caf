"""An engine host: one engine in its own process, served over a Unix socket to several clients (the workers of a
multi-worker gateway). Each client gets its own outputs; one that leaves has its requests aborted while the others
go on; stats count every token once however the reporting client changes; strangers are refused."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import stat
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.core.client import AsyncEngineClient
from engine.errors import EngineDeadError
from engine.host import EngineHostProcess, connect_engine, start_engine_host
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.timeout(300)
GREEDY = SamplingParams(max_tokens=6, temperature=0, ignore_eos=True)


@pytest.fixture
def config(tiny_llama_dir: Path) -> EngineConfig:
    return EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=64, block_size=4)


@pytest.fixture
def authkey() -> bytes:
    return secrets.token_bytes(32)


@pytest.fixture
def host(config: EngineConfig, authkey: bytes, tmp_path: Path):
    started = start_engine_host(config, tmp_path / "engine.sock", authkey)
    yield started
    started.stop()


async def collect(client: AsyncEngineClient, request: EngineRequest) -> list[int]:
    return [t async for delta in client.generate(request) for t in delta.token_ids]


async def wait_for_stats(client: AsyncEngineClient, predicate, timeout: float = 30.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        stats = client.stats()
        if stats is not None and predicate(stats):
            return stats
        await asyncio.sleep(0.05)
    raise AssertionError(f"no matching stats within {timeout} s (last: {client.stats()})")


async def test_two_clients_share_one_engine_each_getting_its_own_outputs(host: EngineHostProcess, config, authkey):
    a = await connect_engine(config, host.address, authkey)
    b = await connect_engine(config, host.address, authkey)
    try:
        assert a.core_pid == b.core_pid == host.process.pid
        prompts = [[5, 6, 7, 8], [9, 10, 11], [12, 13, 14, 15, 16]]
        results = await asyncio.gather(*(collect(client, EngineRequest(f"{name}{i}", p, GREEDY))
                                         for name, client in (("a", a), ("b", b)) for i, p in enumerate(prompts)))
        assert results[:3] == results[3:]  # the same prompts, greedy: the same tokens on either client
        assert all(len(tokens) == 6 for tokens in results)
    finally:
        await a.shutdown()
        await b.shutdown()


# The connection going away under the client's reader (which watches it on the event loop) must end its streams.
async def test_a_client_that_leaves_has_its_requests_aborted_and_the_host_serves_on(host, config, authkey):
    leaving = await connect_engine(config, host.address, authkey)
    staying = await connect_engine(config, host.address, authkey)
    long = SamplingParams(max_tokens=240, temperature=0, ignore_eos=True)
    prompts = [[5 + i, 6, 7] for i in range(8)]
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.gather(*(collect(staying, EngineRequest(f"full{i}", p, long)) for i, p in enumerate(prompts)))
    full_s = loop.time() - started  # how long the batch takes when nobody leaves
    streams = [leaving.generate(EngineRequest(f"cut{i}", p, long)).__aiter__() for i, p in enumerate(prompts)]
    await asyncio.gather(*(stream.__anext__() for stream in streams))  # all running in the engine now
    started = loop.time()
    # The worker process died: its socket is gone, no goodbye. (Shut down, not closed: the client reads through a
    # descriptor of its own, so closing the one its Connection holds would leave the socket open.)
    with socket.socket(fileno=os.dup(leaving._inbox.fileno())) as gone:
        gone.shutdown(socket.SHUT_RDWR)
    # leaving was the older connection, so staying reports now; the engine stops the batch instead of finishing it.
    await wait_for_stats(staying, lambda s: s.num_requests_running == 0)
    assert loop.time() - started < full_s / 2, (loop.time() - started, full_s)
    assert await collect(staying, EngineRequest("after", [5, 6, 7], GREEDY))
    assert host.is_alive()
    await staying.shutdown()
    with pytest.raises(EngineDeadError):  # deltas that arrived before the socket went come first, then the end
        async for _ in streams[0]:
            pass


async def test_stats_count_each_token_once_as_the_reporting_client_changes(host, config, authkey):
    first = await connect_engine(config, host.address, authkey)
    second = await connect_engine(config, host.address, authkey)
    await collect(first, EngineRequest("one", [5, 6, 7], GREEDY))
    await wait_for_stats(first, lambda s: s.generation_tokens == 6 and s.num_requests_running == 0)
    assert second.stats() is None  # only the oldest client reports: the workers' metrics add up
    await first.shutdown()
    await collect(second, EngineRequest("two", [8, 9], SamplingParams(max_tokens=4, temperature=0, ignore_eos=True)))
    # Promoted: counters start where the first reporter's ended, so the two sum to the engine's 10 tokens.
    stats = await wait_for_stats(second, lambda s: s.num_requests_running == 0 and s.generation_tokens > 0)
    assert stats.generation_tokens == 4
    await second.shutdown()


async def test_a_client_without_the_key_is_refused_and_others_still_served(host, config, authkey):
    with pytest.raises(EngineDeadError):
        await connect_engine(config, host.address, secrets.token_bytes(32))
    client = await connect_engine(config, host.address, authkey)
    assert await collect(client, EngineRequest("ok", [5, 6], GREEDY))
    await client.shutdown()


async def test_shutdown_of_a_client_leaves_the_host_running(host, config, authkey):
    client = await connect_engine(config, host.address, authkey)
    await client.shutdown()
    again = await connect_engine(config, host.address, authkey)
    assert await collect(again, EngineRequest("again", [5, 6], GREEDY))
    await again.shutdown()
    assert host.is_alive()


def test_socket_is_the_owners_only_and_gone_after_stop(config, authkey, tmp_path: Path):
    host = start_engine_host(config, tmp_path / "engine.sock", authkey)
    mode = stat.S_IMODE(os.stat(host.address).st_mode)
    assert mode & 0o077 == 0, oct(mode)
    host.stop()
    assert host.process.exitcode == 0  # SIGTERM: an orderly exit
    assert not host.address.exists()


def test_no_host_at_the_address_is_an_engine_dead_error(config, authkey, tmp_path: Path):
    with pytest.raises(EngineDeadError):
        asyncio.run(connect_engine(config, tmp_path / "nobody.sock", authkey))


async def test_a_caller_that_hangs_up_during_the_challenge_leaves_the_host_accepting(host, config, authkey):
    for _ in range(3):  # a raw connect and close: the authentication challenge meets EOF
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            raw.connect(str(host.address))
    client = await connect_engine(config, host.address, authkey)
    assert await collect(client, EngineRequest("still", [5, 6], GREEDY))
    await client.shutdown()


async def test_a_second_host_is_refused_a_live_hosts_address(host, config, authkey):
    with pytest.raises(EngineDeadError, match="already listening"):
        start_engine_host(config, host.address, authkey)
    client = await connect_engine(config, host.address, authkey)
    assert await collect(client, EngineRequest("first", [5, 6], GREEDY))
    await client.shutdown()


def test_a_socket_file_left_by_a_killed_host_is_replaced(config, authkey, tmp_path: Path):
    stale = tmp_path / "engine.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(stale))  # bound and never listening: what a SIGKILLed host leaves
    host = start_engine_host(config, stale, authkey)
    try:
        assert host.is_alive()
    finally:
        host.stop()
