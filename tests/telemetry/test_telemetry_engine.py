"""The engine's side of observability with the real model: per-request phase timings and the stats snapshot
(engine.metrics), and a streamed request through the gateway that shows up in /metrics and as one trace whose
engine spans (queue, prefill, decode) sit under the request's root span, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from telemetry_support import new_key, sample

from engine.config import EngineConfig
from engine.launch import start_engine
from engine.llm_engine import LLMEngine
from engine.metrics import EngineStats, RequestTimings
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from gateway.app import create_app
from gateway.core.settings import Settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llm_engine() -> LLMEngine:
    return LLMEngine(EngineConfig(show_progress=False, kv_cache_memory_mb=64))


def run(engine: LLMEngine, request: EngineRequest) -> list:  # type: ignore[type-arg]
    engine.add_request(request)
    outputs = []
    while engine.has_unfinished_requests():
        outputs.extend(engine.step())
    return outputs


def test_timings_and_stats_follow_the_requests(llm_engine: LLMEngine) -> None:
    before = llm_engine.stats()
    prompt = list(range(1000, 1000 + 80))  # five full blocks of 16
    params = SamplingParams(max_tokens=5, ignore_eos=True, temperature=0.0)
    first = run(llm_engine, EngineRequest("m-1", prompt, params))
    second = run(llm_engine, EngineRequest("m-2", prompt, params))
    for outputs in (first, second):
        assert all(o.metrics is None for o in outputs[:-1])
        timings = outputs[-1].metrics
        assert isinstance(timings, RequestTimings)
        assert 0 < timings.arrival_ns <= timings.scheduled_ns <= timings.first_token_ns <= timings.finished_ns
        assert timings.queue_s is not None and timings.prefill_s is not None and timings.decode_s is not None
    assert first[-1].metrics.cached_tokens == 0 and second[-1].metrics.cached_tokens == 64
    after = llm_engine.stats()
    assert isinstance(after, EngineStats)
    assert after.generation_tokens - before.generation_tokens == 10
    assert after.prompt_tokens - before.prompt_tokens == 160
    assert after.prefix_cache_queries - before.prefix_cache_queries == 160
    assert after.prefix_cache_hits - before.prefix_cache_hits == 64
    assert (after.num_requests_running, after.num_requests_waiting, after.kv_cache_usage) == (0, 0, 0.0)


def test_kv_usage_and_running_while_busy(llm_engine: LLMEngine) -> None:
    llm_engine.add_request(EngineRequest("busy", list(range(2000, 2040)), SamplingParams(max_tokens=3)))
    llm_engine.step()
    busy = llm_engine.stats()
    assert busy.num_requests_running == 1 and busy.kv_cache_usage > 0
    llm_engine.abort_request("busy")
    assert llm_engine.stats().kv_cache_usage == 0.0


@pytest.fixture(scope="module")
def engine_client() -> Iterator:  # type: ignore[type-arg]
    client = asyncio.run(start_engine(EngineConfig(show_progress=False, kv_cache_memory_mb=64)))
    yield client
    asyncio.run(client.shutdown())


def test_a_streamed_request_in_metrics_and_in_one_trace(engine_client, telemetry_settings: Settings) -> None:  # type: ignore[no-untyped-def]
    telemetry_settings.tracing = True
    telemetry_settings.trace_exporter = "memory"
    telemetry_settings.engine_stats_interval_s = 0.05
    issued = new_key(telemetry_settings)
    app = create_app(telemetry_settings, engine=engine_client)
    body = {"model": engine_client.model_name, "messages": [{"role": "user", "content": "Count to five."}],
            "max_tokens": 6, "stream": True, "temperature": 0}
    with TestClient(app) as client:
        with client.stream("POST", "/v1/chat/completions", json=body,
                           headers={"Authorization": f"Bearer {issued.api_key}"}) as response:
            assert response.status_code == 200
            lines = [line for line in response.iter_lines() if line]
        assert lines[-1] == "data: [DONE]"
        text = client.get("/metrics").text
    model = engine_client.model_name
    assert sample(text, "warden:time_to_first_token_seconds_count", model_name=model) == 1
    assert sample(text, "warden:e2e_request_latency_seconds_count", model_name=model) == 1
    assert sample(text, "warden:inter_token_latency_seconds_count", model_name=model) >= 1
    assert sample(text, "warden:request_queue_time_seconds_count", model_name=model) == 1
    assert sample(text, "warden:generation_tokens_total", model_name=model) >= 1
    assert sample(text, "warden:prompt_tokens_total", model_name=model) > 0
    assert sample(text, "warden:num_requests_running", model_name=model) == 0  # idle again
    assert sample(text, "warden:tenant_requests_total", tenant=issued.tenant_id, endpoint="chat.completions",
                  status="200") == 1
    assert sample(text, "warden:tenant_tokens_total", tenant=issued.tenant_id, kind="completion") >= 1

    spans = app.state.telemetry.tracing.exporter.get_finished_spans()
    root = next(s for s in spans if s.name == "POST /v1/chat/completions")
    in_trace = [s for s in spans if s.context.trace_id == root.context.trace_id]
    names = {s.name for s in in_trace}
    assert {"gateway.auth", "gateway.policy", "gateway.rate_limit", "gateway.input_guardrails", "gateway.audit",
            "engine.queue", "engine.prefill", "engine.decode"} <= names
    engine_spans = {s.name: s for s in in_trace if s.name.startswith("engine.")}
    assert all(s.parent.span_id == root.context.span_id for s in engine_spans.values())
    queue, prefill, decode = (engine_spans[n] for n in ("engine.queue", "engine.prefill", "engine.decode"))
    assert root.start_time <= queue.start_time <= queue.end_time == prefill.start_time
    assert prefill.end_time == decode.start_time <= decode.end_time <= root.end_time
