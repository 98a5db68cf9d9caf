"""One engine host caller that stops reading never stalls the engine for the others: a real host process (tiny
model), caller A adds many long requests and then reads nothing (a stopped gateway worker: its socket fills), while
caller B's requests all complete and the host's heartbeat keeps moving. Below the host's backlog bound A, reading
again, gets every output in order; past it, the host has hung up on A (what its socket held, then the end) and
aborted its requests, and serves B on. An A that was reporting the engine's stats is passed over for B.

A is a bare authenticated connection, so that "stops reading" is exact; B is the gateway's own client.
"""

from __future__ import annotations

import asyncio
import fcntl
import secrets
import struct
import termios
from collections.abc import Callable, Iterator
from multiprocessing.connection import Client, Connection
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import pytest

from engine.config import EngineConfig
from engine.core.client import AsyncEngineClient
from engine.core.engine_core import DEFAULT_MAX_BACKLOG_BYTES
from engine.core.heartbeat import Heartbeat
from engine.errors import EngineError
from engine.host import MAX_BACKLOG_ENV, EngineHostProcess, connect_engine, max_backlog_bytes, start_engine_host
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = pytest.mark.timeout(600)
A_REQUESTS, A_TOKENS = 16, 360
A_LONG_TOKENS = 1900  # past the bound: A's requests would run on long after B's, were they not aborted
B_REQUESTS, B_TOKENS = 4, 240
HANG_GUARD_S = 120.0  # a stalled engine fails the test here instead of at pytest's timeout (2 shared cores: slow)


@pytest.fixture(scope="module")
def long_context_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-llama-2k"), max_position_embeddings=2048)


@pytest.fixture
def config(long_context_dir: Path) -> EngineConfig:
    return EngineConfig(model=str(long_context_dir), show_progress=False, num_kv_blocks=10_000, block_size=4)


@pytest.fixture
def authkey() -> bytes:
    return secrets.token_bytes(32)


def _host(config: EngineConfig, authkey: bytes, tmp_path: Path) -> Iterator[EngineHostProcess]:
    started = start_engine_host(config, tmp_path / "engine.sock", authkey)
    yield started
    started.stop()


@pytest.fixture
def host(config: EngineConfig, authkey: bytes, tmp_path: Path) -> Iterator[EngineHostProcess]:
    yield from _host(config, authkey, tmp_path)


@pytest.fixture
def bounded_host(config: EngineConfig, authkey: bytes, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[EngineHostProcess]:
    monkeypatch.setenv(MAX_BACKLOG_ENV, "0.0625")  # 64 KiB: A's unread output passes it within B's run
    yield from _host(config, authkey, tmp_path)


def _stopped_caller(host: EngineHostProcess, authkey: bytes, tokens: int) -> Connection:
    """Caller A: its requests added, then it reads nothing."""
    conn = Client(str(host.address), family="AF_UNIX", authkey=authkey)
    assert conn.recv()[0] == "ready"
    params = SamplingParams(max_tokens=tokens, temperature=0, ignore_eos=True)
    for i in range(A_REQUESTS):
        conn.send(("add", EngineRequest(f"a{i}", [5 + i, 6, 7], params)))
    return conn


def _unread_bytes(conn: Connection) -> int:
    """Bytes waiting in ``conn``'s socket, sent by the host and not yet read."""
    return struct.unpack("i", fcntl.ioctl(conn.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]


async def _run_b(client: AsyncEngineClient) -> list[int]:
    params = SamplingParams(max_tokens=B_TOKENS, temperature=0, ignore_eos=True)

    async def one(i: int) -> int:
        return sum([len(delta.token_ids) async for delta in client.generate(EngineRequest(f"b{i}", [9, i], params))])

    return await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(B_REQUESTS))), HANG_GUARD_S)


async def _b_completes_while_a_reads_nothing(b: AsyncEngineClient, heartbeat: Heartbeat) -> None:
    beats = heartbeat.count
    assert await _run_b(b) == [B_TOKENS] * B_REQUESTS
    # one turn per step (the turn of the last step beat before B read its token)
    assert heartbeat.count - beats >= B_TOKENS - 1


