"""Engine throughput: Warden vs HF transformers ``generate`` on the same GGUF weights, same prompts and lengths.

    python -m bench.engine [--quick] [--dtype bfloat16] [--quantization int4|int8|none] [--no-prepack]
                           [--no-compile] [--threads N] [--kv-cache-dtype auto|bfloat16|int8]

Concurrency 1 runs requests one after another; 8 and 32 submit that many at once (Warden: continuous
batching; HF: one left-padded batch). Every request generates exactly ``--max-tokens`` tokens (EOS ignored),
so both sides do the same work. Output tok/s = generated tokens / wall time. Writes bench/results/engine.json.

Warden's CPU serving switches (``engine.layers.linear``): ``--quantization int4`` (the default: decoder layers
int4, LM head int8, for steps of at most 4 rows) and oneDNN-prepacked bf16 weights for larger batches
(``--no-prepack`` turns them off), and the decoder compiled by inductor (``engine.worker.compilation``; ``--no-compile``
runs it eagerly). Compiling happens while the engine starts, outside the timed rounds, and is reported apart
(``compile_s``): minutes the first time on a machine, seconds once inductor's disk cache holds the code.
On a shared 2-core machine two torch threads stall each other whenever another process holds a core:
compare ``--threads 1`` and ``--threads 2`` and read the recorded load average.

``--compare-small-batch-rows 32,64`` adds a Warden engine per value with ``EngineConfig.cpu_small_batch_rows`` set
to it (which int4 kernel serves steps of 9..N tokens: kernels.cpu's int8-input kernel or the one above it on this
CPU), measured in the same alternation as the others and reported as ratios to the default engine.

``--kv-cache-dtype`` sets what Warden's KV cache stores (``EngineConfig.kv_cache_dtype``: ``auto``, the serving dtype;
``bfloat16``; ``int8``, codes with a per-row scale), so an int8 cache can be A/B'd end to end against the same
command without it.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

from bench.arguments import positive_ints
from bench.machine import cpu_description
from bench.provenance import write_results
from engine.config import EngineConfig
from engine.llm import LLM
from engine.loader.source import default_gguf_path
from engine.sampling_params import SamplingParams

RESULTS = Path(__file__).parent / "results" / "engine.json"
QUESTIONS = [
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "Explain why the sky is blue.",
    "Give me three tips for learning a new language.",
    "What is a prime number?",
    "Summarize the plot of Romeo and Juliet in two sentences.",
    "How do vaccines work?",
    "Write a short poem about autumn leaves.",
    "What are the benefits of regular exercise?",
    "Describe how a bicycle works.",
    "What is machine learning?",
    "Suggest a name for a friendly robot.",
    "Why do cats purr?",
    "Explain photosynthesis to a child.",
    "What should I pack for a weekend hiking trip?",
    "How does a rainbow form?",
]


def prompts(tokenizer, n: int, round_: int = 0) -> list[list[int]]:
    """``n`` chat prompts; each round asks different ones, so Warden's prefix cache never holds a whole prompt
    from an earlier round (only the shared chat-template preamble is reused, as in real serving)."""
    out = []
    for i in range(n):
        variant = round_ * n + i // len(QUESTIONS)
        q = QUESTIONS[i % len(QUESTIONS)] + (f" (variant {variant})" if variant else "")
        out.append(tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": q}])))
    return out


Runner = Callable[[list[list[int]]], int]  # generates for one batch of prompts, returns tokens generated


def warden_runner(llm: LLM, max_tokens: int) -> Runner:
    params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
    llm.generate(prompts(llm.tokenizer, 2), SamplingParams(max_tokens=4, temperature=0))  # warm-up

    def run(batch: list[list[int]]) -> int:
        return sum(len(r.token_ids) for r in llm.generate(batch, params))

    return run


def hf_runner(max_tokens: int, tokenizer) -> Runner:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoModelForCausalLM

    path = default_gguf_path()
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32).eval()
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 2

    def run(batch: list[list[int]]) -> int:
        width = max(map(len, batch))
        ids = torch.tensor([[pad] * (width - len(p)) + p for p in batch])
        mask = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in batch])
        with torch.inference_mode():
            out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_tokens,
                                 min_new_tokens=max_tokens, do_sample=False, pad_token_id=pad)
        return (out.shape[1] - width) * len(batch)

    run(prompts(tokenizer, 1))  # warm-up
    return run


def measure(run: Runner, ps: list[list[int]], concurrency: int) -> float:
    """Output tok/s of ``ps`` submitted ``concurrency`` at a time."""
    start = time.perf_counter()
    generated = sum(run(ps[i : i + concurrency]) for i in range(0, len(ps), concurrency))
    return generated / (time.perf_counter() - start)


def bench(runners: dict[str, Runner], batches: dict[str, tuple[int, int]], tokenizer,
          repeat: int) -> dict[str, dict[str, list[float]]]:
    """tok/s per side and concurrency, each measured ``repeat`` times. The sides alternate at every
    concurrency of every round, so load from other processes falls on both alike, and their order rotates by
    round: a side that always ran right after HF's float32 model found its weights flushed from L3 (the first
    variant run read c=1 1.17x the default engine on identical one-row steps)."""
    samples: dict[str, dict[str, list[float]]] = {side: {name: [] for name in batches} for side in runners}
    sides = list(runners)
    for round_ in range(repeat):
        order = sides[round_ % len(sides):] + sides[:round_ % len(sides)]
        for name, (concurrency, total) in batches.items():
            ps = prompts(tokenizer, total, round_ + 1)
            for side in order:
                run = runners[side]
                samples[side][name].append(measure(run, ps, concurrency))
                print(f"  round {round_ + 1} {side:<6} {name}: {samples[side][name][-1]:8.1f} tok/s", flush=True)
    return samples


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer requests and tokens, 3 rounds")
    parser.add_argument("--dtype", default="bfloat16", help="Warden's serving dtype (HF runs float32)")
    parser.add_argument("--quantization", default="int4",
                        help="weight-only 'int4' (layers; int8 head) or 'int8' for small batches, or 'none'")
    parser.add_argument("--no-prepack", action="store_true", help="plain F.linear instead of prepacked weights")
    parser.add_argument("--no-compile", action="store_true", help="run the decoder eagerly (no torch.compile)")
    parser.add_argument("--no-prefix-caching", action="store_true",
                        help="recompute every prompt (the chat template's shared preamble too), as HF does")
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads (default: torch's)")
    parser.add_argument("--skip-hf", action="store_true")
    parser.add_argument("--repeat", type=int, default=None,
                        help="rounds per concurrency, median reported (default: 3 with --quick, else 1)")
    parser.add_argument("--compare-small-batch-rows", type=positive_ints, default=[],
                        help="comma-separated cpu_small_batch_rows values to run as extra Warden engines")
    parser.add_argument("--kv-cache-dtype", choices=("auto", "bfloat16", "int8"), default="auto",
                        help="what Warden's KV cache stores (EngineConfig.kv_cache_dtype)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    max_tokens = args.max_tokens or (32 if args.quick else 128)
    args.repeat = args.repeat or (3 if args.quick else 1)
    if args.threads:
        torch.set_num_threads(args.threads)
    load_before = os.getloadavg()[0]
    # name -> (concurrency, number of requests)
    batches = {"c1": (1, 2 if args.quick else 8), "c8": (8, 8 if args.quick else 32),
               "c32": (32, 32 if args.quick else 64)}
    quant = None if args.quantization in ("none", "") else args.quantization
    config = EngineConfig(dtype=args.dtype, quantization=quant, show_progress=False, kv_cache_memory_mb=512,
                          max_num_seqs=64, max_num_batched_tokens=2048, cpu_prepack=not args.no_prepack,
                          enable_prefix_caching=not args.no_prefix_caching, compile_model=not args.no_compile,
                          kv_cache_dtype=args.kv_cache_dtype)
    print(f"threads={torch.get_num_threads()} max_tokens={max_tokens} warden dtype={args.dtype} quant={quant} "
          f"prepack={config.cpu_prepack} compile={config.compile_model} kv_cache_dtype={config.kv_cache_dtype}")
    started = time.perf_counter()
    llm = LLM(config)
    compiled = llm.engine.runner.compiled
    compile_s = round(compiled.compile_seconds, 1) if compiled else None
    print(f"engine started in {time.perf_counter() - started:.1f} s (compiling: {compile_s} s)")
    runners = {"warden": warden_runner(llm, max_tokens)}
    variants = {f"warden-rows{rows}": LLM(dataclasses.replace(config, cpu_small_batch_rows=rows))
                for rows in args.compare_small_batch_rows}
    runners |= {name: warden_runner(variant, max_tokens) for name, variant in variants.items()}
    if not args.skip_hf:
        runners["hf"] = hf_runner(max_tokens, llm.tokenizer)
    samples = bench(runners, batches, llm.tokenizer, args.repeat)
    medians = {side: {name: statistics.median(v) for name, v in per.items()} for side, per in samples.items()}
    warden, hf = medians["warden"], medians.get("hf", {})
    del llm, variants

    print(f"\nmedian of {args.repeat} round(s)")
    print(f"{'concurrency':<12}{'warden tok/s':>14}{'hf tok/s':>12}{'speed-up':>10}")
    for name in batches:
        h = hf.get(name)
        ratio = f"{warden[name] / h:9.2f}x" if h else "        -"
        print(f"{name:<12}{warden[name]:>14.1f}{(h or 0):>12.1f}{ratio}")
    variant_ratios = {side: {name: round(medians[side][name] / warden[name], 3) for name in batches}
                      for side in runners if side.startswith("warden-rows")}
    for side, ratios in variant_ratios.items():
        print(f"{side} / warden: " + ", ".join(f"{name} {r:.2f}x" for name, r in ratios.items()))
    report = {
        "warden": {k: round(v, 1) for k, v in warden.items()},
        "hf": {k: round(v, 1) for k, v in hf.items()},
        "variants": {side: {k: round(v, 1) for k, v in medians[side].items()} for side in variant_ratios},
        "variants_over_warden": variant_ratios,
        "rounds": {side: {k: [round(x, 1) for x in v] for k, v in per.items()} for side, per in samples.items()},
        "settings": {"quick": args.quick, "max_tokens": max_tokens, "requests": batches,
                     "repeat": args.repeat, "warden_dtype": args.dtype, "warden_quantization": quant,
                     "warden_cpu_prepack": config.cpu_prepack, "warden_compile": config.compile_model,
                     "warden_compile_s": compile_s,
                     "warden_prefix_caching": config.enable_prefix_caching,
                     "warden_kv_cache_dtype": config.kv_cache_dtype, "hf_dtype": "float32",
                     "model": default_gguf_path().name, "threads": torch.get_num_threads(),
                     "cpu": cpu_description(), "torch": torch.__version__,
                     # other work on the machine skews CPU numbers badly (OpenMP threads wait on each other)
                     "load_average_start_end": [round(load_before, 2), round(os.getloadavg()[0], 2)]},
    }
    write_results(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
