"""The stub-engine overhead benchmark's parts: the stub engine speaks the engine host protocol, the open-loop client
drives the floor over TLS at its rate, the floor's streams carry the timing stamp, and the excess over the floor is
computed per percentile."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client
from pathlib import Path

import pytest

from bench.open_loop import InFlightCapReached, Target, run_open_loop
from bench.overhead_stub import chat_body, long_prompts, process_cpu_s, versus_floor, workers_cpu_s
from bench.overhead_tail import tail_breakdown
from bench.stub_engine import AUTHKEY_ENV, FINAL_TEXT, STAMP_PREFIX
from engine.request import EngineRequest
from gateway.background_server import free_port
from gateway.core.tls import ensure_certificate


def _wait_for(predicate, timeout_s: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the benchmark process did not come up")
        time.sleep(0.05)


def test_the_stub_engine_answers_each_request_with_two_deltas_over_the_host_protocol(tmp_path: Path) -> None:
    socket_path, authkey = tmp_path / "stub.sock", secrets.token_bytes(32)
    process = subprocess.Popen([sys.executable, "-m", "bench.stub_engine", "--socket", str(socket_path)],
                               env={**os.environ, AUTHKEY_ENV: authkey.hex()})
    try:
        _wait_for(socket_path.exists)
        with pytest.raises(AuthenticationError):  # a caller without the gateway's key is refused
            Client(str(socket_path), family="AF_UNIX", authkey=b"wrong")
        conn = Client(str(socket_path), family="AF_UNIX", authkey=authkey)
        kind, info = conn.recv()
        assert kind == "ready" and info["model_name"] == "smollm2-135m-instruct" and info["vocab_size"] > 0
        before = time.perf_counter_ns()
        conn.send(("add", EngineRequest(request_id="r1", prompt_token_ids=[1, 2, 3])))
        first, last = conn.recv()[1][0], conn.recv()[1][0]
        assert first.request_id == last.request_id == "r1"
        assert first.text.startswith(STAMP_PREFIX) and before <= int(first.text[1:]) <= time.perf_counter_ns()
        assert not first.finished and last.finished and last.text == FINAL_TEXT
        assert last.usage is not None and (last.usage.prompt_tokens, last.usage.completion_tokens) == (3, 2)
        conn.close()
    finally:
        process.terminate()


def test_the_stub_engine_without_its_stamp_sends_the_first_delta_bare(tmp_path: Path) -> None:
    """``--no-stamp`` (the guarded benches, never streamed): no clock digits for the output guardrails to screen."""
    socket_path, authkey = tmp_path / "stub.sock", secrets.token_bytes(32)
    process = subprocess.Popen([sys.executable, "-m", "bench.stub_engine", "--socket", str(socket_path),
                                "--no-stamp"], env={**os.environ, AUTHKEY_ENV: authkey.hex()})
    try:
        _wait_for(socket_path.exists)
        conn = Client(str(socket_path), family="AF_UNIX", authkey=authkey)
        assert conn.recv()[0] == "ready"
        conn.send(("add", EngineRequest(request_id="r1", prompt_token_ids=[1, 2, 3])))
        first, last = conn.recv()[1][0], conn.recv()[1][0]
        assert first.text == STAMP_PREFIX and not first.finished
        assert last.finished and last.text == FINAL_TEXT and last.usage is not None
        conn.close()
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture
def floor(tmp_path: Path) -> Iterator[tuple[int, ssl.SSLContext]]:
    cert, key = ensure_certificate(tmp_path / "tls", None, None)
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "bench.overhead_floor", "--port", str(port), "--certfile",
                                str(cert), "--keyfile", str(key)])
    try:
        tls = ssl.create_default_context(cafile=str(cert))

        def listening() -> bool:
            try:
                ssl_socket = tls.wrap_socket(socket.create_connection(("127.0.0.1", port)),
                                             server_hostname="127.0.0.1")
            except OSError:
                return False
            ssl_socket.close()
            return True

        _wait_for(listening)
        yield port, tls
    finally:
        process.terminate()
        process.wait(10)


def test_the_open_loop_client_holds_its_rate_against_the_floor_and_reads_stream_stamps(
        floor: tuple[int, ssl.SSLContext]) -> None:
    port, tls = floor
    messages = [{"role": "user", "content": "hello"}]

    async def run() -> tuple[dict, dict]:  # type: ignore[type-arg]
        whole = Target("127.0.0.1", port, "/v1/chat/completions", [chat_body(messages)], {}, tls)
        streamed = Target("127.0.0.1", port, "/v1/chat/completions", [chat_body(messages, stream=True)], {}, tls)
        try:
            return ((await run_open_loop(whole, 100, 1.0)).summary(),
                    (await run_open_loop(streamed, 40, 0.5)).summary())
        finally:
            whole.close()
            streamed.close()

    whole, streamed = asyncio.run(run())
    assert (whole["sent"], whole["ok"], whole["errors"], whole["answered"]) == (100, 100, 0, 100)
    assert whole["connections"] < 100  # kept alive and reused
    assert 0 < whole["service_ms"]["p50"] <= whole["service_ms"]["p99"]
    assert whole["achieved_rate"] == pytest.approx(100, rel=0.5)
    assert streamed["ok"] == 20 and streamed["stamp_lag_ms"]["p50"] is not None
    assert 0 <= streamed["stamp_lag_ms"]["p50"] < 1000


def test_idle_connections_are_reused_oldest_first_so_none_idles_out(floor: tuple[int, ssl.SSLContext]) -> None:
    """After a burst has opened several connections, later requests go round all of them (not always to the newest),
    so none sits idle until the server's keep-alive timeout closes it; connections opened in a run are counted."""
    port, tls = floor

    async def run() -> tuple[list[int], int, int]:
        target = Target("127.0.0.1", port, "/v1/chat/completions", [chat_body([])], {}, tls)
        try:
            await asyncio.gather(*(target.send(0) for _ in range(4)))  # four in flight: four connections
            opened_by_burst = target.opened_total
            summary = (await run_open_loop(target, 50, 0.16)).summary()  # eight requests, one at a time
            return sorted(c.exchanges for c in target.idle), opened_by_burst, summary["connections_opened"]
        finally:
            target.close()

    exchanges, opened_by_burst, opened_in_run = asyncio.run(run())
    assert opened_by_burst == 4
    assert exchanges == [3, 3, 3, 3] and opened_in_run == 0


