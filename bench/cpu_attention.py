"""Warden's CPU attention kernels (``kernels/cpu/paged_attention.cpp``) on SmolLM2-135M's attention shapes, the
working tree's against another git revision's, side by side in one process.

    python -m bench.cpu_attention [--baseline REV] [--rounds 15] [--threads 1] [--int8-kv]

Shapes (9 query heads, 3 KV heads, head_dim 64, bf16 cache in 16-token blocks scattered over the pool):

- prefill: one 150-token chunk over 850 keys, and two 120-token chunks over 850 keys each (the chat-length
  chunked prefill with a cached prefix), and one 256-token chunk (the engine's chunk size) over 2048 and over 4096
  keys (the agentic trace's 2-4K-token contexts), one layer per call; reported in ms and GFLOP/s (QK^T and P.V,
  causal).
- mixed: what one layer of a mixed step attends: 8 decodes over 3000 keys each beside a 256-token chunk over 4096.
- ``--serve-decode``: only the serve trace's decode steps, 8 x 930, 1 x 930 and 8 x 2700 keys, each layer its own
  cache, reported per 30 layers.
- decode: 8 sequences x 700 tokens of context over 30 layers, each layer its own cache (130 MB in all, past the
  L3, as in a real step), reported per 30 layers; and the agentic trace's contexts, 8 x 3072 and 1 x 4096 keys, over
  as many layers' caches as take 160 MB (past the L3), reported per layer with the rate the kernel reads its key and
  value rows at (GB/s), beside the rate numpy sums the same caches at (a plain streaming read: what a memory-bound
  kernel could reach here).

``--baseline REV`` builds ``paged_attention.cpp`` as it is at REV and times it in the same rounds, alternating with the
working tree's (each built alone, its op namespace renamed): on a shared machine the drifting load falls on both
alike. ``--int8-kv`` adds an arm of the working tree's kernels over the same batches with int8 caches
(``kernels.reference.kv_int8``: 68 bytes a row where bf16 takes 128), checked against the reference on those caches.
Every cache lies on 2 MB transparent huge pages, as the engine's do (``engine.worker.huge_pages``; the scattered
blocks of a decode's rows cost a page walk each on 4 KB pages); ``--small-pages`` puts them on 4 KB pages instead.
Figures are medians over rounds of the calling thread's CPU time (wall time with --threads > 1). Both builds
are checked against the float32 torch reference first. Nothing is written: the numbers go to stdout.

``--layer-calls`` times instead what a compiled step's 30 attention calls cost beside the kernels: one decode of
300 tokens (a chat stream), each layer's store and attention called through the dispatcher as the graph's C++
wrapper calls them, by the Python ``warden::paged_attention`` and by the C++ ``warden_cpu::attend_step``, inside one
forward context each step (whose own cost is reported apart), alternating in one process.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy
import torch

import kernels.cpu
from engine.worker.huge_pages import zeros_on_huge_pages
from kernels.reference import kv_int8
from kernels.reference.paged_attention import paged_attention as reference_attention
from tests.kernels.batch import PagedBatch, make_batch

KV_HEADS, GROUP, HEAD_DIM, BLOCK = 3, 3, 64, 16
SCALE = HEAD_DIM**-0.5
LAYERS = 30
# The agentic serve trace's decode steps (bench.serve): 8 streams at its typical ~930-token contexts, one stream alone,
# and 8 at its long end.
SERVE_DECODES = ((8, 930), (1, 930), (8, 2700))


def build(revision: str | None, namespace: str) -> str:
    """``paged_attention.cpp`` (and the headers it includes) at git ``revision`` (None: as in the working tree),
    built alone with its op library renamed ``namespace``, which is returned. Alone, so a change elsewhere in
    kernels/cpu does not rebuild the other sources, and two versions load side by side."""
    from torch.utils import cpp_extension

    root = Path(__file__).resolve().parent.parent
    work = Path(tempfile.mkdtemp(prefix=f"{namespace}_"))
    for name in ("paged_attention.cpp", "widen_bf16.h"):
        text = (root / "kernels/cpu" / name).read_text() if revision is None else subprocess.run(
            ["git", "show", f"{revision}:kernels/cpu/{name}"], cwd=root, check=True, capture_output=True,
            text=True).stdout
        (work / name).write_text(text.replace("TORCH_LIBRARY(warden_cpu,", f"TORCH_LIBRARY({namespace},")
                                 .replace("TORCH_LIBRARY_IMPL(warden_cpu,", f"TORCH_LIBRARY_IMPL({namespace},"))
    digest = hashlib.sha256((work / "paged_attention.cpp").read_bytes()).hexdigest()[:12]
    cpp_extension.load(name=f"{namespace}_{digest}", sources=[str(work / "paged_attention.cpp")],
                       extra_cflags=kernels.cpu._build_flags(), extra_ldflags=["-fopenmp"], is_python_module=False,
                       verbose=False)
    return namespace


def attention(namespace: str) -> Callable[[PagedBatch], torch.Tensor]:
    """``kernels.cpu.paged_attention``'s routing with the ops of ``namespace``."""
    ops = getattr(torch.ops, namespace)

    def run(b: PagedBatch) -> torch.Tensor:
        meta = b.meta
        if meta.num_decodes == meta.num_seqs:
            return ops.decode_attention(b.q, b.k_cache, b.v_cache, meta.block_tables, meta.seq_lens, SCALE, 0, 0.0)
        out = torch.empty_like(b.q)
        nd = meta.num_decodes
        if nd:
            out[:nd] = ops.decode_attention(b.q[:nd], b.k_cache, b.v_cache, meta.block_tables, meta.seq_lens, SCALE,
                                            0, 0.0)
        ops.prefill_attention(b.q, b.k_cache, b.v_cache, meta.block_tables, meta.seq_lens, meta.query_start_loc,
                              meta.num_decodes, SCALE, out)
        return out

    return run


