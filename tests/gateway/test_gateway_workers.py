"""``warden serve --workers 2``: the workers share one engine host instead of each starting an engine; requests
through either worker are served, the engine's tokens are counted once in /metrics, and a host that dies is
restarted and the workers reconnect to it."""

from __future__ import annotations

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

import httpx
import openai
import pytest
from prometheus_client.parser import text_string_to_metric_families

from gateway.background_server import free_port
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]
WORKERS = 2


@dataclass
class Served:
    process: subprocess.Popen
    base_url: str
    api_key: str
    tls: ssl.SSLContext
    data_dir: Path
    model: str = ""

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
           "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0", "WARDEN_LOG_FORMAT": "json"}
    env.pop("WARDEN_ENGINE_SOCKETS", None)
    _cli(env, "db", "upgrade")
    _cli(env, "tenant", "create", "acme")
    api_key = _cli(env, "key", "issue", "acme")
    port = free_port()
    log = (root / "serve.log").open("wb")
    process = subprocess.Popen([sys.executable, "-m", "gateway.cli", "serve", "--workers", str(WORKERS), "--port",
                                str(port), "--log-level", "warning"], env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    tls: ssl.SSLContext | None = None
    base_url = f"https://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while True:
        assert process.poll() is None, (root / "serve.log").read_text()[-3000:]
        cert = data_dir / "tls" / "dev-cert.pem"
        if cert.exists():
            tls = ssl.create_default_context(cafile=str(cert))
            try:
                if httpx.get(f"{base_url}/healthz", verify=tls, timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
        assert time.monotonic() < deadline, "the gateway did not come up"
        time.sleep(0.5)
    assert tls is not None
    served = Served(process, base_url, api_key, tls, data_dir)
    served.model = served.client().models.list().data[0].id
    yield served
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    log.close()


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
    spawned = {pid: info for pid, info in _descendants(served.process.pid).items() if "spawn_main" in info[1]}
    # The host and the workers are the serve process's children; no worker has an engine process of its own.
    assert len(spawned) == WORKERS + 1
    assert all(ppid == served.process.pid for ppid, _ in spawned.values())


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


def test_a_dead_host_is_restarted_and_the_workers_reconnect(served: Served) -> None:
    spawned = {pid: info for pid, info in _descendants(served.process.pid).items() if "spawn_main" in info[1]}
    hosts = [pid for pid in spawned if _listens_on_engine_socket(pid, served)]
    assert len(hosts) == 1
    os.kill(hosts[0], signal.SIGKILL)
    deadline = time.monotonic() + 180
    while True:
        try:
            if _chat(served, "are you back?") == 5:
                break
        except (openai.APIStatusError, openai.APIConnectionError):
            pass
        assert time.monotonic() < deadline, "the workers never reached a restarted host"
        time.sleep(1.0)
    assert served.process.poll() is None


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
