"""Warden's CPU linear kernels vs torch's on SmolLM2-135M's shapes, per row count, side by side in one run.

    python -m bench.cpu_linears [--quick] [--threads 1] [--rows 1,2,4,...] [--out PATH]

Which kernel serves a step of M rows is a per-machine decision (``engine.worker.model_runner``: the small-batch bound,
the int8 head's routing; ``kernels.cpu.int4_gemm_runs``), and the kernels are AVX-512 VNNI or AVX2 builds whose speeds
differ by CPU, so this measures every candidate on the machine it runs on:

- int4 decoder layer (qkv 576->960, o 576->576, gate/up 576->3072, down 1536->576: one layer's four linears):
  ``kernels.cpu.int4_linear`` (int8-quantized inputs: the small-batch kernel; on AVX512-VBMI CPUs the permuting
  kernel, tiles of 8 rows, beside the regrouping one it replaces there, tiles of 4, bitwise the same results),
  ``kernels.cpu.int4_linear_two_level`` (the inputs in two levels: the one-row linear), ``kernels.cpu.int4_gemm_avx2``
  (float32 inputs times weights dequantized once per call) and ``torch._weight_int4pack_mm_for_cpu``.
- int8 LM head (576->49152, 28 MB): ``kernels.cpu.int8_linear`` (two-level int8 inputs), ``kernels.cpu.int8_gemm_bf16``
  (bf16 inputs, each weight block converted to bf16 once per call), ``kernels.cpu.lm_head_linear`` (the weight packed
  once for vpdpbusd, two-level inputs per row: what the engine's head runs on AVX-512 VNNI; ``bench.lm_head`` has it
  per row count against what the head ran before) and ``torch._weight_int8pack_mm``.

Random weights with the model's shapes and the serving dtype (bf16), quantized by ``engine.layers.Linear`` exactly as
the engine does. Each round times every candidate at every row count once, candidates in alternating order, so a
shared machine's drifting load falls on all alike; the table is the median over rounds, per call (a layer's four
linears together; one thread: its CPU time, several: the wall clock), with each candidate's ratio to torch's
kernel. Weights are used in a loop over the same tensors, so the 5 MB int4 layer stays in cache (as in a real step
it does not): the figures rank kernels, they do not predict a step. Writes bench/results/cpu_linears.json
(``--quick``: the temp directory unless ``--out`` says otherwise).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from bench.arguments import positive_ints
from bench.machine import cpu_description
from bench.provenance import write_results
from engine.layers.linear import INT4_GROUP_SIZE, Linear
from kernels import cpu as cpu_kernels

RESULTS = Path(__file__).parent / "results" / "cpu_linears.json"
LAYER_SHAPES = [(576, 960), (576, 576), (576, 3072), (1536, 576)]  # (in, out): qkv, o, gate/up, down
HEAD_SHAPE = (576, 49152)
ROWS = [1, 2, 4, 8, 16, 32, 64, 128, 256]
QUICK_ROWS = [1, 4, 16, 64]

Inputs = dict[int, torch.Tensor]  # input width -> a contiguous [rows, width] activation
Run = Callable[[Inputs], None]


def quantized_layer(in_features: int, out_features: int, kind: str, dtype: torch.dtype) -> Linear:
    layer = Linear(in_features, out_features)
    torch.nn.init.normal_(layer.weight, std=0.02)
    layer.weight.data = layer.weight.data.to(dtype)
    if kind == "int4":
        assert layer.quantize_int4(max_rows=1 << 16)
    else:
        layer.quantize_int8(max_rows=1 << 16)
    return layer


def int4_candidates(dtype: torch.dtype) -> dict[str, Run]:
    layers = [quantized_layer(i, o, "int4", dtype) for i, o in LAYER_SHAPES]

    def each(op: Callable[..., torch.Tensor]) -> Run:
        def run(x: Inputs) -> None:
            for (in_features, _), layer in zip(LAYER_SHAPES, layers, strict=True):
                op(x[in_features], layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
        return run

    candidates = {"torch int4": each(torch._weight_int4pack_mm_for_cpu)}
    if cpu_kernels.one_row_linear_supported("int4", 64, 64):
        candidates["warden int4 (int8 inputs)"] = each(cpu_kernels.int4_linear)
        candidates["warden int4 (two-level inputs)"] = each(cpu_kernels.int4_linear_two_level)
    if torch.ops.warden_cpu.int4_linear_permutes():
        candidates["warden int4 (int8 inputs, regrouping kernel)"] = each(
            lambda x, packed, group, scales: torch.ops.warden_cpu.int4_linear_regrouped(x, packed, group, scales, 1))
    if cpu_kernels.int4_gemm_bf16_runs():
        candidates["warden int4 GEMM (bf16 inputs, AVX512-BF16)"] = each(cpu_kernels.int4_gemm_bf16)
    if avx2_gemm_builds(layers[0]):
        candidates["warden int4 GEMM (float inputs, AVX2)"] = each(cpu_kernels.int4_gemm_avx2)
    return candidates


def avx2_gemm_builds(layer: Linear) -> bool:
    """Whether ``int4_gemm_avx2`` was built here (AVX2, FMA and F16C; it refuses to run otherwise). It is a
    candidate on AVX-512 CPUs too, where the engine keeps torch's kernel above the small-batch rows."""
    assert layer.quant_weight is not None and layer.quant_scales is not None
    try:
        cpu_kernels.int4_gemm_avx2(torch.zeros(1, layer.weight.shape[1], dtype=layer.weight.dtype),
                                   layer.quant_weight, INT4_GROUP_SIZE, layer.quant_scales)
    except RuntimeError:
        return False
    return True


