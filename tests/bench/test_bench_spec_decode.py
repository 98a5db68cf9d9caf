"""bench.spec_decode end to end at its smallest: float32 eager, where speculation must leave every greedy output
unchanged (the benchmark's exit status), and the report it writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import spec_decode


@pytest.mark.slow
def test_the_benchmark_runs_and_finds_outputs_unchanged(tmp_path: Path) -> None:
    out = tmp_path / "spec.json"
    status = spec_decode.main(["--quick", "--repeat", "1", "--no-compile", "--dtype", "float32", "--quantization",
                               "none", "--max-tokens", "24", "--threads", "2", "--out", str(out)])
    report = json.loads(out.read_text())
    assert status == 0
    assert report["identical_greedy_outputs"]["requests"] == report["identical_greedy_outputs"]["of"] == 40
    assert set(report["ratio"]) == {f"{w}/{c}" for w in ("quote", "edit", "extract", "chat") for c in ("c1", "c8")}
    assert report["acceptance"]["quote"]["accepted"] > 0
