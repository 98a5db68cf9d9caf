"""SIGTERM to a real ``warden serve`` with streams in flight: readiness flips first and new calls get 503 +
Retry-After while the server still listens; a stream that can finish within the grace period completes (audited 200,
``[DONE]`` sent); one still open at the deadline is cut with a last SSE error event and audited as ``shutdown``.

The engine (its own process, a tiny random Llama) is paused with SIGSTOP to hold the streams open exactly as long as
the test needs, and resumed with SIGCONT: the timeline never depends on how fast the machine generates.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import orjson
import psutil
import pytest
from fastapi.testclient import TestClient
from gateway_support import new_tenant_with_key
from sqlalchemy import select

from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.core.db import Database
from gateway.core.settings import Settings
from tests.engine.tiny_models import write_tiny_checkpoint

pytestmark = pytest.mark.timeout(300)
GRACE_S = 10.0
UNREADY_S = 3.0
SECRET = "graceful-shutdown-test-secret"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


class _Stream(threading.Thread):
    """One streamed chat call, read as it arrives on its own thread (the server never blocks on an unread socket)."""

    def __init__(self, base_url: str, api_key: str, request_id: str, max_tokens: int) -> None:
        super().__init__(daemon=True)
        self.args = (base_url, api_key, request_id, max_tokens)
        self.lines: list[str] = []
        self.status: int | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        base_url, api_key, request_id, max_tokens = self.args
        body = {"model": "tiny", "max_tokens": max_tokens, "temperature": 0, "stream": True, "ignore_eos": True,
                "messages": [{"role": "user", "content": "Tell me a long story"}]}
        try:
            with httpx.Client(timeout=120) as client, client.stream(
                    "POST", f"{base_url}/v1/chat/completions", json=body,
                    headers={"authorization": f"Bearer {api_key}", "x-request-id": request_id}) as response:
                self.status = response.status_code
                for line in response.iter_lines():
                    if line:
                        self.lines.append(line)
        except BaseException as exc:  # reported by the test
            self.error = exc

    @property
    def data(self) -> list[str]:
        return [line.removeprefix("data: ") for line in self.lines if line.startswith("data: ")]


def test_draining_app_is_not_ready_and_refuses_new_calls(database_url: str, tmp_path: Path) -> None:
    """The drain itself, without a server process: readiness and the refusal, in the app."""
    settings = Settings(database_url=database_url, data_dir=tmp_path, server_secret=SECRET, guardrails=False,
                        redis_url=None, audit_checkpoint_interval_s=0, audit_maintenance_interval_s=0,
                        _env_file=None)
    with TestClient(create_app(settings, start_engine=False)) as client:
        # no engine yet
        assert client.get("/readyz").json() == {"status": "not_ready", "reason": "engine", "audit_quarantined": 0}
        lifecycle = client.app.state.lifecycle  # type: ignore[attr-defined]
        client.portal.call(_begin_drain, lifecycle)
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert ready.json() == {"status": "not_ready", "reason": "draining", "audit_quarantined": 0}
        refused = client.post("/v1/chat/completions", json={"model": "m", "messages": []})
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert refused.json()["error"]["code"] == "shutdown"
        assert client.get("/healthz").status_code == 503  # liveness is the engine's, not the drain's
        assert lifecycle.open_calls == 0


async def _begin_drain(lifecycle) -> None:  # type: ignore[no-untyped-def]
    lifecycle.begin_drain()


@pytest.fixture
def served(database_url: str, db: Database, tmp_path: Path) -> Iterator[tuple[str, str, subprocess.Popen[bytes]]]:
    model = write_tiny_checkpoint(tmp_path / "model", max_position_embeddings=4096)
    data_dir = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_")}
    env.update({
        "WARDEN_ENGINE_PROFILE": "exact",  # float32 eager: the fast default compiles for minutes
        "WARDEN_DATABASE_URL": database_url, "WARDEN_DATA_DIR": str(data_dir), "WARDEN_MODEL": str(model),
        "WARDEN_ENGINE_SERVED_MODEL_NAME": "tiny", "WARDEN_SERVER_SECRET": SECRET, "WARDEN_GUARDRAILS": "false",
        "WARDEN_ENGINE_WATCHDOG_S": "0",  # the test pauses the engine on purpose
        "WARDEN_ENGINE_STANDBY": "false",  # one engine process: the one the test pauses (standbys: test_standby.py)
        "WARDEN_SHUTDOWN_GRACE_S": str(GRACE_S), "WARDEN_SHUTDOWN_UNREADY_S": str(UNREADY_S),
        "WARDEN_KEY_CACHE_TTL_S": "0", "WARDEN_POLICY_CACHE_TTL_S": "0", "WARDEN_AUDIT_FLUSH_INTERVAL_S": "0.05",
        "WARDEN_AUDIT_CHECKPOINT_INTERVAL_S": "0", "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0",
        "WARDEN_LOG_LEVEL": "WARNING", "WARDEN_ENGINE_NUM_THREADS": "1",
    })
    settings = Settings(database_url=database_url, data_dir=data_dir, server_secret=SECRET, _env_file=None)
    _, key = new_tenant_with_key(db, settings)
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "gateway.cli", "serve", "--http", "--port", str(port),
                                "--log-level", "warning"], env=env, cwd=Path(__file__).resolve().parents[2])
    base_url = f"http://127.0.0.1:{port}"
    try:
        _until(lambda: _ready(base_url) == 200, 180, "warden serve to be ready")
        yield base_url, key.api_key, process
    finally:
        children = _children(process.pid)
        for child in children:
            with contextlib.suppress(psutil.Error):
                child.resume()
        if process.poll() is None:
            process.kill()
        process.wait(30)
        for child in children:  # the engine is a detached host (own session): it would outlive a killed gateway
            with contextlib.suppress(psutil.Error):
                child.kill()


def _ready(base_url: str) -> int | None:
    try:
        return httpx.get(f"{base_url}/readyz", timeout=2).status_code
    except httpx.HTTPError:
        return None


def _children(pid: int) -> list[psutil.Process]:
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).children(recursive=True)
    return []


def _engine_process(pid: int) -> psutil.Process:
    """The serving engine: the detached engine host `warden serve` started (``python -m engine.host``)."""
    (engine,) = [p for p in _children(pid) if "engine.host" in p.cmdline()]
    return engine


@pytest.mark.slow  # a whole `warden serve` starts, drains and stops
def test_sigterm_flips_readiness_refuses_new_calls_drains_and_cuts_at_the_deadline(
        served: tuple[str, str, subprocess.Popen[bytes]], db: Database) -> None:
    base_url, api_key, process = served
    engine = _engine_process(process.pid)
    finishing = _Stream(base_url, api_key, "req_drain_finishing", max_tokens=8)
    endless = _Stream(base_url, api_key, "req_drain_endless", max_tokens=3000)
    for stream in (finishing, endless):
        stream.start()
    _until(lambda: len(finishing.data) >= 2 and len(endless.data) >= 2, 60, "both streams to start")
    engine.suspend()  # both streams stay open until the test resumes the engine

    process.send_signal(signal.SIGTERM)
    signalled = time.monotonic()
    # Readiness flips first, while the server still accepts connections; a new call is refused, retryable.
    _until(lambda: _ready(base_url) == 503, UNREADY_S, "/readyz to say not ready")
    assert httpx.get(f"{base_url}/readyz").json() == {"status": "not_ready", "reason": "draining",
                                                      "audit_quarantined": 0}
    refused = httpx.post(f"{base_url}/v1/chat/completions", headers={"authorization": f"Bearer {api_key}",
                                                                     "x-request-id": "req_drain_refused"},
                         json={"model": "tiny", "messages": [{"role": "user", "content": "hi"}]})
    assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1
    assert refused.json()["error"] == {"message": "The server is shutting down; retry the request",
                                       "type": "service_unavailable_error", "param": None, "code": "shutdown"}
    assert time.monotonic() - signalled < UNREADY_S

    engine.resume()  # the short stream finishes inside the grace period ...
    finishing.join(30)
    assert finishing.error is None and finishing.status == 200 and finishing.data[-1] == "[DONE]"
    engine.suspend()  # ... the long one cannot
    assert endless.is_alive() and "[DONE]" not in endless.data

    endless.join(GRACE_S + 10)
    cut_after = time.monotonic() - signalled
    assert not endless.is_alive() and endless.error is None, endless.error
    assert GRACE_S - 0.5 <= cut_after < GRACE_S + 5, cut_after
    assert "[DONE]" not in endless.data
    assert orjson.loads(endless.data[-1])["error"]["code"] == "shutdown"
    engine.resume()  # let the server shut its engine down in order
    process.wait(60)
    engine.wait(15)  # the detached engine is stopped with the gateway: nothing is left running

    with db.session() as session:
        rows = {r.request_id: r for r in session.scalars(select(AuditRecord).where(AuditRecord.request_id.in_(
            ["req_drain_finishing", "req_drain_endless", "req_drain_refused"])))}
    assert set(rows) == {"req_drain_finishing", "req_drain_endless", "req_drain_refused"}
    done = rows["req_drain_finishing"]
    assert (done.http_status, done.error_type, done.finish_reason, done.completion_tokens) == (200, None, "length", 8)
    cut = rows["req_drain_endless"]
    assert (cut.http_status, cut.error_type, cut.finish_reason) == (503, "shutdown", "shutdown")
    assert 0 < cut.completion_tokens < 3000
    refusal = rows["req_drain_refused"]
    assert (refusal.http_status, refusal.error_type) == (503, "shutdown")
    assert refusal.decisions == [{"stage": "lifecycle", "decision": "refused", "reason": "draining"}]
