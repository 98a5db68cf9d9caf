"""Prometheus metrics: the vLLM-compatible names, engine snapshots turned into gauges and counters, bounded tenant
labels, refusal reasons from a fixed set, and multi-worker aggregation through PROMETHEUS_MULTIPROC_DIR."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from telemetry_support import sample

from engine.metrics import COUNTER_FIELDS, EngineStats, StatsCollector
from gateway.telemetry.metrics import (
    OTHER_TENANT,
    UNKNOWN_TENANT,
    GatewayMetrics,
    TenantLabels,
    prepare_multiprocess_dir,
    refusal_reason,
)

REQUIRED = ["time_to_first_token_seconds", "inter_token_latency_seconds", "e2e_request_latency_seconds",
            "request_queue_time_seconds", "num_requests_running", "num_requests_waiting", "kv_cache_usage_perc",
            "prefix_cache_queries", "prefix_cache_hits", "prompt_tokens_total", "generation_tokens_total",
            "spec_decode_num_draft_tokens", "spec_decode_num_accepted_tokens", "spec_decode_num_proposed_tokens"]
METRIC_OF_COUNTER = {"prefix_cache_queries": "prefix_cache_queries", "prefix_cache_hits": "prefix_cache_hits",
                     "prompt_tokens": "prompt_tokens", "generation_tokens": "generation_tokens",
                     "num_preemptions": "num_preemptions", "spec_draft_tokens": "spec_decode_num_draft_tokens",
                     "spec_accepted_tokens": "spec_decode_num_accepted_tokens",
                     "spec_proposed_tokens": "spec_decode_num_proposed_tokens"}


def stats(**overrides: float) -> EngineStats:
    values = {"running": 2, "waiting": 1, "used_blocks": 25, "num_blocks": 100, "prefix_queries": 1000,
              "prefix_hits": 760, "preemptions": 0}
    values.update(overrides)
    collector = StatsCollector()
    collector.prompt_tokens, collector.generation_tokens = 1000, 64
    collector.spec_draft_tokens, collector.spec_accepted_tokens, collector.spec_proposed_tokens = 40, 25, 52
    return collector.snapshot(**values)  # type: ignore[arg-type]


def test_every_required_metric_is_exposed_under_the_warden_prefix() -> None:
    metrics = GatewayMetrics()
    metrics.observe_engine_stats("m", stats())
    for histogram in (metrics.ttft, metrics.itl, metrics.e2e, metrics.queue_time):
        histogram.labels("m").observe(0.1)
    text = metrics.render().decode()
    for name in REQUIRED:
        assert f"# TYPE warden:{name.removesuffix('_total')}" in text, name
    assert sample(text, "warden:kv_cache_usage_perc", model_name="m") == 0.25
    assert sample(text, "warden:num_requests_running", model_name="m") == 2
    assert sample(text, "warden:prefix_cache_hits_total", model_name="m") == 760
    assert sample(text, "warden:spec_decode_num_accepted_tokens_total", model_name="m") == 25
    assert sample(text, "warden:spec_decode_num_proposed_tokens_total", model_name="m") == 52
    assert sample(text, "warden:time_to_first_token_seconds_count", model_name="m") == 1


def test_every_engine_counter_has_its_metric() -> None:
    """A counter added to EngineStats but not exported would be silently dropped."""
    metrics = GatewayMetrics()
    snapshot = stats()
    counted = {name: index + 1 for index, name in enumerate(COUNTER_FIELDS)}
    metrics.observe_engine_stats("m", dataclasses.replace(snapshot, **counted))
    text = metrics.render().decode()
    exported = {name: sample(text, f"warden:{metric}_total", model_name="m")
                for name, metric in METRIC_OF_COUNTER.items()}
    assert exported == counted


def test_engine_counters_advance_by_differences_and_survive_an_engine_restart() -> None:
    metrics = GatewayMetrics()
    metrics.observe_engine_stats("m", stats(prefix_queries=100, prefix_hits=50))
    metrics.observe_engine_stats("m", stats(prefix_queries=300, prefix_hits=200, running=0, waiting=0))
    metrics.observe_engine_stats("m", stats(prefix_queries=40, prefix_hits=10))  # restarted engine: from zero
    text = metrics.render().decode()
    assert sample(text, "warden:prefix_cache_queries_total", model_name="m") == 340
    assert sample(text, "warden:prefix_cache_hits_total", model_name="m") == 210
    assert sample(text, "warden:num_requests_running", model_name="m") == 2


def test_tenant_labels_are_bounded() -> None:
    labels = TenantLabels(max_tenants=2)
    assert [labels.label(t) for t in ("a", "b", "c", "a", None, "")] == ["a", "b", OTHER_TENANT, "a",
                                                                           UNKNOWN_TENANT, UNKNOWN_TENANT]


def test_refusal_reasons_come_from_a_fixed_set() -> None:
    assert refusal_reason("rate_limit", "rate_limit_error") == "rate_limit"
    assert refusal_reason(None, "authentication_error") == "authentication_error"
    assert refusal_reason("a user-controlled string", "also free text") == "other"


WORKER = textwrap.dedent("""
    import sys
    from engine.metrics import StatsCollector
    from gateway.telemetry.metrics import GatewayMetrics
    metrics = GatewayMetrics()
    tenant = sys.argv[1]
    metrics.tenant_requests.labels(tenant, "chat.completions", "200").inc(3)
    metrics.ttft.labels("m").observe(0.2)
    snapshot = StatsCollector().snapshot(running=int(sys.argv[2]), waiting=0, used_blocks=int(sys.argv[3]),
                                         num_blocks=100, prefix_queries=10, prefix_hits=4, preemptions=0)
    metrics.observe_engine_stats("m", snapshot)
    print("ok", flush=True)
    sys.stdin.read()  # a worker serving on until told to end (its stdin closed) or killed