def _read_all(a: Connection) -> tuple[list[tuple[int, list]], bool]:
    """Every message A gets from now on, with each one's size, and whether the host hung up."""
    messages: list[tuple[int, list]] = []
    finished: set[str] = set()
    while len(finished) < A_REQUESTS:
        assert a.poll(HANG_GUARD_S), "the host neither sent A's outputs nor hung up"
        try:
            data = a.recv_bytes()
        except EOFError:
            return messages, True
        message = ForkingPickler.loads(data)
        if message[0] == "outputs":
            messages.append((len(data), message[1]))
            finished.update(out.request_id for out in message[1] if out.finished)
    return messages, False


@pytest.mark.slow  # a host process and ~600 steps of the tiny model: 12 s alone, over a minute on shared cores
async def test_a_stopped_caller_gets_every_output_in_order_once_it_reads_again(host, config, authkey) -> None:
    b = await connect_engine(config, host.address, authkey)  # before A adds: B's requests follow A's at once
    a = _stopped_caller(host, authkey, A_TOKENS)
    await _b_completes_while_a_reads_nothing(b, Heartbeat.at(Path(host.info["heartbeat"])))
    held_by_socket = _unread_bytes(a)
    messages, hung_up = _read_all(a)
    assert not hung_up
    tokens: dict[str, list[int]] = {}
    sent_before_b_finished = 0  # bytes for A the engine produced while B ran (A's requests ran beside B's)
    for size, outputs in messages:
        if min((len(t) for t in tokens.values()), default=0) < B_TOKENS or len(tokens) < A_REQUESTS:
            sent_before_b_finished += size
        for out in outputs:
            tokens.setdefault(out.request_id, []).extend(out.token_ids)
    assert sorted(tokens) == sorted(f"a{i}" for i in range(A_REQUESTS))
    assert all(len(t) == A_TOKENS for t in tokens.values())
    # The scenario is real: more was sent to A than its socket could hold, so a blocking send would have stalled.
    assert sent_before_b_finished > held_by_socket, (sent_before_b_finished, held_by_socket)
    # Greedy: A's first request starts as the same request does for a caller that reads as it goes.
    again = [t async for d in b.generate(EngineRequest("again", [5, 6, 7], SamplingParams(
        max_tokens=64, temperature=0, ignore_eos=True))) for t in d.token_ids]
    assert tokens["a0"][:64] == again
    a.close()
    await b.shutdown()
    assert host.is_alive()


@pytest.mark.slow
async def test_a_caller_past_the_backlog_bound_is_hung_up_on_and_its_requests_aborted(bounded_host, config,
                                                                                      authkey) -> None:
    b = await connect_engine(config, bounded_host.address, authkey)  # before A adds; B reports once A is gone
    a = _stopped_caller(bounded_host, authkey, A_LONG_TOKENS)
    heartbeat = Heartbeat.at(Path(bounded_host.info["heartbeat"]))
    await _b_completes_while_a_reads_nothing(b, heartbeat)
    beats = heartbeat.count
    # A's requests were aborted, not left running: the engine goes idle within far fewer steps than they had left.
    deadline = asyncio.get_running_loop().time() + HANG_GUARD_S
    while (stats := b.stats()) is None or stats.num_requests_running:
        assert asyncio.get_running_loop().time() < deadline, f"A's requests still run: {stats}"
        await asyncio.sleep(0.05)
    assert heartbeat.count - beats < (A_LONG_TOKENS - B_TOKENS) // 2
    messages, hung_up = _read_all(a)
    assert hung_up  # what the socket held, then the end
    finished = {out.request_id for _, outputs in messages for out in outputs if out.finished}
    assert not finished
    short = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)
    after = [t async for d in b.generate(EngineRequest("after", [9, 9], short)) for t in d.token_ids]
    assert len(after) == 8
    a.close()
    await b.shutdown()
    assert bounded_host.is_alive()


