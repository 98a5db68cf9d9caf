"""A call's engine outputs are observed into their model's latency histograms, looked up together per model
(GatewayMetrics.model_latencies): the same batched children ``child`` gives, and every histogram still counts."""

from __future__ import annotations

import time

from prometheus_client import generate_latest
from telemetry_support import sample

from engine.metrics import RequestTimings
from engine.outputs import RequestOutput, Usage
from gateway.telemetry.metrics import PREFIX, GatewayMetrics
from gateway.telemetry.request import RequestTelemetry
from gateway.telemetry.tracing import Tracing


def test_model_latencies_are_the_children_child_gives() -> None:
    metrics = GatewayMetrics()
    latencies = metrics.model_latencies("m")
    assert latencies is metrics.model_latencies("m")
    assert latencies.ttft is metrics.child(metrics.ttft, "m")
    assert latencies.decode_time is metrics.child(metrics.decode_time, "m")
    assert metrics.model_latencies("other").ttft is not latencies.ttft


def test_outputs_are_observed_into_their_models_histograms() -> None:
    metrics = GatewayMetrics()
    now = time.perf_counter_ns()
    timings = RequestTimings(arrival_ns=now, scheduled_ns=now + 1_000, first_token_ns=now + 2_000,
                             finished_ns=now + 5_000)
    for model in ("a", "b", "b"):
        telemetry = RequestTelemetry(metrics, Tracing.disabled(), "chat.completions", now)
        telemetry.model_name = model
        telemetry.on_output(0, RequestOutput("r", [1], "x", usage=Usage(3, 1)))
        telemetry.on_output(0, RequestOutput("r", [2], "y", finish_reason="stop", usage=Usage(3, 2), metrics=timings))
    metrics.flush()
    text = generate_latest(metrics.registry).decode()
    for name in ("time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds",
                 "request_queue_time_seconds", "request_prefill_time_seconds", "request_decode_time_seconds"):
        assert sample(text, f"{PREFIX}{name}_count", model_name="a") == 1.0, name
        assert sample(text, f"{PREFIX}{name}_count", model_name="b") == 2.0, name
