"""bench.aiperf without AIPerf installed: reading a recorded AIPerf summary export, the comparison with bench.serve,
the trace rows AIPerf is given, the engine's tokenizer exported for an offline hub lookup, the session-holding
replay AIPerf's concurrency means, and serve.json keeping what it had when the summary is attached."""

from __future__ import annotations

import asyncio
import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from bench.aiperf import aiperf_rows, attach_to_serve_json, export_tokenizer, summary_for_serve_json
from bench.aiperf_results import ExportError, compare, parse_export, read_export, relative_difference
from bench.serve_prompts import PromptSynthesizer
from bench.serve_replay import RequestResult, replay
from bench.traces.mooncake import TraceEntry

EXPORT = Path(__file__).parent / "data" / "aiperf_profile_export.json"  # AIPerf 0.13.0 against Warden, trimmed


def recorded() -> dict[str, Any]:
    return json.loads(EXPORT.read_text())


def test_a_recorded_export_reads_as_the_figures_bench_serve_reports() -> None:
    level = read_export(EXPORT)
    raw = recorded()
    assert (level.requests, level.errors) == (10, 0)
    assert level.ttft_p50_ms == raw["time_to_first_token"]["p50"]
    assert level.ttft_p90_ms == raw["time_to_first_token"]["p90"]
    assert level.itl_p50_ms == raw["inter_token_latency"]["p50"]
    assert level.output_tok_s == raw["output_token_throughput"]["avg"]
    assert level.cached_prompt_fraction == pytest.approx(raw["overall_usage_prompt_cache_read_pct"]["avg"] / 100)
    assert level.to_json()["ttft_p50_ms"] == round(raw["time_to_first_token"]["p50"], 2)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(was_cancelled=True), "cancelled"),
    (lambda d: d.pop("inter_token_latency"), "inter_token_latency"),
    (lambda d: d["time_to_first_token"].update(unit="ns"), "expected 'ms'"),
])
def test_an_incomplete_or_unexpected_export_is_refused(edit: Any, message: str) -> None:
    export = copy.deepcopy(recorded())
    edit(export)
    with pytest.raises(ExportError, match=message):
        parse_export(export)


def test_errors_are_counted_from_the_error_summary() -> None:
    export = recorded()
    export["error_summary"] = [{"error_details": {"code": 500}, "count": 2}, {"error_details": {}, "count": 1}]
    assert parse_export(export).errors == 3


def test_the_comparison_takes_medians_over_rounds_and_holds_every_figure_to_the_tolerance() -> None:
    serve = [{"ttft_p50_ms": 100.0, "ttft_p90_ms": 200.0, "itl_p50_ms": 20.0, "output_tok_s": 50.0},
             {"ttft_p50_ms": 300.0, "ttft_p90_ms": 220.0, "itl_p50_ms": 22.0, "output_tok_s": 40.0},
             {"ttft_p50_ms": 110.0, "ttft_p90_ms": 210.0, "itl_p50_ms": 21.0, "output_tok_s": 45.0}]
    close = [{"ttft_p50_ms": 105.0, "ttft_p90_ms": 205.0, "itl_p50_ms": 21.5, "output_tok_s": 48.0}]
    result = compare(serve, close)
    assert result["figures"]["ttft_p50_ms"] == {"bench_serve": 110.0, "aiperf": 105.0,
                                                "relative_difference": round(-5 / 110, 4)}
    assert result["within_tolerance"] and result["max_abs_relative_difference"] == pytest.approx(3 / 45, abs=1e-4)
    far = [{**close[0], "itl_p50_ms": 10.0}]
    assert not compare(serve, far)["within_tolerance"]
    missing = [{**close[0], "output_tok_s": None}]
    assert not compare(serve, missing)["within_tolerance"]  # a figure AIPerf did not report cannot agree
    assert relative_difference(1.0, 0.0) is None and relative_difference(None, 1.0) is None


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    return Tokenizer.from_source(resolve_model("default", None))


def test_aiperf_gets_bench_serves_prompts_and_options_with_think_time_on_later_turns(tokenizer: Any) -> None:
    synth = PromptSynthesizer(tokenizer, block_size=32)
    entries = [TraceEntry(0, 200, 8, (0, 1, 2), "a"), TraceEntry(10, 200, 6, (0, 5, 6), "b"),
               TraceEntry(1000, 260, 7, (0, 1, 2, 3), "a")]
    rows = aiperf_rows(entries, synth, salt=3, seed=10, think_s=1.5)
    assert [r["messages"] for r in rows] == [synth.messages(e, 3) for e in entries]
    assert [r["output_length"] for r in rows] == [8, 6, 7]
    assert [r["session_id"] for r in rows] == ["a", "b", "a"]
    assert ["delay" in r for r in rows] == [False, False, True] and rows[2]["delay"] == 1500
    assert [r["extra"] for r in rows] == [{"ignore_eos": True, "temperature": 0.0, "seed": 10 + i} for i in range(3)]
    assert not any("timestamp" in r for r in rows)  # a timestamp would switch AIPerf to its fixed schedule


