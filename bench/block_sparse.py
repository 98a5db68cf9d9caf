"""Block-sparse attention: prefill attention time, dense against block-sparse, at long prompts on this CPU.

    python -m bench.block_sparse [--quick] [--rounds N] [--threads N] [--out bench/results/block_sparse.json]

One layer's attention op over one prompt prefilled in a single chunk (its keys and values already in the paged
cache), SmolLM2-135M's attention shapes: 9 query heads sharing 3 KV heads of 64 dims, 16-token cache blocks, float32.
The pattern is Phi-3-small's (64-token blocks, 16 local blocks, every 8th block) plus one global block (the
engine's defaults for ``block_sparse_*``). Sides, timed in alternating rounds (median kept; 3 rounds after a
warm-up at 8K, 2 at 32K):

* ``sparse``: the C++ kernel (``kernels.cpu.block_sparse_attention``) with the pattern: it reads only the visible
  key blocks;
* ``dense_same_kernel``: the same kernel with a pattern that shows every block (dense causal attention through the
  same loop): the ratio to ``sparse`` is what skipping saves, everything else equal;
* ``dense_dispatch`` (8K only): what the engine runs for a dense prefill chunk on the CPU today
  (``kernels.dispatch.paged_attention``: the torch reference, ``scaled_dot_product_attention`` with a boolean
  mask over the gathered context). At 32K its mask and gathered copies take gigabytes: left out.

``visited_fraction`` is the share of the causal (query block, key block) pairs the pattern keeps: the bound on what
skipping can save. The load average at start and end is recorded: on a shared machine compare the ratios of one
run, not absolute times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import torch

from bench.machine import cpu_description
from bench.provenance import write_results
from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern, query_blocks, visited_key_blocks

RESULTS = Path(__file__).parent / "results" / "block_sparse.json"
HEADS, KV_HEADS, HEAD_DIM, CACHE_BLOCK = 9, 3, 64, 16  # SmolLM2-135M
PATTERN = BlockSparsePattern(64, local_blocks=16, global_blocks=1, stride=8)


def prefill_batch(prompt_len: int, dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor,
                                                                                  torch.Tensor, AttentionMetadata]:
    """One prompt of ``prompt_len`` tokens in one chunk, its keys and values in scattered cache blocks."""
    g = torch.Generator().manual_seed(prompt_len)
    blocks = -(-prompt_len // CACHE_BLOCK)
    k_cache = torch.randn(blocks + 1, CACHE_BLOCK, KV_HEADS, HEAD_DIM, generator=g).to(dtype)
    v_cache = torch.randn(k_cache.shape, generator=g).to(dtype)
    table = torch.randperm(blocks + 1, generator=g)[:blocks].to(torch.int32)[None, :]
    meta = AttentionMetadata(
        query_start_loc=torch.tensor([0, prompt_len], dtype=torch.int32),
        seq_lens=torch.tensor([prompt_len], dtype=torch.int32), block_tables=table,
        slot_mapping=torch.zeros(prompt_len, dtype=torch.int64), num_decodes=0, max_query_len=prompt_len,
        max_seq_len=prompt_len, max_decode_seq_len=0)
    q = torch.randn(prompt_len, HEADS, HEAD_DIM, generator=g).to(dtype)
    return q, k_cache, v_cache, meta


def visited_fraction(pattern: BlockSparsePattern, prompt_len: int) -> float:
    kept = sum(visited_key_blocks(pattern, [prompt_len], [prompt_len])[0])
    dense = sum(qb + 1 for qb in query_blocks(prompt_len, prompt_len, pattern.block_size))
    return kept / dense


def bench_prompt(prompt_len: int, rounds: int, with_dispatch: bool, warm_up: bool = True) -> dict:
    import kernels.cpu
    from kernels import dispatch

    q, k_cache, v_cache, meta = prefill_batch(prompt_len)
    scale = HEAD_DIM**-0.5
    covering = BlockSparsePattern(PATTERN.block_size, local_blocks=-(-prompt_len // PATTERN.block_size))
    sides: dict[str, Callable[[], torch.Tensor]] = {
        "sparse": lambda: kernels.cpu.block_sparse_attention(q, k_cache, v_cache, meta, scale, PATTERN),
        "dense_same_kernel": lambda: kernels.cpu.block_sparse_attention(q, k_cache, v_cache, meta, scale, covering),
    }
    if with_dispatch:
        sides["dense_dispatch"] = lambda: dispatch.paged_attention(q, k_cache, v_cache, meta, scale)
    times: dict[str, list[float]] = {label: [] for label in sides}
    # A warm-up round (first-call allocations, not counted) where a call is short enough for it to matter.
    for round_index in range(0 if warm_up else 1, rounds + 1):
        for label, run in sides.items():
            start = time.perf_counter()
            run()
            if round_index:
                times[label].append(time.perf_counter() - start)
    medians = {label: statistics.median(t) for label, t in times.items()}
    result: dict = {"prompt_len": prompt_len, "visited_fraction": round(visited_fraction(PATTERN, prompt_len), 4)}
    for label, seconds in medians.items():
        result[f"{label}_s"] = round(seconds, 4)
    for label in medians:
        if label != "sparse":
            result[f"speedup_vs_{label}"] = round(medians[label] / medians["sparse"], 2)
    print(f"prefill {prompt_len:>6d} tokens: " + "  ".join(f"{k} {v:.3f} s" for k, v in medians.items())
          + f"  (kept {result['visited_fraction']:.1%} of the block pairs)")
    return result


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="2 rounds at 2K and 4K tokens (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    # (prompt tokens, rounds, with the dense dispatch path, warm-up round): at 32K a dense call takes a minute or
    # more on a loaded 2-core machine, so two rounds without a warm-up keep the run near three minutes of CPU.
    prompts = [(8192, args.rounds, True, True), (32768, min(args.rounds, 2), False, False)]
    if args.quick:
        prompts = [(2048, 2, True, True), (4096, 2, False, False)]
    if args.threads:
        torch.set_num_threads(args.threads)
    import kernels.cpu

    if not kernels.cpu.load():
        raise SystemExit("the C++ CPU kernels cannot be built here: nothing to measure")
    load_start = os.getloadavg()[0]
    report: dict = {"prefill": [bench_prompt(*prompt) for prompt in prompts]}
    report["shapes"] = {"heads": HEADS, "kv_heads": KV_HEADS, "head_dim": HEAD_DIM, "cache_block": CACHE_BLOCK,
                        "dtype": "float32", "model": "SmolLM2-135M attention, one layer",
                        "pattern": {"block_size": PATTERN.block_size, "local_blocks": PATTERN.local_blocks,
                                    "global_blocks": PATTERN.global_blocks, "stride": PATTERN.stride}}
    report["machine"] = {"cpu": cpu_description(), "threads": torch.get_num_threads(),
                         "load_average_start_end": [round(load_start, 2), round(os.getloadavg()[0], 2)]}
    report["settings"] = {"rounds": {n: r for n, r, _, _ in prompts}, "quick": args.quick, "device": "cpu"}
    write_results(args.out, report)
    return report


if __name__ == "__main__":
    main()
