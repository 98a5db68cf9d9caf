"""The gateway-overhead benchmark: its paired accounting, its workload, the Presidio service LiteLLM's guardrail
calls, and a small run end to end against the bare engine server and two whole Wardens (LiteLLM itself is installed
only by the benchmark, from its own lock, so it is not part of the test run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from presidio_anonymizer import AnonymizerEngine

from bench.gateway_overhead import Sample, main, overhead_stats, ticket_prompts
from bench.guardrails import presidio_analyzer_engine
from bench.presidio_service import build_app
from gateway.guardrails import PiiAnalyzer


def _samples(latencies_ms: list[float], ttfts_ms: list[float] | None = None) -> list[Sample]:
    ttfts = ttfts_ms or [None] * len(latencies_ms)
    return [Sample(latency / 1e3, None if ttft is None else ttft / 1e3, 4, None)
            for latency, ttft in zip(latencies_ms, ttfts, strict=True)]


def test_overhead_is_the_excess_over_direct_for_the_same_prompt() -> None:
    # Prompt 1 is slow for the engine; a per-target median of latencies would hide the gateway's cost in it.
    stats = overhead_stats({"direct": _samples([100, 400, 102, 101]), "gw": _samples([104, 409, 105, 103])},
                           stream=False)
    assert stats["direct"]["overhead_p50_ms"] == 0
    assert stats["gw"]["overhead_p50_ms"] == pytest.approx(3.5)
    assert stats["gw"]["overhead_p90_ms"] == pytest.approx(7.5)


def test_streams_compare_time_to_first_content_and_to_the_end() -> None:
    stats = overhead_stats({"direct": _samples([300, 310], [50, 60]), "gw": _samples([302, 314], [80, 70])},
                           stream=True)
    assert stats["gw"]["ttft_overhead_p50_ms"] == pytest.approx(20)
    assert stats["gw"]["ttft_p50_ms"] == pytest.approx(75)
    assert stats["gw"]["overhead_p50_ms"] == pytest.approx(3)


def test_half_of_the_tickets_carry_contact_details_the_guardrails_find() -> None:
    prompts = ticket_prompts(6, seed=3)
    assert prompts == ticket_prompts(6, seed=3)
    analyzer = PiiAnalyzer()
    found = [{f.entity_type for f in analyzer.analyze(p[1]["content"], ner_enabled=False)} for p in prompts]
    assert all({"EMAIL_ADDRESS", "PHONE_NUMBER"} <= types for types in found[::2])
    assert not any(types & {"EMAIL_ADDRESS", "PHONE_NUMBER"} for types in found[1::2])


@pytest.fixture(scope="module")
def presidio_client() -> TestClient:
    return TestClient(build_app(presidio_analyzer_engine(), AnonymizerEngine()))


def test_presidio_service_answers_presidios_rest_api(presidio_client: TestClient) -> None:
    text = "Ticket 7: write to dana@example.org about the refund."
    analyzed = presidio_client.post("/analyze", json={"text": text, "language": "en"})
    assert analyzed.status_code == 200
    emails = [r for r in analyzed.json() if r["entity_type"] == "EMAIL_ADDRESS"]
    assert [text[r["start"]:r["end"]] for r in emails] == ["dana@example.org"]
    anonymized = presidio_client.post("/anonymize", json={"text": text, "analyzer_results": emails})
    assert anonymized.status_code == 200
    assert anonymized.json()["text"] == "Ticket 7: write to <EMAIL_ADDRESS> about the refund."
    assert [item["entity_type"] for item in anonymized.json()["items"]] == ["EMAIL_ADDRESS"]


def test_presidio_service_applies_the_requested_operator(presidio_client: TestClient) -> None:
    text = "call +1 415 555 0134"
    results = [{"entity_type": "PHONE_NUMBER", "start": 5, "end": len(text), "score": 0.9}]
    body = {"text": text, "analyzer_results": results,
            "anonymizers": {"PHONE_NUMBER": {"type": "replace", "new_value": "[phone]"}}}
    assert presidio_client.post("/anonymize", json=body).json()["text"] == "call [phone]"


@pytest.mark.slow
def test_benchmark_runs_warden_against_the_bare_engine(tmp_path: Path) -> None:
    out = tmp_path / "gateway_overhead.json"
    assert main(["--no-litellm", "--requests", "3", "--warmup", "1", "--rounds", "1", "--concurrency", "2",
                 "--max-tokens", "2", "--stream-requests", "2", "--stream-max-tokens", "40", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    targets = {"direct", "warden_core", "warden_guarded"}
    assert set(report["sequential"]) == set(report["sequential_stream"]) == set(report["load"]) == targets
    assert report["sequential"]["direct"]["overhead_p50_ms"] == 0
    for name in targets:  # ignore_eos: every output as long as asked, whichever path it took
        assert report["sequential"][name]["completion_tokens_mean"] == 2
        assert report["sequential_stream"][name]["completion_tokens_mean"] == 40
        assert report["load"][name]["requests_per_s"] > 0
    # Streams arrive in pieces; Warden's output guardrails hold the word being written, so a few fewer of them.
    direct_chunks = report["sequential_stream"]["direct"]["content_chunks_mean"]
    assert direct_chunks > 10
    assert report["sequential_stream"]["warden_core"]["content_chunks_mean"] > 10
    assert 1 < report["sequential_stream"]["warden_guarded"]["content_chunks_mean"] < direct_chunks
    # Warden reports its own time on every response; the bare server has no such header.
    assert report["sequential"]["direct"]["reported_overhead_p50_ms"] is None
    assert report["sequential"]["warden_core"]["reported_overhead_p50_ms"] > 0
    assert report["config"]["engine_env"]["WARDEN_ENGINE_ENABLE_PREFIX_CACHING"] == "false"
