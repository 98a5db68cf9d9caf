"""``warden serve --workers 2``: the workers share one engine host instead of each starting an engine; requests
through either worker are served, the engine's tokens are counted once in /metrics, a worker stopped with streams in
flight (SIGSTOP) holds up no other and is replaced by uvicorn's supervisor, a host that dies is restarted and
the workers reconnect to it, a worker that is killed is restarted by uvicorn's supervisor and connects to the same
host, and a SIGKILL of ``warden serve``'s whole process group leaves the (detached) host serving, which the restarted
``warden serve`` attaches to instead of loading the model again. A SIGKILL of ``warden serve``'s main process alone
makes its workers drain and stop (a stream in flight ends whole), the host serves on, and the restarted ``warden serve``
binds the port and attaches to it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families

from gateway.background_server import free_port
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
WORKERS = 2
GRACE_S = 10  # the workers' drain: a worker whose serve is gone is gone within it (plus the unready window)
HOST_BACK_S = 480  # a restarted host loads the model; under load, and building C++ kernels, that takes minutes
REATTACHED_S = 30  # from the restarted host's socket listening to the workers serving through it
STOPPED_STREAMS = 3  # streams in flight on the worker that is stopped


@dataclass
class Served:
    process: subprocess.Popen
    base_url: str
    api_key: str
    tls: ssl.SSLContext
    data_dir: Path
    command: list[str]
    env: dict[str, str]
    log: Path
    model: str = ""

    def start(self) -> None:
        """Start ``warden serve`` (again) and wait until it answers /healthz."""
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)
        deadline = time.monotonic() + 300
        while True:
            assert self.process.poll() is None, self.log.read_text()[-3000:]
            try:
                if self.get("/healthz").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the gateway did not come up"
            time.sleep(0.5)

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.base_url}/v1", api_key=self.api_key, max_retries=0, timeout=60,
                             http_client=httpx.Client(verify=self.tls))

    def get(self, path: str) -> httpx.Response:
        return httpx.get(f"{self.base_url}{path}", verify=self.tls, timeout=30)


def _cli(env: dict[str, str], *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "gateway.cli", *args], env=env, check=True, capture_output=True,
                          text=True, timeout=300).stdout.strip()


def _descendants(pid: int) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) for every process below ``pid``."""
    table: dict[int, tuple[int, str]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat_fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            table[int(entry.name)] = (int(stat_fields[1]), cmdline)
    below: dict[int, tuple[int, str]] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, cmdline) in table.items():
            if ppid == parent:
                below[child] = (ppid, cmdline)
                frontier.append(child)
    return below


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    redis_url = os.environ.get("WARDEN_REDIS_URL")
    if not redis_url:
        pytest.skip("WARDEN_REDIS_URL is not set: `warden serve --workers N` needs the shared (Redis) rate limiter")
    root = tmp_path_factory.mktemp("workers")
    model = write_tiny_checkpoint(root / "model")
    data_dir = root / "data"
    env = {**os.environ, "WARDEN_DATA_DIR": str(data_dir), "WARDEN_DATABASE_URL": f"sqlite:///{root / 'w.db'}",
           "WARDEN_MODEL": str(model), "WARDEN_GUARDRAILS": "false", "WARDEN_REDIS_URL": redis_url,
           "WARDEN_ENGINE_NUM_THREADS": "1", "WARDEN_ENGINE_KV_CACHE_MEMORY_MB": "16",
           "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0", "WARDEN_LOG_FORMAT": "json",
           "WARDEN_SHUTDOWN_GRACE_S": str(GRACE_S)}
    env.pop("WARDEN_ENGINE_SOCKETS", None)
    _cli(env, "db", "upgrade")
    _cli(env, "tenant", "create", "acme")
    api_key = _cli(env, "key", "issue", "acme")
    port = free_port()
    command = [sys.executable, "-m", "gateway.cli", "serve", "--workers", str(WORKERS), "--port", str(port),
               "--log-level", "warning"]
    log = root / "serve.log"
    process = subprocess.Popen(command, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = time.monotonic() + 300
    cert = data_dir / "tls" / "dev-cert.pem"
    while not cert.exists():  # written before the workers start
        assert process.poll() is None, log.read_text()[-3000:]
        assert time.monotonic() < deadline, "the gateway did not come up"
        time.sleep(0.5)
    served = Served(process, f"https://127.0.0.1:{port}", api_key, ssl.create_default_context(cafile=str(cert)),
                    data_dir, command, env, log)
    while True:
        assert process.poll() is None, log.read_text()[-3000:]
        try:
            if served.get("/healthz").status_code == 200:
                break
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the gateway did not come up"
        time.sleep(0.5)
    served.model = served.client().models.list().data[0].id
    yield served
    os.killpg(served.process.pid, signal.SIGTERM)
    try:
        served.process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(served.process.pid, signal.SIGKILL)
    for pid in _engine_hosts(data_dir):  # never leave one behind, whatever failed
        os.kill(pid, signal.SIGKILL)


def _engine_hosts(data_dir: Path) -> list[int]:
    """The live engine hosts (``python -m engine.host``) serving ``data_dir``'s gateway, wherever their parent is."""
    marker = f"WARDEN_DATA_DIR={data_dir}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b"engine.host" in cmdline and marker in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return sorted(found)


def _workers(served: Served) -> list[int]:
    return sorted(pid for pid, (ppid, cmdline) in _descendants(served.process.pid).items()
                  if "spawn_main" in cmdline and ppid == served.process.pid)


def _wait_serving(served: Served, what: str, timeout_s: float = 180.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if _chat(served, "are you back?") == 5:
                return
        except (openai.APIStatusError, openai.APIConnectionError):
            pass
        assert time.monotonic() < deadline, what
        time.sleep(1.0)


def _chat(served: Served, content: str) -> int:
    completion = served.client().chat.completions.create(
        model=served.model, messages=[{"role": "user", "content": content}], max_tokens=5, temperature=0,
        extra_body={"ignore_eos": True})
    assert completion.usage is not None
    return completion.usage.completion_tokens


def _metric(served: Served, name: str) -> float:
    families = text_string_to_metric_families(served.get("/metrics").text)
    return sum(s.value for f in families for s in f.samples if s.name == name)


def test_the_workers_share_one_engine_host(served: Served) -> None:
    sockets = list((served.data_dir / "run").glob("engine-*.sock"))
    assert [s.name for s in sockets] == ["engine-0.sock"]
    below = _descendants(served.process.pid)
    # The workers are the serve process's children; no worker has an engine process of its own.
    assert len(_workers(served)) == WORKERS
    assert not [pid for pid, (ppid, cmdline) in below.items() if "spawn_main" in cmdline and ppid != served.process.pid]
    # One host, started by the serve process as a detached host: a session of its own, outside the group's signals.
    hosts = _engine_hosts(served.data_dir)
    assert len(hosts) == 1 and below[hosts[0]][0] == served.process.pid
    assert os.getsid(hosts[0]) == hosts[0] != os.getsid(served.process.pid)


def test_requests_through_every_worker_are_served_and_counted_once(served: Served) -> None:
    before = _metric(served, "warden:generation_tokens_total")
    with ThreadPoolExecutor(8) as pool:
        tokens = list(pool.map(lambda i: _chat(served, f"request {i}"), range(24)))
    assert tokens == [5] * 24
    deadline = time.monotonic() + 30
    while _metric(served, "warden:generation_tokens_total") - before != 120:
        assert time.monotonic() < deadline, _metric(served, "warden:generation_tokens_total")
        time.sleep(0.5)
    time.sleep(3.0)  # every worker's stats task has run since: a second reporter would have added its count by now
    assert _metric(served, "warden:generation_tokens_total") - before == 120
    assert _metric(served, "warden:engine_replicas_alive") == 1


def _stream_rest(stream: Any) -> tuple[str | None, BaseException | None]:
    """Read a stream to its end: its finish reason, or the error that cut it."""
    finish = None
    try:
        for chunk in stream:
            if chunk.choices and chunk.choices[0].finish_reason:
                finish = chunk.choices[0].finish_reason
    except (openai.APIError, httpx.HTTPError) as exc:
        return finish, exc
    return finish, None


def test_a_stopped_worker_harms_no_other_and_its_replacement_serves(served: Served) -> None:
    """SIGSTOP of a worker with streams in flight: the other worker serves on, and the engine's counters in its
    /metrics keep moving. uvicorn's supervisor, whose health pings the stopped worker cannot answer, kills it and
    starts another (its streams are cut, not left hanging; the host aborts their requests), and the new worker
    reaches the same engine host and serves."""
    hosts, (stopped, other) = _engine_hosts(served.data_dir), _workers(served)
    try:
        # The streams go to `stopped`: `other` is stopped while they connect (well within uvicorn's 5 s pings).
        os.kill(other, signal.SIGSTOP)
        try:
            streams = [served.client().chat.completions.create(
                model=served.model, messages=[{"role": "user", "content": f"stream {i}"}], max_tokens=400,
                temperature=0, stream=True, extra_body={"ignore_eos": True}) for i in range(STOPPED_STREAMS)]
            for stream in streams:
                next(iter(stream))  # in flight: its first chunk came
        finally:
            os.kill(other, signal.SIGCONT)
        with ThreadPoolExecutor(STOPPED_STREAMS) as readers:
            os.kill(stopped, signal.SIGSTOP)
            outcomes = [readers.submit(_stream_rest, stream) for stream in streams]
            before = _metric(served, "warden:generation_tokens_total")
            with ThreadPoolExecutor(4) as pool:
                assert list(pool.map(lambda i: _chat(served, f"while one is stopped {i}"), range(8))) == [5] * 8
            deadline = time.monotonic() + 30
            while _metric(served, "warden:generation_tokens_total") - before < 40:
                assert time.monotonic() < deadline, "the engine's stats stopped reaching the serving worker"
                time.sleep(0.5)
            deadline = time.monotonic() + 120
            while _running(stopped) or len(_workers(served)) < WORKERS:
                assert time.monotonic() < deadline, "uvicorn did not replace the stopped worker"
                time.sleep(0.5)
            ended = [outcome.result(timeout=60) for outcome in outcomes]
        assert all(finish != "length" and error is not None for finish, error in ended), ended  # cut, not hung
        assert _running(other), "the serving worker was replaced too"
        replacement = next(pid for pid in _workers(served) if pid not in (stopped, other))
        _wait_served_by(served, replacement, other)
        assert _engine_hosts(served.data_dir) == hosts  # the same engine all along
    finally:
        for pid in (stopped, other):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


def _wait_served_by(served: Served, worker: int, other: int, timeout_s: float = 120.0) -> None:
    """Wait until ``worker`` serves a request: ``other`` is stopped for each try (for less than uvicorn's health
    timeout), so that only ``worker`` accepts it; a 503 while ``worker`` connects to its engine is tried again."""
    deadline = time.monotonic() + timeout_s
    client = openai.OpenAI(base_url=f"{served.base_url}/v1", api_key=served.api_key, max_retries=0, timeout=2.5,
                           http_client=httpx.Client(verify=served.tls))
    while True:
        os.kill(other, signal.SIGSTOP)
        try:
            completion = client.chat.completions.create(
                model=served.model, messages=[{"role": "user", "content": "the new worker"}], max_tokens=5,
                temperature=0, extra_body={"ignore_eos": True})
        except (openai.APIStatusError, openai.APIConnectionError):
            completion = None
        finally:
            os.kill(other, signal.SIGCONT)
        if completion is not None:
            assert completion.usage is not None and completion.usage.completion_tokens == 5
            return
        assert time.monotonic() < deadline, f"worker {worker} never served"
        time.sleep(2.0)  # `other` answers uvicorn's pings before it is stopped again


def test_a_dead_host_is_restarted_and_the_workers_reconnect(served: Served) -> None:
    """However long the restarted host takes to load, the workers serve through it within seconds of its socket
    answering (their reconnects are capped at a few seconds, not a cold restart's minute of backoff)."""
    hosts = [pid for pid in _engine_hosts(served.data_dir) if _listens_on_engine_socket(pid, served)]
    assert len(hosts) == 1
    os.kill(hosts[0], signal.SIGKILL)
    deadline = time.monotonic() + HOST_BACK_S
    while not (fresh := [pid for pid in _engine_hosts(served.data_dir)
                         if pid != hosts[0] and _listens_on_engine_socket(pid, served)]):
        assert served.process.poll() is None, served.log.read_text()[-3000:]
        assert time.monotonic() < deadline, "warden serve never restarted the host"
        time.sleep(0.2)
    _wait_serving(served, "the workers never reached the restarted host", timeout_s=REATTACHED_S)
    assert served.process.poll() is None
    assert _engine_hosts(served.data_dir) == fresh


def test_a_killed_worker_is_restarted_and_reaches_the_same_host(served: Served) -> None:
    """uvicorn's supervisor restarts a worker that died; the host aborted only the dead worker's requests and serves
    the new worker as it served the old one."""
    hosts, workers = _engine_hosts(served.data_dir), _workers(served)
    os.kill(workers[0], signal.SIGKILL)
    deadline = time.monotonic() + 120
    while len(fresh := _workers(served)) < WORKERS or workers[0] in fresh:
        assert time.monotonic() < deadline, "uvicorn did not restart the killed worker"
        time.sleep(0.5)
    _wait_serving(served, "the restarted worker never served")
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda i: _chat(served, f"after the worker {i}"), range(12))) == [5] * 12
    assert _engine_hosts(served.data_dir) == hosts  # the same engine, not a second one