def test_a_full_set_of_connections_is_the_clients_refusal_not_the_servers(floor: tuple[int, ssl.SSLContext]) -> None:
    port, tls = floor

    async def run() -> dict:  # type: ignore[type-arg]
        target = Target("127.0.0.1", port, "/v1/chat/completions", [chat_body([])], {}, tls, max_connections=0)
        return (await run_open_loop(target, 50, 0.1)).summary()

    summary = asyncio.run(run())
    assert summary["statuses"] == {InFlightCapReached.__name__: 5} and summary["answered"] == 0


def test_the_tail_breakdown_finds_the_stall_the_slow_requests_overlap() -> None:
    """Requests 0..99 sent 10 ms apart, each 1 ms in flight except the fifteen sent during a 145 ms stall (drain),
    which take 20 ms; a collection happens far from every request."""
    timeline = [(i * 0.01, i * 0.01 + (0.02 if 40 <= i < 55 else 0.001)) for i in range(100)]
    timelines = {"drain": [[0.4, 0.145, 0.009]], "gc": [[5.0, 0.003, 0, 0.002]], "record": [], "loop_lag": []}
    tail = tail_breakdown(timeline, timelines)
    assert tail["thresholds_ms"]["p90"] == pytest.approx(20.0)
    assert tail["drain"]["overlapped_share"] == {"above_p99": 1.0, "above_p90": 1.0, "below_p50": 0.0}
    assert tail["gc"]["overlapped_share"]["above_p90"] == 0.0 and tail["gc"]["by_generation"] == {"0": 1, "1": 0,
                                                                                                   "2": 0}
    assert tail["drain"]["cpu_ms"]["p50"] == pytest.approx(9.0) and tail["record"]["count"] == 0


def test_excess_and_ratio_over_the_floor_are_per_percentile() -> None:
    rows = {"floor": {"service_ms": {"p50": 1.0, "p90": 2.0, "p99": 4.0}},
            "gw": {"service_ms": {"p50": 1.5, "p90": 3.0, "p99": None}}}
    versus_floor(rows)
    assert rows["gw"]["over_floor_ms"] == {"p50": 0.5, "p90": 1.0, "p99": None}
    assert rows["gw"]["ratio_to_floor"] == {"p50": 1.5, "p99": None}
    assert rows["floor"]["over_floor_ms"]["p50"] == 0


