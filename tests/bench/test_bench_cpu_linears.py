"""bench.cpu_linears end to end at its smallest (two row counts, one round, short timings): every candidate the
machine runs is timed at every row count, ratios are to torch's kernel, and the JSON says which machine it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from bench import cpu_linears
from kernels import cpu as cpu_kernels

pytestmark = pytest.mark.skipif(not cpu_kernels.load(), reason="kernels.cpu needs a C++ toolchain to build")


def test_the_benchmark_times_every_candidate_at_every_row_count(tmp_path: Path) -> None:
    out = tmp_path / "cpu_linears.json"
    assert cpu_linears.main(["--quick", "--rows", "1,3", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["cpu"].split()[-1] in ("AVX512", "AVX2", "DEFAULT") and report["rounds"] == 1
    layer, head = report["results"]["int4 layer"], report["results"]["int8 head"]
    assert [row["rows"] for row in layer] == [row["rows"] for row in head] == [1, 3]
    # Warden's kernels are candidates wherever they run on this CPU
    expected_layer = {"torch int4"}
    if cpu_kernels.int4_gemm_bf16_runs():
        expected_layer.add("warden int4 GEMM (bf16 inputs, AVX512-BF16)")
    if cpu_linears.avx2_gemm_builds(cpu_linears.quantized_layer(576, 64, "int4", torch.bfloat16)):
        expected_layer.add("warden int4 GEMM (float inputs, AVX2)")
    if cpu_kernels.one_row_linear_supported("int4", 64, 64):
        expected_layer |= {"warden int4 (int8 inputs)", "warden int4 (two-level inputs)"}
    if torch.ops.warden_cpu.int4_linear_permutes():  # the kernel it replaces there, beside it
        expected_layer.add("warden int4 (int8 inputs, regrouping kernel)")
    expected_head = {"torch int8"} | ({"warden int8"} if cpu_kernels.one_row_linear_supported("int8", 64, 64)
                                      else set())
    if cpu_kernels.int8_gemm_bf16_runs():
        expected_head.add("warden int8 GEMM (bf16 inputs, AVX512-BF16)")
    if cpu_kernels.lm_head_supported(*cpu_linears.HEAD_SHAPE[::-1]):
        expected_head.add("warden LM head (packed, VNNI)")
    for rows, expected in ((layer, expected_layer), (head, expected_head)):
        for row in rows:
            assert set(row) - {"rows"} == expected
            for name in expected:
                assert row[name]["us"] > 0 and len(row[name]["rounds_us"]) == 1  # --quick: one round
            baseline = "torch int4" if "torch int4" in row else "torch int8"
            assert row[baseline]["speedup_vs_torch"] == 1.0
            for name in expected:  # the ratio is torch's median over this candidate's, as printed
                assert row[name]["speedup_vs_torch"] == pytest.approx(row[baseline]["us"] / row[name]["us"],
                                                                      rel=0.01, abs=0.002)


def test_unknown_row_counts_are_refused() -> None:
    with pytest.raises(SystemExit):
        cpu_linears.main(["--rows", "1,zero"])
    with pytest.raises(SystemExit):
        cpu_linears.main(["--rows", "0"])