def int8_head_candidates(dtype: torch.dtype) -> dict[str, Run]:
    head = quantized_layer(*HEAD_SHAPE, "int8", dtype)

    def each(op: Callable[..., torch.Tensor]) -> Run:
        def run(x: Inputs) -> None:
            op(x[HEAD_SHAPE[0]], head.quant_weight, head.quant_scales)
        return run

    candidates = {"torch int8": each(torch._weight_int8pack_mm)}
    if cpu_kernels.one_row_linear_supported("int8", *HEAD_SHAPE[::-1]):
        candidates["warden int8"] = each(cpu_kernels.int8_linear)
    if cpu_kernels.int8_gemm_bf16_runs():
        candidates["warden int8 GEMM (bf16 inputs, AVX512-BF16)"] = each(cpu_kernels.int8_gemm_bf16)
    if cpu_kernels.lm_head_supported(*HEAD_SHAPE[::-1]):
        assert head.quant_weight is not None
        packed = cpu_kernels.lm_head_pack(head.quant_weight)
        candidates["warden LM head (packed, VNNI)"] = each(
            lambda x, weight, scales: cpu_kernels.lm_head_linear(x, packed, scales, 2))
    return candidates


def clock_for(threads: int) -> Callable[[], float]:
    """One thread: its CPU time, so the time a loaded machine keeps it descheduled does not count; several: the
    wall clock (their CPU times add up across threads)."""
    return time.thread_time if threads == 1 else time.perf_counter


def time_call(run: Run, x: Inputs, min_seconds: float, clock: Callable[[], float] = time.perf_counter) -> float:
    """Seconds per call on ``clock``: one warm-up, then calls until ``min_seconds`` have passed (at least 3)."""
    run(x)
    calls, start = 0, clock()
    while calls < 3 or clock() - start < min_seconds:
        run(x)
        calls += 1
    return (clock() - start) / calls


def measure(groups: dict[str, dict[str, Run]], rows: list[int], rounds: int, dtype: torch.dtype,
            min_seconds: float, clock: Callable[[], float] = time.perf_counter
            ) -> dict[str, dict[str, dict[int, list[float]]]]:
    """``{group: {candidate: {rows: [seconds per round]}}}``."""
    widths = {i for i, _ in LAYER_SHAPES} | {HEAD_SHAPE[0]}
    inputs = {m: {w: torch.randn(m, w, dtype=dtype) for w in widths} for m in rows}
    times: dict[str, dict[str, dict[int, list[float]]]] = {
        g: {c: {m: [] for m in rows} for c in cands} for g, cands in groups.items()}
    for r in range(rounds):
        for group, candidates in groups.items():
            order = list(candidates) if r % 2 == 0 else list(reversed(candidates))
            for m in rows:
                for name in order:
                    times[group][name][m].append(time_call(candidates[name], inputs[m], min_seconds, clock))
    return times


def report(times: dict[str, dict[str, dict[int, list[float]]]], baselines: dict[str, str]) -> dict:
    out: dict = {}
    for group, candidates in times.items():
        base = candidates[baselines[group]]
        print(f"\n{group}: us per call (median), ratio = torch's time / this one's")
        names = list(candidates)
        print(f"{'rows':>5}  " + "  ".join(f"{n:>28}" for n in names))
        rows_out = []
        for m in base:
            base_us = statistics.median(base[m]) * 1e6
            cells: list[str] = []
            entry: dict[str, object] = {"rows": m}
            for name in names:
                us = statistics.median(candidates[name][m]) * 1e6
                entry[name] = {"us": round(us, 1), "speedup_vs_torch": round(base_us / us, 3),
                               "rounds_us": [round(t * 1e6, 1) for t in candidates[name][m]]}
                cells.append(f"{us:>17.1f} ({base_us / us:4.2f}x)")
            print(f"{m:>5}  " + "  ".join(f"{c:>28}" for c in cells))
            rows_out.append(entry)
        out[group] = rows_out
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"rows {QUICK_ROWS}, 1 round, short timings")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the engine's CPU benches use 1)")
    parser.add_argument("--rows", type=positive_ints, default=None,
                        help=f"comma-separated row counts (default {ROWS})")
    parser.add_argument("--rounds", type=int, default=None, help="default 5 (1 with --quick)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"default {RESULTS} (with --quick: the temp directory, never the committed file)")
    args = parser.parse_args(argv)
    rows = args.rows or (QUICK_ROWS if args.quick else ROWS)
    rounds = args.rounds or (1 if args.quick else 5)
    out = args.out or (Path(tempfile.gettempdir()) / "cpu_linears_quick.json" if args.quick else RESULTS)
    if not cpu_kernels.load():
        print("kernels.cpu did not build here: nothing to compare")
        return 1
    torch.set_num_threads(args.threads)
    dtype = torch.bfloat16
    groups = {"int4 layer": int4_candidates(dtype), "int8 head": int8_head_candidates(dtype)}
    started, load_before = time.strftime("%Y-%m-%dT%H:%M:%S%z"), os.getloadavg()
    with torch.inference_mode():
        times = measure(groups, rows, rounds, dtype, min_seconds=0.02 if args.quick else 0.1,
                        clock=clock_for(args.threads))
    table = report(times, {"int4 layer": "torch int4", "int8 head": "torch int8"})
    result = {"cpu": cpu_description(), "torch": torch.__version__, "threads": args.threads, "dtype": "bfloat16",
              "clock": "thread CPU time" if args.threads == 1 else "wall",
              "rounds": rounds, "started": started, "int4_gemm_runs_here": cpu_kernels.int4_gemm_runs(),
              "amx": bool(torch.cpu._is_amx_tile_supported()),
              "load_average_1_5_15": {"start": [round(x, 2) for x in load_before],
                                      "end": [round(x, 2) for x in os.getloadavg()]},
              "results": table}
    write_results(out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