def _messages_waiting(a: Connection) -> list[tuple]:
    """Every message A's socket holds now (A added no requests, so it holds few)."""
    messages = []
    while a.poll(1.0):
        messages.append(a.recv())
    return messages


async def _until(predicate: Callable[[], bool], what: str) -> None:
    deadline = asyncio.get_running_loop().time() + HANG_GUARD_S
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, what
        await asyncio.sleep(0.05)


@pytest.mark.slow  # a host process and a few hundred steps of the tiny model: ~10 s alone, more on shared cores
async def test_a_stopped_reporter_is_passed_over_and_another_caller_gets_fresh_stats(host, config, authkey) -> None:
    """A connects first, so the engine's stats go to it, and then it reads nothing (a stopped gateway worker). B's
    own requests keep the engine busy; B gets the stats within the stall bound, and the engine's tokens are counted
    once over A's last snapshot and B's. The role stays with B once A reads again."""
    a = Client(str(host.address), family="AF_UNIX", authkey=authkey)
    assert a.recv()[0] == "ready"
    b = await connect_engine(config, host.address, authkey)
    params = SamplingParams(max_tokens=32, temperature=0, ignore_eos=True)
    generated = 0

    async def run_one(name: str) -> None:
        nonlocal generated
        generated += sum([len(d.token_ids) async for d in b.generate(EngineRequest(name, [9, 8, 7], params))])

    deadline = asyncio.get_running_loop().time() + HANG_GUARD_S
    while b.stats() is None:  # the engine busy with B's requests only, as long as A holds the role
        assert asyncio.get_running_loop().time() < deadline, "B never got the engine's stats"
        await asyncio.wait_for(run_one(f"b{generated}"), HANG_GUARD_S)
    messages = _messages_waiting(a)
    stats_to_a = [m for m in messages if m[0] == "stats"]
    assert len(stats_to_a) >= 2 and all(len(m) == 3 for m in stats_to_a[:-1])  # numbered: A reported
    last = stats_to_a[-1][1]
    assert len(stats_to_a[-1]) == 2 and (last.num_requests_running, last.num_requests_waiting) == (0, 0)
    # Each token counted once: A's counters where it was passed over, and B's from there.
    await _until(lambda: (s := b.stats()) is not None and s.num_requests_running == 0
                 and last.generation_tokens + s.generation_tokens == generated, f"{b.stats()}, {last}, {generated}")
    # A reads again (and says so): B keeps reporting, A gets nothing more.
    a.send(("stats_read", stats_to_a[-2][2]))
    before = b.stats()
    await asyncio.wait_for(run_one("after"), HANG_GUARD_S)
    await _until(lambda: (s := b.stats()) is not before and s is not None and s.num_requests_running == 0
                 and last.generation_tokens + s.generation_tokens == generated, f"{b.stats()}, {generated}")
    assert not a.poll(0.5)
    a.close()
    await b.shutdown()


@pytest.mark.parametrize(("value", "expected"), [("", DEFAULT_MAX_BACKLOG_BYTES), ("0.5", 512 * 1024), ("2", 2 << 20)])
def test_the_backlog_bound_is_read_in_mib(value: str, expected: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_BACKLOG_ENV, value)
    assert max_backlog_bytes() == expected


@pytest.mark.parametrize("value", ["0", "-1", "lots", "nan"])
def test_a_bad_backlog_bound_is_refused(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_BACKLOG_ENV, value)
    with pytest.raises(ValueError, match=MAX_BACKLOG_ENV):
        max_backlog_bytes()


def test_a_bad_backlog_bound_fails_the_host_start(config: EngineConfig, authkey: bytes, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_BACKLOG_ENV, "lots")
    with pytest.raises(EngineError, match=MAX_BACKLOG_ENV):  # the host's start-up error, before the model loads
        start_engine_host(config, tmp_path / "engine.sock", authkey)
