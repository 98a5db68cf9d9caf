"""The int8 LM head per row count: the kernel the engine runs now against the ones it ran before, side by side.

    python -m bench.lm_head [--rows 1,8,32,64] [--rounds 5] [--threads 1] [--out PATH]

SmolLM2-135M's head (576 -> 49152, tied to the embeddings, 28 MB of int8): a decode step's sampling rows, up to 8x
more under speculation (the draft's verification rows). Candidates, on the same int8 weight and scales
(``engine.layers.Linear.quantize_int8``, random bf16 weights of the model's shape):

- ``lm_head two-level`` (what ``ParallelLMHead`` runs on AVX-512 VNNI CPUs): ``kernels.cpu.lm_head_linear``, the
  weight packed once for ``vpdpbusd``, each input row quantized with one scale in two levels;
- ``lm_head one-level``: the same kernel with the codes alone (half the instructions; not served: it moves greedy
  tokens, ``engine.layers.linear.HEAD_INPUT_LEVELS``);
- ``before``: what the head ran before it, ``kernels.cpu.int8_linear_up_to`` with the engine's
  ``HEAD_KERNEL_ROWS``: the grouped two-level ``vpdpwssd`` kernel up to 4 rows, ``int8_gemm_bf16`` above (on
  AVX512-BF16 CPUs).

Each round times every candidate at every row count, candidates in alternating order, so a shared machine's
drifting load falls on all alike; the table is the median over rounds, per call: one thread's CPU time (several:
the wall clock). The weight is streamed from memory at every call as in a decode step (28 MB is more than the
caches). Writes bench/results/lm_head.json unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

from bench.arguments import positive_ints
from bench.cpu_linears import HEAD_SHAPE, clock_for, quantized_layer, time_call
from bench.machine import cpu_description
from bench.provenance import write_results
from engine.worker.model_runner import HEAD_KERNEL_ROWS
from kernels import cpu as cpu_kernels

RESULTS = Path(__file__).parent / "results" / "lm_head.json"
ROWS = [1, 2, 4, 8, 16, 32, 64, 128]
BASELINE = "before"

Run = Callable[[dict[int, torch.Tensor]], None]


def candidates(dtype: torch.dtype) -> dict[str, Run]:
    head = quantized_layer(*HEAD_SHAPE, "int8", dtype)
    weight, scales = head.quant_weight, head.quant_scales
    assert weight is not None and scales is not None
    packed = cpu_kernels.lm_head_pack(weight)
    width = HEAD_SHAPE[0]

    def each(call: Callable[[torch.Tensor], torch.Tensor]) -> Run:
        def run(x: dict[int, torch.Tensor]) -> None:
            call(x[width])
        return run

    return {
        BASELINE: each(lambda x: cpu_kernels.int8_linear_up_to(x, weight, scales, HEAD_KERNEL_ROWS)),
        "lm_head two-level": each(lambda x: cpu_kernels.lm_head_linear(x, packed, scales, 2)),
        "lm_head one-level": each(lambda x: cpu_kernels.lm_head_linear(x, packed, scales, 1)),
    }


def measure(runs: dict[str, Run], rows: list[int], rounds: int, dtype: torch.dtype, min_seconds: float,
            clock: Callable[[], float]) -> dict[str, dict[int, list[float]]]:
    """``{candidate: {rows: [seconds per call, one per round]}}``."""
    inputs = {m: {HEAD_SHAPE[0]: torch.randn(m, HEAD_SHAPE[0], dtype=dtype)} for m in rows}
    times: dict[str, dict[int, list[float]]] = {name: {m: [] for m in rows} for name in runs}
    for r in range(rounds):
        order = list(runs) if r % 2 == 0 else list(reversed(runs))
        for m in rows:
            for name in order:
                times[name][m].append(time_call(runs[name], inputs[m], min_seconds, clock))
    return times


def report(times: dict[str, dict[int, list[float]]]) -> list[dict[str, object]]:
    names = list(times)
    print(f"int8 LM head {HEAD_SHAPE[0]} -> {HEAD_SHAPE[1]}: ms per call (median), speedup = {BASELINE}'s time / "
          "this one's")
    print(f"{'rows':>5}  " + "  ".join(f"{n:>26}" for n in names))
    table = []
    for m in times[BASELINE]:
        base = statistics.median(times[BASELINE][m])
        entry: dict[str, object] = {"rows": m}
        cells = []
        for name in names:
            median = statistics.median(times[name][m])
            entry[name] = {"ms": round(median * 1e3, 3), "speedup_vs_before": round(base / median, 3),
                           "rounds_ms": [round(t * 1e3, 3) for t in times[name][m]]}
            cells.append(f"{median * 1e3:>17.2f} ({base / median:4.2f}x)")
        print(f"{m:>5}  " + "  ".join(f"{c:>26}" for c in cells))
        table.append(entry)
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=positive_ints, default=ROWS, help=f"comma-separated row counts ({ROWS})")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (the engine's CPU benches use 1)")
    parser.add_argument("--min-seconds", type=float, default=0.2, help="timed calls per candidate and round")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if not cpu_kernels.load() or not cpu_kernels.lm_head_supported(HEAD_SHAPE[1], HEAD_SHAPE[0]):
        print("kernels.cpu's lm_head_linear does not run here (no build, or no AVX-512 VNNI): nothing to compare")
        return 1
    torch.set_num_threads(args.threads)
    dtype = torch.bfloat16
    started, load_before = time.strftime("%Y-%m-%dT%H:%M:%S%z"), os.getloadavg()
    with torch.inference_mode():
        times = measure(candidates(dtype), args.rows, args.rounds, dtype, args.min_seconds, clock_for(args.threads))
    result = {"cpu": cpu_description(), "torch": torch.__version__, "threads": args.threads, "dtype": "bfloat16",
              "clock": "thread CPU time" if args.threads == 1 else "wall", "rounds": args.rounds,
              "started": started, "head_kernel_rows_before": HEAD_KERNEL_ROWS,
              "int8_gemm_bf16_above_them": cpu_kernels.int8_gemm_bf16_serves(dtype, HEAD_SHAPE[1]),
              "load_average_1_5_15": {"start": [round(x, 2) for x in load_before],
                                      "end": [round(x, 2) for x in os.getloadavg()]},
              "results": report(times)}
    write_results(args.out, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