def test_the_exported_tokenizer_loads_offline_from_the_hub_cache_as_the_engines(tokenizer: Any,
                                                                                tmp_path: Path) -> None:
    from huggingface_hub import snapshot_download
    from transformers import AutoTokenizer

    revision = export_tokenizer(tokenizer, tmp_path / "hub", "warden/test-model")
    # How AIPerf resolves a tokenizer under HF_HUB_OFFLINE: the cached snapshot, then the directory.
    snapshot = snapshot_download("warden/test-model", cache_dir=tmp_path / "hub", local_files_only=True)
    assert Path(snapshot).name == revision
    exported = AutoTokenizer.from_pretrained(snapshot)
    text = " The quick brown fox, 12345 times: naïve café!"
    assert exported.encode(text, add_special_tokens=False) == tokenizer.encode(text)
    messages = [{"role": "user", "content": "hello"}]
    assert exported.apply_chat_template(messages, tokenize=False, add_generation_prompt=True) == \
        tokenizer.apply_chat_template(messages)
    assert exported.eos_token_id in tokenizer.eos_token_ids


async def test_a_session_holds_its_slot_through_its_think_time_with_session_slots() -> None:
    entries = [TraceEntry(0, 10, 2, (), "a"), TraceEntry(1, 10, 2, (), "b"), TraceEntry(2, 10, 2, (), "a")]
    spans: dict[int, tuple[float, float]] = {}

    async def send(index: int, entry: TraceEntry) -> RequestResult:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        spans[index] = (start, time.perf_counter())
        return RequestResult(index=index, session_id=entry.session_id)

    results, _ = await replay(entries, 1, send, think_s=0.05, session_slots=True)
    assert [r.index for r in results] == [0, 1, 2]
    assert spans[2][0] - spans[0][1] >= 0.05  # a thought between its turns, holding the one slot
    assert spans[1][0] >= spans[2][1]  # so b waited for a's last turn


def test_attaching_the_summary_keeps_everything_serve_json_had(tmp_path: Path) -> None:
    path = tmp_path / "serve.json"
    before = {"arms": {"optimized": {"levels": [1, 2]}}, "provenance": {"command": "python -m bench.serve"},
              "aiperf": {"stale": True}}
    path.write_text(json.dumps(before))
    attach_to_serve_json(path, {"agree": True})
    after = json.loads(path.read_text())
    assert after == {**before, "aiperf": {"agree": True}}


def test_serve_json_carries_each_levels_comparisons_and_the_load_generators_cpu(tmp_path: Path) -> None:
    figures = {"ttft_p50_ms": 100.0, "ttft_p90_ms": 200.0, "itl_p50_ms": 20.0, "output_tok_s": 50.0}
    runs: list[dict[str, Any]] = [{"tool": tool, "figures": {**figures, "client_cpu_s": cpu}}
            for tool, cpu in (("bench_serve", 0.5), ("bench_serve", 0.7), ("bench_serve_process", 0.6),
                              ("aiperf", 40.0), ("aiperf", 44.0))]
    serve_runs = [r["figures"] for r in runs if r["tool"] == "bench_serve"]
    aiperf_runs = [r["figures"] for r in runs if r["tool"] == "aiperf"]
    report = {"arm": "optimized", "tolerance": 0.1, "agree": True, "max_abs_relative_difference": 0.0,
              "command": "python -m bench.aiperf",
              "levels": [{"concurrency": 2, "runs": runs, "comparison": compare(serve_runs, aiperf_runs),
                          "comparison_process_client": compare(serve_runs, aiperf_runs)}]}
    summary = summary_for_serve_json(report, tmp_path / "serve_aiperf.json")
    level = summary["levels"]["2"]
    assert set(level) == {"vs_bench_serve", "vs_bench_serve_own_process", "client_cpu_s"}
    assert level["client_cpu_s"] == {"aiperf": 42.0, "bench_serve": 0.6, "bench_serve_process": 0.6}
    assert level["vs_bench_serve"]["itl_p50_ms"]["relative_difference"] == 0.0