SMALL_PAGES = False  # --small-pages: the caches on 4 KB pages instead of the engine's 2 MB ones


def batch(decodes: list[int], prefills: list[tuple[int, int]], seed: int) -> PagedBatch:
    """A batch whose caches lie, as the engine's do, on huge pages (``engine.worker.huge_pages``)."""
    b = make_batch(decodes, prefills, kv_heads=KV_HEADS, group=GROUP, head_dim=HEAD_DIM, block_size=BLOCK,
                   dtype=torch.bfloat16, device=torch.device("cpu"), seed=seed)
    if SMALL_PAGES:
        return b
    k_cache, v_cache = (zeros_on_huge_pages(tuple(c.shape), c.dtype).copy_(c) for c in (b.k_cache, b.v_cache))
    return PagedBatch(b.q, b.key, b.value, k_cache, v_cache, b.meta)


def prefill_flops(prefills: list[tuple[int, int]]) -> float:
    """QK^T and P.V multiply-adds (2 flops each) over each query's causal context."""
    total = 0
    for q_len, seq_len in prefills:
        total += sum(seq_len - q_len + i + 1 for i in range(q_len))
    return 2 * 2 * total * KV_HEADS * GROUP * HEAD_DIM


def with_int8_caches(b: PagedBatch) -> PagedBatch:
    """``b`` with its caches quantized to int8 rows (on huge pages unless --small-pages)."""
    k_cache, v_cache = (kv_int8.quantize(c) for c in (b.k_cache, b.v_cache))
    if not SMALL_PAGES:
        k_cache, v_cache = (zeros_on_huge_pages(tuple(c.shape), c.dtype).copy_(c) for c in (k_cache, v_cache))
    return PagedBatch(b.q, b.key, b.value, k_cache, v_cache, b.meta)


def on_int8_caches(run: Callable[[PagedBatch], torch.Tensor], batches: list[PagedBatch]
                   ) -> Callable[[PagedBatch], torch.Tensor]:
    """``run`` over the int8 copy of each of ``batches`` (quantized once, before any timing)."""
    copies = {id(b): with_int8_caches(b) for b in batches}
    return lambda b: run(copies[id(b)])


