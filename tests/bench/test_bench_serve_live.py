"""``python -m bench.serve`` end to end on a tiny trace: two whole Wardens (engine process + HTTPS gateway), real
streamed requests, the JSON report with its SLO and goodput, and the Pareto plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.serve import main as serve_main
from bench.traces.generate import main as generate_main

pytestmark = pytest.mark.slow


def test_serve_benchmark_runs_both_warden_arms(tmp_path: Path) -> None:
    trace = tmp_path / "tiny.jsonl"
    assert generate_main(["--preset", "cpu", "--context", "160", "--output", "4", "--sessions", "2", "--turns", "2",
                          "--reuse", "0.5", "--turn-gap-ms", "100", "-o", str(trace)]) == 0
    out, png = tmp_path / "serve.json", tmp_path / "pareto.png"
    # The optimized engine in the exact profile here: the fast one compiles for minutes at a first start.
    assert serve_main(["--trace", str(trace), "--concurrency", "2", "--requests", "4", "--arms", "baseline,optimized",
                       "--set", "optimized.profile=exact", "--slo-tps-per-user", "0.01", "--slo-ttft-p90-s", "600",
                       "--out", str(out), "--plot", str(png)]) == 0
    report = json.loads(out.read_text())
    assert report["slo"] == {"tps_per_user": 0.01, "ttft_p90_s": 600.0}
    assert report["trace"]["think_time_s"] == 0.1 and report["trace"]["levels"]["2"]["requests"] == 4
    for name in ("baseline", "optimized"):
        arm = report["arms"][name]
        assert [lv["concurrency"] for lv in arm["levels"]] == [2]
        assert all(lv["errors"] == 0 and lv["requests"] == 4 and lv["meets_slo"] for lv in arm["levels"])
        # ignore_eos: every answer is exactly the trace's length
        assert all(lv["mean_output_tokens"] == report["trace"]["levels"]["2"]["mean_output_tokens"]
                   for lv in arm["levels"])
        assert arm["best_at_slo"]["goodput_rps"] == pytest.approx(4 / arm["levels"][0]["wall_s"], rel=0.01)
    assert report["optimized_over_baseline_at_slo"] is not None and report["optimized_over_llamacpp_at_slo"] is None
    levels = {name: report["arms"][name]["levels"] for name in ("baseline", "optimized")}
    # The second turn of each session resends the first's prefix: only the optimized engine serves it from cache.
    assert all(lv["cached_tokens"] == 0 for lv in levels["baseline"])
    assert sum(lv["cached_tokens"] for lv in levels["optimized"]) > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
