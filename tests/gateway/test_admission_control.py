"""Global admission control on a live gateway with the real engine: saturation answers 503 ``overloaded`` with
Retry-After at once, a wait in line times out, a call past its deadline is aborted in the engine and answered (or
its stream ended) with a 504 that its audit row records, and a client that leaves before its first token stops
the engine's work on it. Also: ``warden serve --workers N`` refuses the in-process limiter.

Each test serves its own app (its own bounds) on the session's engine, so no model is loaded twice.
"""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from gateway_support import new_tenant_with_key
from live_server import LiveServer
from sqlalchemy import select

from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.background_server import BackgroundServer, start_background_server
from gateway.core.db import Database
from gateway.core.settings import Settings

pytestmark = pytest.mark.slow
LONG = {"ignore_eos": True}  # generate to max_tokens: a call that keeps the engine busy as long as asked


class Gateway:
    def __init__(self, background: BackgroundServer, settings: Settings, api_key: str, tenant_id: str,
                 model: str) -> None:
        self.background, self.settings = background, settings
        self.api_key, self.tenant_id, self.model = api_key, tenant_id, model

    @property
    def services(self):  # type: ignore[no-untyped-def]
        return self.background.server.config.loaded_app.app.state.services  # type: ignore[union-attr]

    def client(self, **timeouts: float) -> httpx.Client:
        return httpx.Client(base_url=self.background.base_url,
                            verify=ssl.create_default_context(cafile=str(self.background.cert)),
                            headers={"authorization": f"Bearer {self.api_key}"},
                            timeout=httpx.Timeout(60, **timeouts))

    def chat(self, content: str, max_tokens: int, **extra: Any) -> dict[str, Any]:
        return {"model": self.model, "messages": [{"role": "user", "content": content}], "max_tokens": max_tokens,
                "temperature": 0, **LONG, **extra}

    def rows(self, db: Database) -> list[AuditRecord]:
        assert self.services.audit.flush(30)
        with db.session() as session:
            return list(session.scalars(select(AuditRecord).where(AuditRecord.chain_id == self.tenant_id)
                                        .order_by(AuditRecord.seq)))

    def wait_rows(self, db: Database, count: int, timeout_s: float = 60) -> list[AuditRecord]:
        deadline = time.monotonic() + timeout_s
        while len(rows := self.rows(db)) < count:
            assert time.monotonic() < deadline, f"expected {count} audit rows, found {len(rows)}"
            time.sleep(0.1)
        return rows


@pytest.fixture
def gateway(request: pytest.FixtureRequest, live: LiveServer, db: Database, tmp_path: Path) -> Iterator[Gateway]:
    """A gateway with the settings the test passes (indirect parametrization), serving the session's engine."""
    bounds = getattr(request, "param", {})
    settings = live.settings.model_copy(update={"data_dir": tmp_path / "data", "guardrails": False, **bounds})
    engine = live.services.engine
    background = start_background_server(create_app(settings, engine=engine), settings.data_dir,
                                         name="admission-uvicorn")
    try:
        tenant, issued = new_tenant_with_key(db, settings)
        yield Gateway(background, settings, issued.api_key, tenant.id, engine.model_name)
    finally:
        background.stop()
    _wait_engine_idle(engine)


def _wait_engine_idle(engine: Any, timeout_s: float = 60, *, after_ns: int | None = None) -> None:
    """Until the engine runs and queues nothing (its stats are a snapshot refreshed as it steps). ``after_ns``: only
    a snapshot taken after this wall-clock time counts (an engine busy in a long prefill step has not sent one yet,
    and its last one may say idle)."""
    deadline = time.monotonic() + timeout_s
    while True:
        stats = engine.stats()
        if stats is not None and stats.num_requests_running == 0 and stats.num_requests_waiting == 0 and (
                after_ns is None or stats.timestamp_ns > after_ns):
            return
        assert time.monotonic() < deadline, f"the engine is still busy: {stats}"
        time.sleep(0.05)


