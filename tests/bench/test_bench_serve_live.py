"""``python -m bench.serve`` end to end on a tiny trace: two whole Wardens (engine process + HTTPS gateway), real
streamed requests, the JSON report and the Pareto plot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.serve import main as serve_main
from bench.traces.generate import main as generate_main

pytestmark = pytest.mark.slow


def test_serve_benchmark_runs_both_configurations(tmp_path: Path) -> None:
    trace = tmp_path / "tiny.jsonl"
    assert generate_main(["--preset", "cpu", "--context", "160", "--output", "4", "--sessions", "2", "--turns", "2",
                          "--reuse", "0.5", "-o", str(trace)]) == 0
    out, png = tmp_path / "serve.json", tmp_path / "pareto.png"
    assert serve_main(["--trace", str(trace), "--concurrency", "2", "--slo-tps-per-user", "0.01",
                       "--out", str(out), "--plot", str(png)]) == 0
    report = json.loads(out.read_text())
    assert report["baseline_tok_s_at_slo"] > 0 and report["optimized_tok_s_at_slo"] > 0
    for name in ("baseline", "optimized"):
        config = report["configs"][name]
        assert [lv["concurrency"] for lv in config["levels"]] == [2]
        assert all(lv["errors"] == 0 and lv["requests"] > 0 for lv in config["levels"])
        assert config["best_at_slo"]["output_tok_s"] == max(lv["output_tok_s"] for lv in config["levels"])
    levels = {name: report["configs"][name]["levels"] for name in ("baseline", "optimized")}
    # The second turn of each session resends the first's prefix: only the optimized engine serves it from cache.
    assert all(lv["cached_tokens"] == 0 for lv in levels["baseline"])
    assert sum(lv["cached_tokens"] for lv in levels["optimized"]) > 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
