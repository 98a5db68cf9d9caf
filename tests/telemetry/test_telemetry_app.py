"""The gateway's telemetry over HTTP, without an engine: /metrics (and its token), refusals counted per tenant and
reason, stage histograms, and one trace per request with a span per stage that ran, continuing a client's
``traceparent``. Tracing off means no spans and no tracer at all."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr
from telemetry_support import new_key, sample

from gateway.app import create_app
from gateway.core.middleware import REQUEST_ID_HEADER
from gateway.core.settings import Settings

CHAT = {"model": "smollm2-135m-instruct", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}


@pytest.fixture
def traced(telemetry_settings: Settings) -> Iterator[TestClient]:
    telemetry_settings.tracing = True
    telemetry_settings.trace_exporter = "memory"
    telemetry_settings.max_body_bytes = 2048
    with TestClient(create_app(telemetry_settings, start_engine=False)) as client:
        yield client


def spans(client: TestClient) -> list:  # type: ignore[type-arg]
    return list(client.app.state.telemetry.tracing.exporter.get_finished_spans())  # type: ignore[attr-defined]


def test_refusals_are_counted_per_tenant_and_reason(traced: TestClient, telemetry_settings: Settings) -> None:
    assert traced.post("/v1/chat/completions", json=CHAT).status_code == 401
    issued = new_key(telemetry_settings)
    headers = {"Authorization": f"Bearer {issued.api_key}"}
    assert traced.post("/v1/chat/completions", json={**CHAT, "bogus": 1}, headers=headers).status_code == 400
    assert traced.post("/v1/chat/completions", json=CHAT, headers=headers).status_code == 503  # no engine
    assert traced.post("/v1/chat/completions", content=b"x" * 4096, headers=headers).status_code == 413
    text = traced.get("/metrics").text
    tenant = issued.tenant_id
    assert sample(text, "warden:tenant_refusals_total", tenant="unknown", reason="auth") == 1
    assert sample(text, "warden:tenant_refusals_total", tenant=tenant, reason="invalid_request_error") == 1
    assert sample(text, "warden:tenant_refusals_total", tenant=tenant, reason="service_unavailable_error") == 1
    assert sample(text, "warden:tenant_refusals_total", tenant="unknown", reason="body_size") == 1
    assert sample(text, "warden:tenant_requests_total", tenant=tenant, endpoint="chat.completions",
                  status="503") == 1
    assert sample(text, "warden:gateway_stage_seconds_count", stage="auth") == 3
    assert sample(text, "warden:gateway_stage_seconds_count", stage="policy") == 2
    assert sample(text, "warden:gateway_stage_seconds_count", stage="audit") == 3
    assert sample(text, "warden:gateway_overhead_seconds_count", endpoint="chat.completions") == 3


def test_one_trace_per_request_with_stage_spans(traced: TestClient, telemetry_settings: Settings) -> None:
    issued = new_key(telemetry_settings)
    parent_trace = "4bf92f3577b34da6a3ce929d0e0e4736"
    response = traced.post("/v1/chat/completions", json=CHAT, headers={
        "Authorization": f"Bearer {issued.api_key}", "traceparent": f"00-{parent_trace}-00f067aa0ba902b7-01"})
    assert response.status_code == 503
    finished = spans(traced)
    root = next(s for s in finished if s.name == "POST /v1/chat/completions")
    assert format(root.context.trace_id, "032x") == parent_trace  # the client's trace continues
    assert root.attributes["warden.request_id"] == response.headers[REQUEST_ID_HEADER]
    assert root.attributes["http.response.status_code"] == 503
    assert root.attributes["warden.tenant_id"] == issued.tenant_id
    children = {s.name: s for s in finished if s.parent is not None and s.parent.span_id == root.context.span_id}
    assert {"gateway.auth", "gateway.policy", "gateway.audit"} <= set(children)
    for child in children.values():
        assert root.start_time <= child.start_time <= child.end_time <= root.end_time

    traced.post("/v1/chat/completions", json=CHAT)  # a second request: a trace of its own
    roots = [s for s in spans(traced) if s.parent is None or s.name.startswith("POST")]
    assert len({s.context.trace_id for s in roots}) == 2


def test_tracing_off_creates_no_tracer_and_no_spans(telemetry_settings: Settings) -> None:
    with TestClient(create_app(telemetry_settings, start_engine=False)) as client:
        tracing = client.app.state.telemetry.tracing  # type: ignore[attr-defined]
        assert not tracing.enabled and tracing.tracer is None and tracing.provider is None
        assert client.post("/v1/chat/completions", json=CHAT).status_code == 401
        assert sample(client.get("/metrics").text, "warden:gateway_stage_seconds_count", stage="auth") == 1


def test_metrics_token_guards_the_endpoint(telemetry_settings: Settings) -> None:
    telemetry_settings.metrics_token = SecretStr("scrape-me")
    with TestClient(create_app(telemetry_settings, start_engine=False)) as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
        ok = client.get("/metrics", headers={"Authorization": "Bearer scrape-me"})
        assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")


def test_metrics_can_be_turned_off(telemetry_settings: Settings) -> None:
    telemetry_settings.metrics = False
    with TestClient(create_app(telemetry_settings, start_engine=False)) as client:
        assert client.get("/metrics").status_code == 404