def _assert_overloaded(response: httpx.Response) -> None:
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert (error["type"], error["code"], error["param"]) == ("service_unavailable_error", "overloaded", None)
    assert error["message"].startswith("The server is overloaded")


class _HeldStream:
    """A streamed call that has sent its first event and then is simply not read: it holds its slot."""

    def __init__(self, gateway: Gateway, max_tokens: int = 400) -> None:
        self._client = gateway.client()
        self._stream = self._client.stream("POST", "/v1/chat/completions",
                                           json=gateway.chat("Count.", max_tokens, stream=True))
        response = self._stream.__enter__()
        assert response.status_code == 200
        self._lines = response.iter_lines()  # kept: a line iterator dropped half-read closes the connection
        self.first = next(self._lines)

    def close(self) -> None:
        self._stream.__exit__(None, None, None)
        self._client.close()


@pytest.mark.parametrize("gateway", [{"max_inflight_requests": 1, "max_queued_requests": 0}], indirect=True)
def test_a_saturated_gateway_answers_503_overloaded_with_retry_after(gateway: Gateway, db: Database) -> None:
    held = _HeldStream(gateway)
    try:
        with gateway.client() as client:
            started = time.monotonic()
            refused = client.post("/v1/chat/completions", json=gateway.chat("Hi.", 4))
            assert time.monotonic() - started < 5  # shed at once, never queued behind the engine
            _assert_overloaded(refused)
    finally:
        held.close()
    rows = gateway.wait_rows(db, 2)
    overloaded = next(row for row in rows if row.http_status == 503)
    assert overloaded.error_type == "service_unavailable_error"
    assert {"stage": "admission", "decision": "refused", "reason": "queue_full"} in overloaded.decisions
    with gateway.client() as client:  # the held stream's slot came back when it ended
        assert client.post("/v1/chat/completions", json=gateway.chat("Hi.", 2)).status_code == 200


@pytest.mark.parametrize("gateway", [{"max_inflight_requests": 1, "max_queued_requests": 4, "queue_timeout_s": 0.5}],
                         indirect=True)
def test_a_wait_in_line_past_the_queue_timeout_is_refused(gateway: Gateway, db: Database) -> None:
    held = _HeldStream(gateway, max_tokens=1000)
    try:
        with gateway.client() as client:
            started = time.monotonic()
            refused = client.post("/v1/chat/completions", json=gateway.chat("Hi.", 4))
            waited = time.monotonic() - started
        _assert_overloaded(refused)
        assert 0.5 <= waited < 10
        assert "no capacity freed within 0.5s" in refused.json()["error"]["message"]
    finally:
        held.close()
    refusal = next(row for row in gateway.wait_rows(db, 2) if row.http_status == 503)
    assert {"stage": "admission", "decision": "refused", "reason": "queue_timeout"} in refusal.decisions


@pytest.mark.parametrize("gateway", [{"max_inflight_requests": 1, "max_queued_requests": 4, "queue_timeout_s": 60}],
                         indirect=True)
def test_a_client_gone_while_waiting_in_line_gives_up_its_place(gateway: Gateway, db: Database) -> None:
    gate = gateway.services.gate
    held = _HeldStream(gateway, max_tokens=1000)
    try:
        with gateway.client(read=0.5) as client, pytest.raises(httpx.ReadTimeout):
            client.post("/v1/chat/completions", json=gateway.chat("Hi.", 4))  # waits in line, then hangs up
        left_at = time.monotonic()
        while gate.queued:  # its place is given up as soon as it leaves, not when a slot would have come
            assert time.monotonic() - left_at < 10, "the departed client still waits in line"
            time.sleep(0.02)
        assert gate.in_flight == 1  # the held stream alone
        gone = next(row for row in gateway.wait_rows(db, 1) if row.http_status == 499)
    finally:
        held.close()
    assert (gone.error_type, gone.prompt_tokens, gone.completion_tokens) == ("client_closed", 0, 0)
    assert not any(d.get("stage") == "rate_limit" for d in gone.decisions)  # never admitted: nothing reserved


