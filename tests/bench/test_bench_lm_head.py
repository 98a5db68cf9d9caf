"""bench.lm_head end to end at its smallest (two row counts, one round, short timings): every candidate is timed at
every row count, each speedup is the baseline's median over the candidate's, and the JSON says under what load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import lm_head
from bench.cpu_linears import HEAD_SHAPE
from kernels import cpu as cpu_kernels

pytestmark = pytest.mark.skipif(
    not cpu_kernels.load() or not cpu_kernels.lm_head_supported(*HEAD_SHAPE[::-1]),
    reason="kernels.cpu's lm_head_linear does not run here (no C++ toolchain or no AVX-512 VNNI)")


def test_the_benchmark_times_every_candidate_at_every_row_count(tmp_path: Path) -> None:
    out = tmp_path / "lm_head.json"
    assert lm_head.main(["--rows", "1,3", "--rounds", "1", "--min-seconds", "0.001", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["rounds"] == 1 and report["clock"] == "thread CPU time"
    assert set(report["load_average_1_5_15"]) == {"start", "end"}
    assert [row["rows"] for row in report["results"]] == [1, 3]
    for row in report["results"]:
        assert set(row) - {"rows"} == {"before", "lm_head two-level", "lm_head one-level"}
        assert row["before"]["speedup_vs_before"] == 1.0
        for name in ("lm_head two-level", "lm_head one-level"):
            assert row[name]["ms"] > 0 and len(row[name]["rounds_ms"]) == 1
            assert row[name]["speedup_vs_before"] == pytest.approx(row["before"]["ms"] / row[name]["ms"],
                                                                   rel=0.01, abs=0.002)


def test_unknown_row_counts_are_refused() -> None:
    with pytest.raises(SystemExit):
        lm_head.main(["--rows", "1,zero"])
