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

Configurations (``EngineConfig`` switches, compiled as served unless ``--eager``):

* ``bf16``: bfloat16 activations and weights, no quantization;
* ``bf16+int4`` (the CPU serving setting): int4 decoder layers, int8 LM head, Warden's kernels (``kernels.cpu``);
* ``bf16+int4/torch-kernels``: the same weights through torch's kernels (``WARDEN_KERNELS=reference``);
* ``bf16+int4/int8-inputs``: ``cpu_small_batch_rows=2048``, the int8-input kernel at every row count.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import torch

from bench.engine import prompts
from bench.machine import cpu_description
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
}


def generate(settings: dict[str, Any], batch: list[list[int]], max_tokens: int, compile_model: bool) -> list[list[int]]:
    """One engine with these settings writes every prompt greedily, all at once; the engine is freed after."""
    settings = dict(settings)
    kernels = settings.pop("kernels", None)
    saved = os.environ.get("WARDEN_KERNELS")
    if kernels is not None:
        os.environ["WARDEN_KERNELS"] = kernels
    dispatch._cpu_module.cache_clear()  # the kernel choice is read once per process; re-read it for this engine
    try:
        llm = LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=512, max_num_seqs=len(batch),
                               max_num_batched_tokens=max(1024, len(batch) * 64), compile_model=compile_model,
                               **settings))
        params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
        outputs = [list(o.token_ids) for o in llm.generate(batch, params)]
    finally:
        if saved is None:
            os.environ.pop("WARDEN_KERNELS", None)
        else:
            os.environ["WARDEN_KERNELS"] = saved
        dispatch._cpu_module.cache_clear()
    del llm
    gc.collect()
    return outputs


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
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",")]
    unknown = sorted(set(chosen) - set(CONFIGURATIONS))
    if unknown:
        parser.error(f"unknown configurations {unknown}; known: {sorted(CONFIGURATIONS)}")
    if args.threads:
        torch.set_num_threads(args.threads)

    started = time.perf_counter()
    reference_llm = LLM(EngineConfig(dtype="float32", show_progress=False, compile_model=False,
                                     max_num_seqs=args.prompts, max_num_batched_tokens=max(1024, args.prompts * 64)))
    batch = prompts(reference_llm.tokenizer, args.prompts, 7)
    params = SamplingParams(max_tokens=args.max_tokens, temperature=0, ignore_eos=True)
    reference = [list(o.token_ids) for o in reference_llm.generate(batch, params)]
    del reference_llm
    gc.collect()
    results: dict[str, Any] = {}
    print(f"{'configuration':<40} {'tokens before divergence':>26} {'identical':>10}")
    for name in chosen:
        settings = CONFIGURATIONS[name]
        results[name] = score(generate(settings, batch, args.max_tokens, not args.eager), reference)
        row = results[name]
        print(f"{name:<40} {row['tokens_before_divergence']:>25.1f}% {row['identical']:>6}/{row['prompts']}",
              flush=True)
    report = {
        "results": results,
        "configurations": {name: CONFIGURATIONS[name] for name in chosen},
        "settings": {"prompts": args.prompts, "max_tokens": args.max_tokens, "compiled": not args.eager,
                     "threads": torch.get_num_threads(), "cpu": cpu_description(), "torch": torch.__version__,
                     "reference": "float32, eager", "seconds": round(time.perf_counter() - started, 1)},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