@pytest.mark.parametrize("gateway", [{"request_timeout_s": 1.5}], indirect=True)
def test_a_call_past_its_deadline_is_aborted_and_answered_504(gateway: Gateway, db: Database) -> None:
    with gateway.client() as client:
        started = time.monotonic()
        response = client.post("/v1/chat/completions", json=gateway.chat("Count.", 4000))
        elapsed = time.monotonic() - started
    assert response.status_code == 504
    assert response.json() == {"error": {"message": "The request did not complete within its deadline of 1.5s",
                                         "type": "timeout_error", "param": None, "code": "request_timeout"}}
    assert elapsed < 10
    _wait_engine_idle(gateway.services.engine, timeout_s=10)  # aborted: not generating its 4000 tokens
    (row,) = gateway.wait_rows(db, 1)
    assert (row.http_status, row.error_type) == (504, "timeout_error")
    assert {"stage": "deadline", "decision": "timeout", "timeout_s": 1.5} in row.decisions
    assert row.completion_tokens < 4000  # what it had generated when it was aborted


# Long enough for the first tokens even on a busy 2-core runner, far too short for 4000 of them.
@pytest.mark.parametrize("gateway", [{"request_timeout_s": 15.0}], indirect=True)
def test_a_stream_past_its_deadline_ends_with_an_error_event(gateway: Gateway, db: Database) -> None:
    events: list[Any] = []
    with gateway.client() as client, client.stream("POST", "/v1/chat/completions",
                                                   json=gateway.chat("Count.", 4000, stream=True)) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(line.removeprefix("data: "))
    assert "[DONE]" not in events
    assert orjson.loads(events[-1]) == {"error": {
        "message": "The request did not complete within its deadline of 15s", "type": "timeout_error",
        "param": None, "code": "request_timeout"}}
    assert len(events) > 2  # tokens were streamed before the deadline
    _wait_engine_idle(gateway.services.engine, timeout_s=10)
    (row,) = gateway.wait_rows(db, 1)
    assert (row.http_status, row.error_type) == (504, "timeout_error")
    assert {"stage": "deadline", "decision": "timeout", "timeout_s": 15.0} in row.decisions
    assert 0 < row.completion_tokens < 4000


def test_a_client_gone_before_its_first_token_stops_the_engine_work(gateway: Gateway, db: Database) -> None:
    engine = gateway.services.engine
    before = engine.stats()
    # A long prompt: its prefill takes seconds on CPU, so the client hangs up in the middle of it.
    prompt = " ".join(f"item{i}" for i in range(700))  # about 3500 tokens
    body = {**gateway.chat(prompt, 64, stream=True), "messages": [{"role": "user", "content": prompt}]}
    hung_up = threading.Event()
    sent_ns = time.time_ns()

    def call_and_hang_up() -> None:
        with gateway.client(read=0.5) as client, pytest.raises(httpx.ReadTimeout):
            client.post("/v1/chat/completions", json=body)  # no byte comes before the first token
        hung_up.set()

    caller = threading.Thread(target=call_and_hang_up)
    caller.start()
    caller.join(30)
    assert hung_up.is_set()
    (row,) = gateway.wait_rows(db, 1)
    assert (row.http_status, row.error_type) == (499, "client_closed")
    assert row.completion_tokens == 0  # not one token was generated for a client already gone
    # The prefill step under way when the client left still finishes (it may take many seconds on a busy CPU).
    _wait_engine_idle(engine, timeout_s=180, after_ns=sent_ns)
    assert engine.stats().generation_tokens == before.generation_tokens


def test_serve_with_workers_refuses_the_in_process_limiter(tmp_path: Path) -> None:
    env = {**os.environ, "WARDEN_REDIS_URL": "", "WARDEN_DATA_DIR": str(tmp_path),
           "WARDEN_DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}"}
    result = subprocess.run([sys.executable, "-m", "gateway.cli", "serve", "--workers", "2", "--http"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "--workers 2 needs a shared rate limiter: set WARDEN_REDIS_URL" in result.stderr
    assert not (tmp_path / "w.db").exists()  # refused before touching anything