def check(run: Callable[[PagedBatch], torch.Tensor], b: PagedBatch, name: str, int8: bool = False) -> None:
    """``run(b)`` against the float32 reference (``int8``: over ``b``'s caches as their int8 rows dequantize)."""
    k_cache, v_cache = b.k_cache, b.v_cache
    if int8:
        k_cache, v_cache = (kv_int8.dequantize(kv_int8.quantize(c), torch.float32) for c in (k_cache, v_cache))
    expected = reference_attention(b.q.float(), k_cache.float(), v_cache.float(), b.meta, SCALE)
    error = (run(b).float() - expected).abs().max().item()
    if error > 2e-2:
        raise SystemExit(f"{name}: max error {error:.4f} against the reference")


def time_layer_calls(rounds: int) -> None:
    """Per step of 30 layers, one decode of 300 tokens: the Python op, the C++ op and the forward context alone."""
    import engine.layers.attention  # noqa: F401  (defines warden::paged_attention)
    from engine.worker.forward_context import forward_context

    kernels.cpu.load()
    b = batch([300], [], seed=0)
    caches = [(b.k_cache.clone(), b.v_cache.clone()) for _ in range(LAYERS)]
    python_op, cpp_op = torch.ops.warden.paged_attention.default, torch.ops.warden_cpu.attend_step.default

    def step(cpp: bool) -> None:
        with forward_context(b.meta, caches):
            for layer in range(LAYERS):
                if cpp:
                    cpp_op(b.q, b.key, b.value, layer, SCALE, 0, 0.0)
                else:
                    python_op(b.q, b.key, b.value, layer, SCALE, 0, 0.0, [])

    def context_only() -> None:
        with forward_context(b.meta, caches):
            pass

    arms: dict[str, Callable[[], None]] = {"warden::paged_attention (Python)": lambda: step(False),
                                           "warden_cpu::attend_step (C++)": lambda: step(True),
                                           "forward context alone": context_only}
    times: dict[str, list[float]] = {arm: [] for arm in arms}
    for run in arms.values():
        for _ in range(50):
            run()
    for _ in range(rounds):
        for arm, run in arms.items():
            start = time.thread_time()
            for _ in range(200):
                run()
            times[arm].append((time.thread_time() - start) / 200 * 1e6)
    for arm, values in times.items():
        print(f"{arm:36s} {statistics.median(values):8.1f} us CPU per step of {LAYERS} layers")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", help="git revision whose paged_attention.cpp to time alongside")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--int8-kv", action="store_true", help="also time the working tree on int8 caches")
    parser.add_argument("--serve-decode", action="store_true",
                        help="time only the serve trace's decode steps (8 x 930, 1 x 930, 8 x 2700 keys, 30 layers)")
    parser.add_argument("--layer-calls", action="store_true",
                        help="time the compiled step's 30 attention op calls instead (Python op vs C++ op)")
    parser.add_argument("--small-pages", action="store_true",
                        help="caches on 4 KB pages (the engine's lie on 2 MB transparent huge pages)")
    args = parser.parse_args()
    global SMALL_PAGES
    SMALL_PAGES = args.small_pages
    torch.set_num_threads(args.threads)
    if args.layer_calls:
        time_layer_calls(args.rounds)
        return
    arms = {"working tree": attention(build(None, "warden_attention_tree"))}
    if args.baseline:
        arms[f"baseline {args.baseline}"] = attention(build(args.baseline, "warden_attention_baseline"))

    prefill_cases = {"prefill 150 q / 850 keys": [(150, 850)], "prefill 2 x 120 q / 850 keys": [(120, 850)] * 2,
                     "prefill 256 q / 2048 keys": [(256, 2048)], "prefill 256 q / 4096 keys": [(256, 4096)]}
    cases: dict[str, tuple[list[PagedBatch], float]] = {
        name: ([batch([], chunks, seed=1)], prefill_flops(chunks)) for name, chunks in prefill_cases.items()}
    cases["mixed 8 x 3000 + 256 q / 4096"] = ([batch([3000] * 8, [(256, 4096)], seed=2)], 0.0)
    cases["decode 8 x 700, 30 layers"] = ([batch([700] * 8, [], seed=layer) for layer in range(LAYERS)], 0.0)
    if args.serve_decode:
        cases = {f"decode {seqs} x {keys}, 30 layers":
                 ([batch([keys] * seqs, [], seed=layer) for layer in range(LAYERS)], 0.0)
                 for seqs, keys in SERVE_DECODES}
    per_layer: dict[str, int] = {}  # cases timed per layer: the bytes of key and value rows one layer reads
    for seqs, keys in ((8, 3072), (1, 4096)) if not args.serve_decode else ():
        layer_bytes = seqs * keys * KV_HEADS * HEAD_DIM * 2 * 2
        name = f"decode {seqs} x {keys}, per layer"
        cases[name] = ([batch([keys] * seqs, [], seed=layer) for layer in range(-(-160_000_000 // layer_bytes))], 0.0)
        per_layer[name] = layer_bytes
    if args.int8_kv:
        every = [b for batches, _ in cases.values() for b in batches]
        arms["working tree, int8 KV"] = on_int8_caches(arms["working tree"], every)
    for name, (batches, _) in cases.items():
        for arm, run in arms.items():
            check(run, batches[0], f"{arm}, {name}", int8=arm.endswith("int8 KV"))

    # One thread: its CPU time, so the time a loaded machine keeps it descheduled does not count (caches shared
    # with other processes still do); several: the wall clock.
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    times: dict[tuple[str, str], list[float]] = {(c, a): [] for c in cases for a in arms}
    for round_ in range(args.rounds):
        order = list(arms.items()) if round_ % 2 == 0 else list(reversed(arms.items()))
        for case, (batches, _) in cases.items():
            for arm, run in order:
                run(batches[0])  # warm
                start = clock()
                for b in batches:
                    run(b)
                times[(case, arm)].append((clock() - start) * 1e3)
    print(f"{'case':32s} {'arm':24s} {'median ms':>10s} {'GFLOP/s':>8s} {'GB/s':>6s}")
    for case, (batches, flops) in cases.items():
        for arm in arms:
            ms = statistics.median(times[(case, arm)])
            rate = f"{flops / ms / 1e6:8.1f}" if flops else ""
            bandwidth = ""
            if case in per_layer:
                ms /= len(batches)
                # int8 rows: head_dim codes and a float32 scale where bf16 takes 2 * head_dim bytes
                row_share = (HEAD_DIM + 4) / (2 * HEAD_DIM) if arm.endswith("int8 KV") else 1.0
                bandwidth = f"{per_layer[case] * row_share / ms / 1e6:6.2f}"
            print(f"{case:32s} {arm:24s} {ms:10.3f} {rate:>8s} {bandwidth:>6s}")
    for case in per_layer:
        read = streaming_read(cases[case][0], clock)
        print(f"{case:32s} {'numpy sum of the caches':24s} {'':10s} {'':8s} {read:6.2f}")


def streaming_read(batches: list[PagedBatch], clock: Callable[[], float]) -> float:
    """GB/s at which numpy sums ``batches``' bf16 caches as float32 words, median of 5: a plain streaming read."""
    words = [c.view(torch.int32).numpy().view(numpy.float32) for b in batches for c in (b.k_cache, b.v_cache)]
    total = sum(w.nbytes for w in words)
    rates = []
    with numpy.errstate(all="ignore"):  # random bits as floats: overflow and NaN are expected
        for _ in range(5):
            start = clock()
            for w in words:
                w.sum()
            rates.append(total / (clock() - start) / 1e9)
    return statistics.median(rates)


if __name__ == "__main__":
    main()
