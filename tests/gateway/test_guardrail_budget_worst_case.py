"""A prompt built to be slow to scan (one long run of digit groups: the phone matcher judges a candidate at every
offset), through a live gateway on the real engine whose guardrails have a small CPU budget: each surface answers
422 guardrail_budget_exceeded in its own error shape, soon after the budget is spent, the refusal is audited, and
the next ordinary request is served."""

from __future__ import annotations

import gc
import ssl
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from gateway_support import new_tenant_with_key
from live_server import LiveServer
from sqlalchemy import select

from bench.guard_budget import digit_groups
from gateway.app import create_app
from gateway.audit.models import AuditRecord
from gateway.background_server import BackgroundServer, start_background_server
from gateway.core.db import Database
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.guardrails import GuardConfig, InputGuard
from gateway.openai.guardrails_adapter import GuardrailsInput

BUDGET_S = 0.3
# Within the model's context (admission refuses a longer prompt before any scan), and unbounded it would take
# about 1 s of CPU to scan: three budgets.
SLOW_CHARS = 7_000


@pytest.fixture(scope="module")
def gateway(live: LiveServer, db: Database, tmp_path_factory: pytest.TempPathFactory) -> Iterator[
        tuple[BackgroundServer, str, str]]:  # fmt: skip
    settings = live.settings.model_copy(update={"data_dir": tmp_path_factory.mktemp("budget")})
    # One guard thread: the request after a refusal is scanned only once the refused scan's thread has stopped, so
    # each test starts with no scan left running from the one before.
    guard = InputGuard(b"budget-secret", config=GuardConfig(scan_budget_s=BUDGET_S, workers=1))
    app = create_app(settings, engine=live.services.engine, input_guard=GuardrailsInput(guard))
    background = start_background_server(app, settings.data_dir, name="budget-uvicorn")
    try:
        _, issued = new_tenant_with_key(db, settings)
        yield background, issued.api_key, live.services.engine.model_name
    finally:
        background.stop()
        guard.close()


def _client(background: BackgroundServer, api_key: str) -> httpx.Client:
    return httpx.Client(base_url=background.base_url, timeout=120,
                        verify=ssl.create_default_context(cafile=str(background.cert)),
                        headers={"authorization": f"Bearer {api_key}", "anthropic-version": "2023-06-01"})


def _body(path: str, model: str, text: str) -> dict[str, Any]:
    if path == "/v1/responses":
        return {"model": model, "input": text, "max_output_tokens": 4}
    return {"model": model, "messages": [{"role": "user", "content": text}], "max_tokens": 4}


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/messages", "/v1/responses"])
def test_a_slow_to_scan_prompt_is_refused_in_the_apis_shape_audited_and_the_next_is_served(
        gateway: tuple[BackgroundServer, str, str], db: Database, path: str) -> None:
    background, api_key, model = gateway
    text = digit_groups(SLOW_CHARS, seed=hash(path) % 1_000)  # a text no earlier test had scanned (no cache hit)
    with _client(background, api_key) as client:
        # This process serves the gateway (its threads), so its CPU until the refusal is the scan's and little more,
        # except a garbage collection of its heap: late in the suite that heap is large, and one collection starting
        # during the request costs more than the margin (the budget leaves collections out; so does this measure).
        gc.collect()
        gc.disable()
        try:
            cpu = time.process_time()
            response = client.post(path, json=_body(path, model, text))
            refusal_cpu = time.process_time() - cpu
        finally:
            gc.enable()
        assert response.status_code == 422, response.text
        body = response.json()
        if path == "/v1/messages":
            assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
        else:
            assert body["error"]["code"] == "guardrail_budget_exceeded"
            assert body["error"]["type"] == "invalid_request_error"
        assert "budget" in body["error"]["message"] and text[:20] not in response.text
        assert refusal_cpu < BUDGET_S + 0.5
        request_id = response.headers[REQUEST_ID_HEADER]
        served = client.post(path, json=_body(path, model, "Say hello."))
        assert served.status_code == 200, served.text
    services = background.server.config.loaded_app.app.state.services
    assert services.audit.flush(10)
    with db.session() as session:
        (row,) = session.scalars(select(AuditRecord).where(AuditRecord.request_id == request_id))
    assert row.http_status == 422
    assert {"stage": "input_guardrails", "decision": "refused",
            "reason": "guardrail_budget_exceeded"} in row.decisions
    assert text[:20] not in str(row.decisions)