""")

RENDER = textwrap.dedent("""
    import sys
    from gateway.telemetry.metrics import GatewayMetrics
    sys.stdout.write(GatewayMetrics().render().decode())
""")


def test_workers_are_merged_through_the_multiprocess_directory(tmp_path: Path) -> None:
    """Two live worker processes, each reporting engine stats (two replicas' reporters); a scrape in a third sees the
    sum (counters, running requests) and the fullest KV cache. A worker SIGKILLed (no shutdown, no mark_worker_dead)
    drops out of the live gauges at the next scrape, dead or not yet reaped by its parent, and its counters stay."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": os.getcwd()}

    def scrape() -> str:
        return subprocess.run([sys.executable, "-c", RENDER], env=env, capture_output=True, text=True, timeout=120,
                              check=True).stdout

    workers = [subprocess.Popen([sys.executable, "-c", WORKER, "t1", str(running), str(used)], env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
               for running, used in ((3, 10), (2, 60))]
    try:
        for worker in workers:
            assert worker.stdout is not None and worker.stdout.readline().strip() == "ok"
        text = scrape()
        assert sample(text, "warden:tenant_requests_total", tenant="t1", endpoint="chat.completions", status="200") == 6
        assert sample(text, "warden:prefix_cache_queries_total", model_name="m") == 20
        assert sample(text, "warden:time_to_first_token_seconds_count", model_name="m") == 2
        assert sample(text, "warden:num_requests_running", model_name="m") == 5
        assert sample(text, "warden:kv_cache_usage_perc", model_name="m") == 0.6
        killed = workers[1]
        killed.kill()
        deadline = time.monotonic() + 60
        while Path(f"/proc/{killed.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
            assert time.monotonic() < deadline, "the killed worker never died"
            time.sleep(0.05)
        text = scrape()  # the killed worker is a zombie: dead, its parent has not reaped it
        assert sample(text, "warden:num_requests_running", model_name="m") == 3
        assert sample(text, "warden:kv_cache_usage_perc", model_name="m") == 0.1
        assert sample(text, "warden:tenant_requests_total", tenant="t1", endpoint="chat.completions", status="200") == 6
        assert sample(text, "warden:prefix_cache_queries_total", model_name="m") == 20
        assert not list(tmp_path.glob(f"gauge_live*_{killed.pid}.db"))
        killed.wait(60)
        assert sample(scrape(), "warden:num_requests_running", model_name="m") == 3
    finally:
        for worker in workers:
            worker.kill()
            worker.wait(60)
    # Both gone: no live gauge is left, the counters stay.
    text = scrape()
    assert sample(text, "warden:num_requests_running", model_name="m") is None
    assert sample(text, "warden:tenant_requests_total", tenant="t1", endpoint="chat.completions", status="200") == 6


def test_prepare_multiprocess_dir_starts_empty(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Recorded so teardown restores the variable's absence (prepare_multiprocess_dir sets it process-wide).
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "restored-by-teardown")
    directory = tmp_path / "prom"
    directory.mkdir()
    (directory / "counter_123.db").write_bytes(b"stale values of a previous run")
    assert prepare_multiprocess_dir(directory) == directory
    assert list(directory.iterdir()) == [] and os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(directory)