def _reporting_worker(served: Served) -> int | None:
    """The live worker whose gauge file holds a running-requests count above zero: the engine host's stats reporter
    while the engine is busy (the others are sent no snapshots)."""
    for path in (served.data_dir / "prometheus").glob("gauge_livesum_*.db"):
        pid = int(path.stem.rsplit("_", 1)[1])
        try:
            values = MmapedDict.read_all_values_from_file(str(path))
        except FileNotFoundError:
            continue
        if _running(pid) and any(json.loads(key)[0] == "warden:num_requests_running" and value > 0
                                 for key, value, _timestamp, _position in values):
            return pid
    return None


def test_a_killed_reporting_workers_gauges_leave_metrics(served: Served) -> None:
    """A worker SIGKILLed while it reports the busy engine's gauges never marks itself dead; its last gauges leave
    /metrics all the same (a worker removes the live-gauge files of dead ones at each scrape and at its start), so
    once the engine is idle the summed running-requests gauge is back to zero, not stuck at the dead worker's count."""
    # The tiny model can finish a few streams before a stats snapshot reaches a gauge file: keep adding streams
    # until a live worker's file shows the engine busy.
    streams: list[Any] = []
    deadline = time.monotonic() + 60
    reporter = None
    while reporter is None:
        assert time.monotonic() < deadline, "no worker reported the busy engine"
        added = [served.client().chat.completions.create(
            model=served.model, messages=[{"role": "user", "content": f"gauge stream {len(streams) + i}"}],
            max_tokens=400, temperature=0, stream=True, extra_body={"ignore_eos": True})
            for i in range(STOPPED_STREAMS)]
        for stream in added:
            next(iter(stream))  # in flight: its first chunk came
        streams += added
        looked_until = time.monotonic() + 3
        while (reporter := _reporting_worker(served)) is None and time.monotonic() < looked_until:
            time.sleep(0.1)
    os.kill(reporter, signal.SIGKILL)
    with ThreadPoolExecutor(len(streams)) as readers:  # the killed worker's are cut, the other's run to the end
        for outcome in [readers.submit(_stream_rest, stream) for stream in streams]:
            outcome.result(timeout=120)
    deadline = time.monotonic() + 60
    while (running := _metric(served, "warden:num_requests_running")) != 0:
        assert time.monotonic() < deadline, f"a dead worker's {running} running requests stay in /metrics"
        time.sleep(0.5)
    deadline = time.monotonic() + 120
    while len(fresh := _workers(served)) < WORKERS or reporter in fresh:
        assert time.monotonic() < deadline, "uvicorn did not restart the killed worker"
        time.sleep(0.5)
    _wait_serving(served, "the restarted worker never served")
    assert _metric(served, "warden:num_requests_running") == 0


