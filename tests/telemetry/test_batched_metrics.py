"""The per-request metrics batched on the event loop (``BatchedHistogram``, ``BatchedCounter``): once flushed they
read exactly as the Prometheus children fed directly read, ``render`` flushes first, ``flush_if_due`` waits for its
interval, and in multiprocess mode a flush is what puts a worker's counts in its files."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from telemetry_support import sample

from gateway.telemetry import metrics as metrics_module
from gateway.telemetry.metrics import STAGE_BUCKETS, TTFT_BUCKETS, GatewayMetrics


def _values() -> list[float]:
    rng = random.Random(7)
    exact = [*STAGE_BUCKETS, *TTFT_BUCKETS, 0.0, 1e9]  # on a bound: that bucket, as the child's observe puts it
    return exact + [rng.uniform(0, 3) for _ in range(500)] + [rng.expovariate(1000) for _ in range(500)]


def test_flushed_batches_read_as_the_children_fed_directly() -> None:
    batched, direct = GatewayMetrics(), GatewayMetrics()
    for value in _values():
        batched.stage("auth").observe(value)
        direct.stage_seconds.labels("auth").observe(value)
        batched.child(batched.ttft, "m").observe(value)
        direct.ttft.labels("m").observe(value)
    for count in (1, 1, 5, 0, 12):
        batched.child(batched.tenant_requests, "t", "chat.completions", "200").inc()
        direct.tenant_requests.labels("t", "chat.completions", "200").inc()
        batched.child(batched.tenant_tokens, "t", "prompt").inc(count)
        direct.tenant_tokens.labels("t", "prompt").inc(count)
    unflushed = generate_latest(batched.registry).decode()
    assert sample(unflushed, "warden:gateway_stage_seconds_count", stage="auth") == 0  # still in the batch
    batched.flush()

    def series(registry: CollectorRegistry) -> list[tuple[str, list[tuple[str, str]], float]]:
        return sorted((s.name, sorted(s.labels.items()), s.value) for family in registry.collect()
                      for s in family.samples if not s.name.endswith("_created"))
    assert series(batched.registry) == series(direct.registry)
    assert sample(generate_latest(batched.registry).decode(), "warden:gateway_stage_seconds_count",
                  stage="auth") == len(_values())


def test_render_flushes_and_a_second_flush_adds_nothing() -> None:
    metrics = GatewayMetrics()
    metrics.child(metrics.overhead_seconds, "chat.completions").observe(0.0004)
    metrics.child(metrics.tenant_requests, "t", "chat.completions", "200").inc()
    text = metrics.render().decode()
    assert sample(text, "warden:gateway_overhead_seconds_count", endpoint="chat.completions") == 1
    assert sample(text, "warden:gateway_overhead_seconds_bucket", endpoint="chat.completions", le="0.0005") == 1
    assert sample(text, "warden:gateway_overhead_seconds_bucket", endpoint="chat.completions", le="0.00025") == 0
    again = metrics.render().decode()
    assert sample(again, "warden:tenant_requests_total", tenant="t", endpoint="chat.completions", status="200") == 1
    assert sample(again, "warden:gateway_overhead_seconds_sum", endpoint="chat.completions") == pytest.approx(0.0004)


def test_flush_if_due_waits_for_its_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    metrics = GatewayMetrics()
    metrics.stage("policy").observe(0.001)
    metrics.flush_if_due()  # just made: not due
    assert sample(generate_latest(metrics.registry).decode(), "warden:gateway_stage_seconds_count",
                  stage="policy") == 0
    monkeypatch.setattr(metrics_module, "FLUSH_INTERVAL_S", 0.0)
    metrics.flush_if_due()
    assert sample(generate_latest(metrics.registry).decode(), "warden:gateway_stage_seconds_count",
                  stage="policy") == 1


def test_a_negative_count_is_refused_as_by_the_counter() -> None:
    metrics = GatewayMetrics()
    with pytest.raises(ValueError):
        metrics.child(metrics.tenant_tokens, "t", "prompt").inc(-1)


WORKER = textwrap.dedent("""
    import sys
    from gateway.telemetry.metrics import GatewayMetrics
    metrics = GatewayMetrics()
    metrics.child(metrics.tenant_requests, "t1", "chat.completions", "200").inc(2)
    metrics.stage("auth").observe(0.001)
    if sys.argv[1] == "flush":
        metrics.flush()
""")
RENDER = textwrap.dedent("""
    import sys
    from gateway.telemetry.metrics import GatewayMetrics
    sys.stdout.write(GatewayMetrics().render().decode())
""")


def test_in_multiprocess_mode_a_flush_writes_the_workers_files(tmp_path: Path) -> None:
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": os.getcwd()}
    subprocess.run([sys.executable, "-c", WORKER, "no-flush"], env=env, check=True, timeout=120)
    subprocess.run([sys.executable, "-c", WORKER, "flush"], env=env, check=True, timeout=120)
    text = subprocess.run([sys.executable, "-c", RENDER], env=env, capture_output=True,
                          text=True, timeout=120, check=True).stdout
    assert sample(text, "warden:tenant_requests_total", tenant="t1", endpoint="chat.completions", status="200") == 2
    assert sample(text, "warden:gateway_stage_seconds_count", stage="auth") == 1