def test_guarded_prompts_are_distinct_and_two_kilobytes() -> None:
    prompts = long_prompts(50)
    texts = [p[1]["content"] for p in prompts]
    assert len(set(texts)) == 50 and all(len(t) == 2048 for t in texts)


def test_the_stub_run_and_the_real_engine_run_share_one_results_file(tmp_path: Path) -> None:
    from bench.gateway_overhead import _write_keeping_stub
    from bench.overhead_stub import merge_into

    results = tmp_path / "gateway_overhead.json"
    merge_into(results, {"load": {"floor": 1}})  # no file yet: the stub run's key alone
    assert json.loads(results.read_text()) == {"stub_engine": {"load": {"floor": 1}}}
    _write_keeping_stub(results, {"sequential": {"direct": 2}})  # the real-engine run keeps the stub run's key
    assert json.loads(results.read_text()) == {"sequential": {"direct": 2}, "stub_engine": {"load": {"floor": 1}}}
    merge_into(results, {"load": {"floor": 3}})  # and the stub run keeps the real-engine run's
    assert json.loads(results.read_text()) == {"sequential": {"direct": 2}, "stub_engine": {"load": {"floor": 3}}}


def test_a_baseline_commit_is_unpacked_and_named_by_its_full_id(tmp_path: Path) -> None:
    from bench.overhead_stub import unpack_commit

    repo = Path(__file__).resolve().parents[2]
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    assert unpack_commit("HEAD", tmp_path / "baseline") == head.stdout.strip()
    assert (tmp_path / "baseline" / "gateway" / "app.py").is_file()
    # By message: the newest commit whose message matches, named without a hash.
    named = subprocess.run(["git", "-C", str(repo), "rev-parse", ":/bench"], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert unpack_commit(":/bench", tmp_path / "by_message") == named
    with pytest.raises(subprocess.CalledProcessError):
        unpack_commit("no-such-revision", tmp_path / "other")


def test_the_floor_under_granian_answers_and_its_worker_is_the_process_measured(tmp_path: Path) -> None:
    pytest.importorskip("granian")  # a bench-only dependency (bench/requirements-granian.lock)
    from bench.overhead_stub import granian_command, worker_pid

    cert, key = ensure_certificate(tmp_path / "tls", None, None)
    port = free_port()
    process = subprocess.Popen(granian_command("bench.overhead_floor:build_app", port, cert, key),
                               start_new_session=True)
    tls = ssl.create_default_context(cafile=str(cert))
    try:
        _wait_for(lambda: worker_pid(process.pid) != process.pid)
        worker = worker_pid(process.pid)
        assert "granian" in Path(f"/proc/{worker}/cmdline").read_text()

        async def one() -> int:
            target = Target("127.0.0.1", port, "/v1/chat/completions", [chat_body([])], {}, tls)
            try:
                for _ in range(100):
                    try:
                        return (await target.send(0)).status
                    except OSError:
                        await asyncio.sleep(0.1)
                raise TimeoutError("granian did not listen")
            finally:
                target.close()

        assert asyncio.run(one()) == 200
    finally:
        os.killpg(process.pid, 15)
        process.wait(10)


_WORKER = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\nprint(flush=True)\n" \
          "time.sleep(30)"


def test_the_cpu_of_several_workers_is_summed_over_their_supervisors_children() -> None:
    # A supervisor (as uvicorn --workers 2 is) whose two children each burn 0.3 s of CPU, then idle.
    code = ("import subprocess, sys\n"
            f"children = [subprocess.Popen([sys.executable, '-c', {_WORKER!r}], stdout=subprocess.PIPE) "
            "for _ in range(2)]\n"
            "for child in children: child.stdout.readline()\n"
            "print(flush=True)\n"
            "for child in children: child.wait()\n")
    supervisor = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert supervisor.stdout is not None
        supervisor.stdout.readline()  # both children have burnt theirs
        total, loops = workers_cpu_s(supervisor.pid)
        assert total >= 0.6 > process_cpu_s(supervisor.pid)
        assert 0.6 <= loops <= total  # each child's main thread is where it burnt it
    finally:
        for child in Path(f"/proc/{supervisor.pid}/task/{supervisor.pid}/children").read_text().split():
            os.kill(int(child), 9)
        supervisor.kill()
        supervisor.wait()
