"""The engine client reads the core's messages on the event loop: framing (``engine.core.frame_reader``), delivery
without a reader thread, use from a second loop after the first closed, a reader outside any loop, death and corruption.

The core here is a thread speaking the core's wire protocol over real ``multiprocessing`` pipes and sockets (what
``bench.stub_engine`` does for the benchmarks): the transport is what is under test, not the model.
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from typing import Any

import pytest

from engine.core.client import AsyncEngineClient
from engine.core.error_info import ErrorInfo
from engine.core.frame_reader import READ_BYTES, FrameReader
from engine.core.frame_writer import FrameWriter
from engine.errors import EngineDeadError, InvalidRequestError
from engine.metrics import EngineStats
from engine.outputs import RequestOutput, Usage
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

pytestmark = pytest.mark.timeout(60)
INFO = {"model_name": "wire-test", "max_model_len": 4096, "vocab_size": 1000}


# --- FrameReader ---------------------------------------------------------------------------------------------------

def _frame(obj: Any) -> bytes:
    payload = pickle.dumps(obj)
    return struct.pack("!i", len(payload)) + payload


@pytest.fixture(params=["pipe", "socket"])
def wire(request: pytest.FixtureRequest) -> Iterator[tuple[Connection, Connection]]:
    """(reader's end, writer's end) of a pipe or of a Unix socket pair."""
    if request.param == "pipe":
        reader, writer = mp.Pipe(duplex=False)
    else:
        reader, writer = mp.Pipe(duplex=True)
    yield reader, writer
    reader.close()
    writer.close()


def test_frames_split_anywhere_are_reassembled(wire: tuple[Connection, Connection]) -> None:
    reader_end, writer_end = wire
    frames = FrameReader(reader_end)
    messages = [("outputs", [i] * i) for i in range(1, 40)]
    stream = b"".join(_frame(m) for m in messages)
    got: list[Any] = []
    for start in range(0, len(stream), 7):  # every frame boundary falls inside some 7-byte write
        os.write(writer_end.fileno(), stream[start:start + 7])
        got += frames.read(until_empty=True)
    assert got == messages
    assert not frames.at_eof
    frames.close()


def test_a_message_larger_than_one_read_arrives_whole(wire: tuple[Connection, Connection]) -> None:
    reader_end, writer_end = wire
    frames = FrameReader(reader_end)
    big = ("outputs", "x" * (5 * READ_BYTES))
    sender = threading.Thread(target=writer_end.send, args=(big,))
    sender.start()
    got: list[Any] = []
    deadline = time.monotonic() + 10
    while not got and time.monotonic() < deadline:
        got = frames.read()  # one read at a time, as an event loop's reader does
    sender.join()
    assert got == [big]
    frames.close()


def test_the_long_length_header_is_understood(wire: tuple[Connection, Connection]) -> None:
    # Connection.send writes -1 and an 8-byte length for payloads over 2 GiB; the same frame, small, here
    reader_end, writer_end = wire
    frames = FrameReader(reader_end)
    payload = pickle.dumps(("stats", 42))
    os.write(writer_end.fileno(), struct.pack("!i", -1) + struct.pack("!Q", len(payload)) + payload)
    assert frames.read() == [("stats", 42)]
    frames.close()


def test_reading_never_waits_and_ends_at_eof(wire: tuple[Connection, Connection]) -> None:
    reader_end, writer_end = wire
    frames = FrameReader(reader_end)
    started = time.monotonic()
    assert frames.read() == [] and frames.read(until_empty=True) == []
    assert time.monotonic() - started < 1.0
    writer_end.send(("outputs", [1]))
    os.write(writer_end.fileno(), _frame(("cut", "short"))[:-3])  # a message its writer never finished
    writer_end.close()
    assert frames.read(until_empty=True) == [("outputs", [1])]
    assert frames.at_eof
    frames.close()


# --- FrameWriter ---------------------------------------------------------------------------------------------------

def test_a_full_wire_keeps_what_it_cannot_take_and_flush_sends_it_in_order(
        wire: tuple[Connection, Connection]) -> None:
    # a peer that does not read (busy, stopped) fills the wire: a send neither blocks nor fails, it waits for flush
    theirs, ours = wire
    writer = FrameWriter(ours)
    big = "x" * 100_000
    results = [writer.send(("add", i, big)) for i in range(40)]  # far more than a pipe or socket buffer holds
    assert not all(results) and writer.pending > 0
    received: list[Any] = []
    reader = threading.Thread(target=lambda: received.extend(theirs.recv() for _ in range(40)), daemon=True)
    reader.start()  # the peer reads again (on its own thread: a message may be larger than the wire holds)
    while not writer.flush():
        time.sleep(0.001)
    reader.join(30)
    assert writer.pending == 0
    assert [message[1] for message in received] == list(range(40)) and received[-1][2] == big
    writer.close()


def test_messages_sent_one_after_another_arrive_whole_and_apart(wire: tuple[Connection, Connection]) -> None:
    # one pickler serves every send: a message must not refer back to an earlier one's objects (its memo), a large
    # message must not spill into the next, and Connection.recv must read each as Connection.send would have sent it
    theirs, ours = wire
    writer = FrameWriter(ours)
    shared = EngineRequest(request_id="r1", prompt_token_ids=[1, 2, 3], sampling_params=SamplingParams(max_tokens=2))
    messages = [("add", shared), ("add", shared), ("big", "y" * 50_000), ("abort", "r1"), ("add", shared)]
    for message in messages:
        assert writer.send(message)  # each fits the wire: nothing waits for flush
        assert theirs.recv() == message
    writer.close()


def test_a_send_to_a_closed_peer_raises() -> None:
    ours, theirs = mp.Pipe(duplex=True)
    writer = FrameWriter(ours)
    theirs.close()
    with pytest.raises(OSError):
        writer.send(("add", 1))
    writer.close()
    ours.close()


# --- the client over a core that speaks the wire protocol ---------------------------------------------------------

class WireCore:
    """A core in a thread: answers each ``add`` with ``deltas`` outputs and a stats snapshot, a ``reject-*`` id with
    a rejection; with ``hold_after`` it exits (closing its end) after that many deltas of the first request."""

    def __init__(self, inbox: Connection, outbox: Connection, deltas: int = 3, *,
                 hold_after: int | None = None) -> None:
        self.inbox, self.outbox, self.deltas, self.hold_after = inbox, outbox, deltas, hold_after
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            while True:
                message = self.inbox.recv()
                if message[0] == "shutdown":
                    return
                if message[0] != "add":
                    continue
                request: EngineRequest = message[1]
                rid = request.request_id
                if rid.startswith("reject"):
                    self.outbox.send(("rejected", rid, ErrorInfo("InvalidRequestError", "no", param="x")))
                    continue
                for i in range(self.deltas):
                    if self.hold_after is not None and i == self.hold_after:
                        return  # the core "dies" mid-stream: its ends close in finally
                    last = i == self.deltas - 1
                    self.outbox.send(("outputs", [RequestOutput(rid, [i], f"t{i}", finish_reason="length" if last
                                                                else None, usage=Usage(1, i + 1))]))
                self.outbox.send(("stats", _stats(0)))
        except (EOFError, OSError):
            return
        finally:
            self.outbox.close()


def _stats(running: int) -> EngineStats:
    return EngineStats(num_requests_running=running, num_requests_waiting=0, kv_cache_usage=0.0,
                       prefix_cache_queries=0, prefix_cache_hits=0, prompt_tokens=0, generation_tokens=0,
                       num_preemptions=0, timestamp_ns=0)


def _client(**core_options: Any) -> tuple[AsyncEngineClient, WireCore]:
    in_recv, in_send = mp.Pipe(duplex=False)
    out_recv, out_send = mp.Pipe(duplex=False)
    core = WireCore(in_recv, out_send, **core_options)
    client = AsyncEngineClient(inbox=in_send, outbox=out_recv, tokenizer=None,  # type: ignore[arg-type]
                               info=INFO, is_core_alive=core.thread.is_alive, stop_core=core.thread.join)
    return client, core


def _request(rid: str) -> EngineRequest:
    return EngineRequest(rid, [1, 2, 3], SamplingParams(max_tokens=3))


async def _texts(client: AsyncEngineClient, rid: str) -> list[str]:
    return [delta.text async for delta in client.generate(_request(rid))]


async def test_deltas_are_delivered_on_the_loop_with_no_reader_thread() -> None:
    client, _ = _client(deltas=5)
    try:
        results = await asyncio.gather(*(_texts(client, f"r{i}") for i in range(8)))
        assert results == [[f"t{i}" for i in range(5)]] * 8
        assert not [t for t in threading.enumerate() if "reader" in t.name]
        assert not client.has_work()
        assert client.stats() == _stats(0)
    finally:
        await client.shutdown()


async def test_a_rejection_and_a_duplicate_id_fail_only_their_request() -> None:
    client, _ = _client()
    try:
        with pytest.raises(InvalidRequestError) as refused:
            await _texts(client, "reject-1")
        assert refused.value.param == "x"
        assert await _texts(client, "fine") == ["t0", "t1", "t2"]
    finally:
        await client.shutdown()


async def test_the_core_dying_mid_stream_fails_the_stream_and_later_calls() -> None:
    client, core = _client(deltas=5, hold_after=2)
    seen: list[str] = []
    with pytest.raises(EngineDeadError):
        async with asyncio.timeout(10):
            async for delta in client.generate(_request("dies")):
                seen.append(delta.text)
    assert seen == ["t0", "t1"]
    core.thread.join(5)
    assert not client.is_alive()
    with pytest.raises(EngineDeadError):
        await _texts(client, "after")
    await client.shutdown()


async def test_a_corrupt_stream_is_an_engine_death_not_a_hang() -> None:
    in_recv, in_send = mp.Pipe(duplex=False)
    out_recv, out_send = mp.Pipe(duplex=False)
    client = AsyncEngineClient(inbox=in_send, outbox=out_recv, tokenizer=None,  # type: ignore[arg-type]
                               info=INFO, is_core_alive=lambda: True, stop_core=lambda _t: None)
    stream = client.generate(_request("r"))
    waiting = asyncio.ensure_future(stream.__anext__())
    await asyncio.sleep(0.05)
    os.write(out_send.fileno(), struct.pack("!i", 5) + b"\x80junk")
    with pytest.raises(EngineDeadError):
        await asyncio.wait_for(waiting, 10)
    await client.shutdown()
    for conn in (in_recv, out_send):
        conn.close()


def test_a_client_made_on_one_loop_serves_the_next_and_plain_threads() -> None:
    # asyncio.run(start_engine(...)) and then an app on another loop: the pattern of several test fixtures
    client, core = _made_on_a_loop()
    assert asyncio.run(_texts(client, "second-loop")) == ["t0", "t1", "t2"]
    # a stats snapshot sent while no loop runs is read by a caller outside any loop
    core.outbox.send(("stats", _stats(7)))
    deadline = time.monotonic() + 10
    while client.stats() != _stats(7) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.stats() == _stats(7)
    assert asyncio.run(_texts(client, "third-loop")) == ["t0", "t1", "t2"]
    asyncio.run(client.shutdown())
    core.thread.join(5)
    assert not core.thread.is_alive()


def _made_on_a_loop() -> tuple[AsyncEngineClient, WireCore]:
    async def make() -> tuple[AsyncEngineClient, WireCore]:
        client, core = _client()
        assert await _texts(client, "first-loop") == ["t0", "t1", "t2"]
        return client, core

    return asyncio.run(make())


async def test_a_request_on_another_threads_loop_gets_its_deltas() -> None:
    client, _ = _client(deltas=4)  # read by this test's loop, which keeps running
    try:
        texts = await asyncio.to_thread(asyncio.run, _texts(client, "elsewhere"))
        assert texts == ["t0", "t1", "t2", "t3"]
    finally:
        await client.shutdown()


def test_a_rejection_is_read_without_importing_the_core() -> None:
    # the gateway reads rejections on its event loop: unpickling one must not import engine.core.engine_core (and torch)
    script = (
        "import asyncio, multiprocessing as mp, sys\n"
        "from engine.core.client import AsyncEngineClient\n"
        "from engine.request import EngineRequest\n"
        "from engine.sampling_params import SamplingParams\n"
        "from tests.engine.test_client_on_loop import INFO, WireCore\n"
        "async def main():\n"
        "    in_recv, in_send = mp.Pipe(duplex=False); out_recv, out_send = mp.Pipe(duplex=False)\n"
        "    core = WireCore(in_recv, out_send)\n"
        "    client = AsyncEngineClient(inbox=in_send, outbox=out_recv, tokenizer=None, info=INFO,\n"
        "                               is_core_alive=core.thread.is_alive, stop_core=core.thread.join)\n"
        "    try:\n"
        "        [d async for d in client.generate(EngineRequest('reject-1', [1], SamplingParams()))]\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__)\n"
        "    await client.shutdown()\n"
        "asyncio.run(main())\n"
        "print(sorted(m for m in ('engine.core.engine_core', 'torch') if m in sys.modules))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["InvalidRequestError", "[]"]
