"""Sliding-window attention: the windowed families against transformers, and what skipping the blocks outside the
window saves.

    python -m bench.sliding_window [--quick] [--rounds N] [--threads N] [--out bench/results/sliding_window.json]

Three parts, float32 on the CPU unless named otherwise:

* ``families``: Mistral, Gemma 2 and Gemma 3 tiny random checkpoints, ``bench.families``' method (prefill and
  decode tokens/s of Warden's engine against transformers on the same weights, rounds alternated, medians; decode
  time = time(N tokens) - time(1 token)), with transformers' one-token run computing the last position's logits
  only, as its ``generate`` and Warden do (all positions' logits through a 49k vocabulary, soft-capped for Gemma 2,
  cost more than the whole prefill inside ``generate`` and made the decode time negative).
* ``decode_kernel``: one decode attention call (4 sequences, SmolLM2's heads: 9 query / 3 KV heads of 64 dims,
  16-token blocks) at growing contexts, window 256 against global attention, for the torch reference and the C++
  kernel (float32 and bfloat16): windowed, the cost stays flat as the context grows because the blocks before the
  window are never read.
* ``long_context``: a tiny Mistral engine decoding after a long prompt, the same weights with a window of 128 and
  without one (decode tokens/s, and the KV blocks the sequence holds at the end: released blocks go back to the
  pool).

Rounds alternate the compared sides and keep the median; the load average at start and end is recorded (on a shared
machine compare the ratios, not the absolute rates; ``--threads 1`` keeps OpenMP's barriers, which stall when other
processes hold the cores, out of the figures).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch

from bench.machine import cpu_description
from bench.provenance import write_results

RESULTS = Path(__file__).parent / "results" / "sliding_window.json"
WINDOWED_FAMILIES = ("mistral", "gemma2", "gemma3_text")


def bench_families(args: argparse.Namespace) -> dict:
    return {name: bench_family(name, args) for name in WINDOWED_FAMILIES}


def bench_family(name: str, args: argparse.Namespace) -> dict:
    from bench.families import Sides
    from tests.engine.tiny_models import write_tiny_checkpoint

    class LastLogitSides(Sides):
        @torch.inference_mode()
        def transformers(self, prompts: torch.Tensor, new_tokens: int) -> None:
            if new_tokens == 1:
                self.hf(prompts, logits_to_keep=1)
            else:
                super().transformers(prompts, new_tokens)

    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
        sides = LastLogitSides(write_tiny_checkpoint(Path(tmp) / name, architecture=name), args.batch,
                               args.prompt_len)
        runs = {"warden": sides.warden, "transformers": sides.transformers}
        for run in runs.values():
            run(sides.prompts(), 2)  # warm-up: first-call allocations, lazy imports
        times: dict[str, dict[int, list[float]]] = {label: {1: [], args.decode_tokens: []} for label in runs}
        for _ in range(args.rounds):
            for label, run in runs.items():
                for tokens in (1, args.decode_tokens):
                    prompts = sides.prompts()
                    start = time.perf_counter()
                    run(prompts, tokens)
                    times[label][tokens].append(time.perf_counter() - start)
        sides.llm.close()
    result: dict = {"architecture": name}
    for label, t in times.items():
        one, many = statistics.median(t[1]), statistics.median(t[args.decode_tokens])
        result[label] = {"prefill_tok_s": round(args.batch * args.prompt_len / one, 1),
                         "decode_tok_s": round(args.batch * (args.decode_tokens - 1) / max(many - one, 1e-9), 1),
                         "prefill_s": round(one, 4), "generate_s": round(many, 4)}
    for metric in ("prefill_tok_s", "decode_tok_s"):
        result[f"{metric}_ratio"] = round(result["warden"][metric] / result["transformers"][metric], 2)
    return result


def _decode_batch(context: int, dtype: torch.dtype, batch: int = 4, block_size: int = 16):
    from kernels.attention_metadata import AttentionMetadata

    heads, kv_heads, head_dim = 9, 3, 64
    blocks_per_seq = -(-context // block_size)
    g = torch.Generator().manual_seed(context)
    k_cache = torch.randn(batch * blocks_per_seq + 1, block_size, kv_heads, head_dim, generator=g).to(dtype)
    v_cache = torch.randn(k_cache.shape, generator=g).to(dtype)
    tables = torch.randperm(batch * blocks_per_seq, generator=g).view(batch, blocks_per_seq).to(torch.int32)
    meta = AttentionMetadata(
        query_start_loc=torch.arange(batch + 1, dtype=torch.int32), seq_lens=torch.full((batch,), context,
                                                                                         dtype=torch.int32),
        block_tables=tables, slot_mapping=torch.zeros(batch, dtype=torch.int64), num_decodes=batch,
        max_query_len=1, max_seq_len=context, max_decode_seq_len=context)
    q = torch.randn(batch, heads, head_dim, generator=g).to(dtype)
    return q, k_cache, v_cache, meta


def _median_us(fn, calls: int, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def bench_decode_kernel(contexts: list[int], window: int, rounds: int) -> list[dict]:
    import kernels.cpu
    from kernels.reference.paged_attention import paged_attention as reference

    backends = [("reference", torch.float32, reference)]
    if kernels.cpu.load():
        backends += [("cpu", torch.float32, kernels.cpu.paged_attention),
                     ("cpu", torch.bfloat16, kernels.cpu.paged_attention)]
    rows = []
    for name, dtype, attend in backends:
        for context in contexts:
            q, k_cache, v_cache, meta = _decode_batch(context, dtype)
            calls = max(5, 40_000 // context)
            inputs = (q, k_cache, v_cache, meta, 0.125)
            sides = {"global": lambda f=attend, a=inputs: f(*a),
                     "windowed": lambda f=attend, a=inputs: f(*a, window)}
            for fn in sides.values():
                fn()
            us: dict[str, list[float]] = {k: [] for k in sides}
            for _ in range(rounds):
                for label, fn in sides.items():
                    us[label].append(_median_us(fn, calls, 1))
            global_us, windowed_us = statistics.median(us["global"]), statistics.median(us["windowed"])
            rows.append({"backend": name, "dtype": str(dtype).removeprefix("torch."), "context": context,
                         "window": window, "global_us": round(global_us, 1), "windowed_us": round(windowed_us, 1),
                         "speedup": round(global_us / windowed_us, 2)})
            print(f"decode kernel {name:9s} {rows[-1]['dtype']:8s} context {context:>6d}: global {global_us:>9.1f} us"
                  f"  window {window}: {windowed_us:>8.1f} us ({rows[-1]['speedup']}x)")
    return rows


def bench_long_context(prompt_len: int, decode_tokens: int, window: int, rounds: int) -> dict:
    from engine.config import EngineConfig
    from engine.llm import LLM
    from engine.sampling_params import SamplingParams
    from tests.engine.tiny_models import write_tiny_checkpoint

    result: dict = {"prompt_len": prompt_len, "decode_tokens": decode_tokens, "window": window}
    with tempfile.TemporaryDirectory(prefix="bench-swa-") as tmp:
        engines = {}
        for label, sliding_window in (("windowed", window), ("global", None)):
            directory = write_tiny_checkpoint(Path(tmp) / label, architecture="mistral",
                                              sliding_window=sliding_window, max_position_embeddings=8192)
            engines[label] = LLM(EngineConfig(model=str(directory), show_progress=False, enable_prefix_caching=False,
                                              max_num_batched_tokens=2048, kv_cache_memory_mb=64))
        g = torch.Generator().manual_seed(0)
        times: dict[str, dict[str, list[float]]] = {k: {"one": [], "many": []} for k in engines}
        for round_index in range(rounds + 1):  # round 0 warms up
            for label, llm in engines.items():
                for key, tokens in (("one", 1), ("many", decode_tokens)):
                    prompt = torch.randint(100, 40_000, (prompt_len,), generator=g).tolist()
                    start = time.perf_counter()
                    llm.generate([prompt], SamplingParams(max_tokens=tokens, temperature=0, ignore_eos=True))
                    if round_index:
                        times[label][key].append(time.perf_counter() - start)
        for label, t in times.items():
            decode_s = statistics.median(t["many"]) - statistics.median(t["one"])
            result[label] = {"decode_tok_s": round((decode_tokens - 1) / max(decode_s, 1e-9), 1),
                             "blocks_released": engines[label].engine.block_manager.num_released}
        result["decode_speedup"] = round(result["windowed"]["decode_tok_s"] / result["global"]["decode_tok_s"], 2)
        for llm in engines.values():
            llm.close()
    print(f"long context {prompt_len} tokens: decode window {window} {result['windowed']['decode_tok_s']} tok/s, "
          f"global {result['global']['decode_tok_s']} tok/s ({result['decode_speedup']}x)")
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--prompt-len", type=int, default=128)
    parser.add_argument("--decode-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="2 rounds, small shapes (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    contexts, long_prompt, window = [512, 2048, 8192], 2048, 256
    if args.quick:
        args.rounds, args.prompt_len, args.decode_tokens, args.batch = 2, 16, 4, 2
        contexts, long_prompt = [512, 2048], 512
    if args.threads:
        torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    load_start = os.getloadavg()[0]
    report = {
        "families": bench_families(args),
        "decode_kernel": bench_decode_kernel(contexts, window, args.rounds),
        "long_context": bench_long_context(long_prompt, args.decode_tokens, 128, args.rounds),
    }
    for name, result in report["families"].items():
        print(f"{name:8s} " + "  ".join(
            f"{metric} warden {result['warden'][metric]:>9.1f} transformers {result['transformers'][metric]:>9.1f} "
            f"({result[metric + '_ratio']}x)" for metric in ("prefill_tok_s", "decode_tok_s")))
    report["machine"] = {"cpu": cpu_description(), "threads": torch.get_num_threads(),
                         "load_average_start_end": [round(load_start, 2), round(os.getloadavg()[0], 2)]}
    report["settings"] = {"rounds": args.rounds, "batch": args.batch, "prompt_len": args.prompt_len,
                          "decode_tokens": args.decode_tokens, "quick": args.quick, "dtype": "float32",
                          "device": "cpu"}
    write_results(args.out, report)
    return report


if __name__ == "__main__":
    main()