def test_a_crashed_serve_leaves_its_engine_host_to_the_next(served: Served) -> None:
    """SIGKILL of the whole process group (serve and its workers): the detached host serves on, and the restarted
    ``warden serve`` attaches to it (no model load) after checking it is this deployment's and loads this config."""
    hosts = _engine_hosts(served.data_dir)
    assert len(hosts) == 1
    os.killpg(served.process.pid, signal.SIGKILL)
    served.process.wait(30)
    time.sleep(1.0)
    assert _engine_hosts(served.data_dir) == hosts, "the engine host died with the gateway"
    served.start()
    _wait_serving(served, "the restarted gateway never served")
    assert _engine_hosts(served.data_dir) == hosts  # reattached: the same process, no second engine
    assert "attaching to the engine host left running" in served.log.read_text()


def test_a_serve_killed_alone_leaves_workers_that_drain_and_stop_and_the_next_serve_binds(served: Served) -> None:
    """SIGKILL of ``warden serve``'s main process only (its workers keep the listening socket): each worker sees its
    parent gone, drains (a stream in flight ends whole) and exits, freeing the port; the detached host serves on, and
    the restarted ``warden serve`` binds the port and attaches to it."""
    hosts, workers = _engine_hosts(served.data_dir), _workers(served)
    assert len(hosts) == 1 and len(workers) == WORKERS
    attached_before = served.log.read_text().count("attaching to the engine host left running")
    stream = served.client().chat.completions.create(
        model=served.model, messages=[{"role": "user", "content": "a long answer, please"}], max_tokens=200,
        temperature=0, stream=True, stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    chunks = iter(stream)
    first = next(chunks)  # the stream is in flight through one of the workers
    os.kill(served.process.pid, signal.SIGKILL)
    served.process.wait(30)
    rest = list(chunks)
    finished = [c.choices[0].finish_reason for c in [first, *rest] if c.choices and c.choices[0].finish_reason]
    assert finished == ["length"] and rest[-1].usage is not None and rest[-1].usage.completion_tokens == 200
    deadline = time.monotonic() + GRACE_S + 30
    while alive := [pid for pid in workers if _running(pid)]:
        assert time.monotonic() < deadline, f"workers {alive} outlived their serve process"
        time.sleep(0.5)
    assert _engine_hosts(served.data_dir) == hosts, "the engine host died with the workers"
    served.start()  # binds the same port
    _wait_serving(served, "the restarted gateway never served")
    assert _engine_hosts(served.data_dir) == hosts  # reattached: the same process, no second engine
    log = served.log.read_text()
    assert log.count("attaching to the engine host left running") == attached_before + 1
    assert "the supervising process" in log and "is gone: draining and stopping this worker" in log


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (an exited one not yet reaped by its new parent is a zombie: not running)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _listens_on_engine_socket(pid: int, served: Served) -> bool:
    """Whether ``pid`` holds the listening Unix socket of an engine host (its inode in /proc/net/unix)."""
    paths = {str(p) for p in (served.data_dir / "run").glob("engine-*.sock")}
    inodes = {line.split()[6] for line in Path("/proc/net/unix").read_text().splitlines()[1:]
              if len(line.split()) >= 8 and line.split()[7] in paths}
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return True
    return False
