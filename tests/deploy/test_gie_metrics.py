"""The model-server side of the Gateway API Inference Extension on /metrics: the gauges an endpoint picker scrapes,
under vLLM's names (``vllm:num_requests_waiting``, ``vllm:num_requests_running``, ``vllm:kv_cache_usage_perc`` as a
fraction, ``vllm:cache_config_info{block_size,num_gpu_blocks}``), read back with prometheus_client's own parser,
beside the ``warden:`` names."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from engine.config import EngineConfig
from engine.launch import start_engine
from engine.metrics import StatsCollector
from gateway.app import create_app
from gateway.core.migrate import upgrade_database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import issue_key
from gateway.replicas.pool import _merge
from gateway.telemetry.metrics import GatewayMetrics
from gateway.tenants.service import create_tenant

GIE_GAUGES = ("vllm:num_requests_waiting", "vllm:num_requests_running", "vllm:kv_cache_usage_perc")


def families(text: str) -> dict[str, tuple[str, list[Sample]]]:
    return {family.name: (family.type, family.samples) for family in text_string_to_metric_families(text)}


def one_value(parsed: dict[str, tuple[str, list[Sample]]], name: str) -> float:
    kind, samples = parsed[name]
    assert kind == "gauge", (name, kind)
    assert len(samples) == 1, samples
    return samples[0].value


def snapshot(running: int, waiting: int, used: int, total: int, block_size: int = 16):  # type: ignore[no-untyped-def]
    return StatsCollector().snapshot(running=running, waiting=waiting, used_blocks=used, num_blocks=total,
                                     prefix_queries=0, prefix_hits=0, preemptions=0, block_size=block_size)


def test_gie_gauges_follow_the_engine_beside_the_warden_names() -> None:
    metrics = GatewayMetrics()
    metrics.observe_engine_stats("m", snapshot(running=3, waiting=7, used=30, total=120))
    parsed = families(metrics.render().decode())
    assert one_value(parsed, "vllm:num_requests_waiting") == 7 == one_value(parsed, "warden:num_requests_waiting")
    assert one_value(parsed, "vllm:num_requests_running") == 3 == one_value(parsed, "warden:num_requests_running")
    assert one_value(parsed, "vllm:kv_cache_usage_perc") == 0.25 == one_value(parsed, "warden:kv_cache_usage_perc")
    kind, samples = parsed["vllm:cache_config_info"]
    assert kind == "gauge"
    assert [(s.labels, s.value) for s in samples] == [({"block_size": "16", "num_gpu_blocks": "120"}, 1.0)]


def test_a_restarted_engine_with_another_kv_budget_replaces_the_info_series() -> None:
    metrics = GatewayMetrics()
    metrics.observe_engine_stats("m", snapshot(0, 0, 0, 120))
    metrics.observe_engine_stats("m", snapshot(1, 0, 64, 64, block_size=32))
    parsed = families(metrics.render().decode())
    assert [s.labels for s in parsed["vllm:cache_config_info"][1]] == [{"block_size": "32", "num_gpu_blocks": "64"}]
    assert one_value(parsed, "vllm:kv_cache_usage_perc") == 1.0


def test_a_replica_pool_reports_its_live_replicas_blocks_and_the_fullest_cache() -> None:
    merged = _merge([snapshot(1, 2, 10, 100), snapshot(2, 5, 90, 100), snapshot(9, 9, 50, 100)], [True, True, False])
    assert merged is not None
    metrics = GatewayMetrics()
    metrics.observe_engine_stats("m", merged)
    parsed = families(metrics.render().decode())
    assert one_value(parsed, "vllm:num_requests_waiting") == 7  # the dead replica's queue is gone
    assert one_value(parsed, "vllm:num_requests_running") == 3
    assert one_value(parsed, "vllm:kv_cache_usage_perc") == 0.9
    assert parsed["vllm:cache_config_info"][1][0].labels == {"block_size": "16", "num_gpu_blocks": "200"}


def test_no_info_series_before_the_engine_reports_its_cache() -> None:
    parsed = families(GatewayMetrics().render().decode())
    assert parsed["vllm:cache_config_info"][1] == []
    assert all(parsed[name][1] == [] for name in GIE_GAUGES)


@pytest.fixture(scope="module")
def engine_client() -> Iterator:  # type: ignore[type-arg]
    client = asyncio.run(start_engine(EngineConfig(show_progress=False, kv_cache_memory_mb=64)))
    yield client
    asyncio.run(client.shutdown())


@pytest.mark.slow
def test_the_real_engine_on_metrics_under_a_stream(engine_client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'warden.db'}"
    upgrade_database(url)
    settings = Settings(database_url=url, data_dir=tmp_path / "data", server_secret="gie-secret", redis_url=None,
                        guardrails=False, log_format="none", audit_checkpoint_interval_s=0.0,
                        engine_stats_interval_s=0.05)
    app = create_app(settings, engine=engine_client)
    body = {"model": engine_client.model_name, "messages": [{"role": "user", "content": "Count to twenty."}],
            "max_tokens": 64, "stream": True, "temperature": 0, "ignore_eos": True}
    with TestClient(app) as client:
        from gateway.core.db import Database

        db = Database(url)
        with db.transaction() as session:
            tenant = create_tenant("gie", session=session)
            key = issue_key(tenant, pepper=load_server_secrets(settings).key_pepper, session=session).api_key
        db.dispose()
        busy: list[dict[str, tuple[str, list[Sample]]]] = []
        with client.stream("POST", "/v1/chat/completions", json=body,
                           headers={"Authorization": f"Bearer {key}"}) as response:
            assert response.status_code == 200
            # The engine pushes its stats at most every 0.5 s while busy: scrape on every chunk of a stream long
            # enough to span several pushes, on a fast machine or a loaded one.
            for line in response.iter_lines():
                if line.startswith("data: {"):
                    busy.append(families(client.get("/metrics").text))
        idle = families(client.get("/metrics").text)
    assert busy, "no chunk streamed"
    assert any(one_value(parsed, "vllm:num_requests_running") == 1 for parsed in busy)
    for parsed in [*busy, idle]:
        for name in GIE_GAUGES:
            assert parsed[name][1][0].labels == {"model_name": engine_client.model_name}
        assert 0.0 <= one_value(parsed, "vllm:kv_cache_usage_perc") <= 1.0
        info = parsed["vllm:cache_config_info"][1]
        assert len(info) == 1 and info[0].value == 1.0
        assert int(info[0].labels["block_size"]) == 16 and int(info[0].labels["num_gpu_blocks"]) > 0
    assert any(one_value(parsed, "vllm:kv_cache_usage_perc") > 0 for parsed in busy)
    assert one_value(idle, "vllm:num_requests_running") == 0 and one_value(idle, "vllm:num_requests_waiting") == 0
