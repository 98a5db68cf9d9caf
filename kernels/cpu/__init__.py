"""C++ kernels for CPUs, built on this machine the first time they are loaded (``torch.utils.cpp_extension``,
``-O3 -march=native``; the build is cached under torch's extension directory, so later starts only load it;
``make install`` builds it ahead of the first start: ``kernels.cpu.build``).
``kernels.dispatch`` picks each for CPU tensors once ``load()`` has succeeded; each has the signature of the torch
op or reference it replaces. The figures behind each choice are in docs/benchmarks.md ("CPU linears", "Agreement
with float32", "Engine on CPU").

Decode attention (``paged_attention.cpp``): the reference gathers each sequence's keys and values into a padded copy
and runs ``scaled_dot_product_attention``; this reads the cache blocks in place, one task per (sequence, kv head).
With bfloat16 caches on AVX512-BF16 CPUs a task takes all kv heads of its sequence while there are at least as many
sequences as threads (each tile's cache rows read whole), and both products run on ``vdpbf16ps``: keys dotted
straight from bfloat16, 16 tokens' scores at a time; the probabilities rounded to bfloat16 weigh two value rows per
instruction. Short queries (draft verification, forced tokens, small chunks) run as one decode row per sequence whose
tokens are extra query heads (each token's probabilities cut at its own position), elsewhere one decode row per
token; longer prefill chunks run ``prefill_attention`` (bfloat16 on AVX512-BF16, no window or soft-cap; elsewhere the
reference path).
Block-sparse attention (``block_sparse_attention.cpp``, ``kernels.block_sparse``) runs every query of a batch, one
task per (sequence, query block, kv head), over only the key blocks its pattern shows (two small GEMMs per block).
An int8 KV cache (``kernels.reference.kv_int8``: per row int8 codes and a float32 scale;
``EngineConfig.kv_cache_dtype``) takes the same paths on AVX512-BF16 CPUs: the decode kernel widens the codes to
float32 in registers and applies each row's scale to its score and its probability; the prefill kernel dequantizes
each row to bfloat16 as it lays the chunk's keys and values out; the store quantizes. Elsewhere int8 caches attend
through the reference.
``store_kvcache`` writes a layer's keys and values in one call, instead of the reference's views, casts and two
``index_copy_``, whose dispatch cost dominates at one sequence.
The compiled decoder's attention layers call ``attend_step``: the store and the attention above in one C++ op, from
the step's metadata and every layer's caches that ``set_attention_step`` hands over once per step, so the graph's
C++ wrapper reaches the kernels without Python (about 10 us CPU per layer call, 30 a step: ``python -m
bench.cpu_attention --layer-calls``).

Weight-only int4 and int8 linears for few rows (``int4_linear.cpp``, ``int8_linear.cpp``): the signatures and
weights of ``torch._weight_int4pack_mm_for_cpu`` and ``torch._weight_int8pack_mm``, which convert every weight to
float (compute-bound at one row); here each input row is quantized to int8 per group (``quantize_input.h``) and the
weights are dotted with AVX-512 VNNI, each weight vector once per tile of rows (M rows read the weights once, and
every row is bitwise what it gets alone). On AVX512-VBMI CPUs the int4 kernel gathers each output row's codes into
one lane with ``vpermt2b`` (tiles of 8 rows, no reduction per group) where elsewhere it regroups them with unpacks
(tiles of 4): bitwise the same results, the regrouping kernel kept as ``int4_linear_regrouped`` for the tests. The
int4 one-row linear takes its input in two levels (``int4_linear_two_level``: the int8 codes, then their rounding
errors as a second row of the tile), as accurate as torch's float-input kernel; the int8 linear always does.
``int4_linear_up_to`` and ``int8_linear_up_to`` pick the kernel or, above its rows, a GEMM per call, for the
compiled engine's graph of 2+ tokens. Without AVX-512 VNNI both run AVX2 builds of the same kernels
(``int4_linear_avx2.cpp``; ``int8_linear.cpp``'s AVX2 path, bitwise the AVX-512 one's results); where the CPU lacks
AVX2, FMA and F16C too, they report unsupported and torch's ops serve.

The GEMMs above the small-batch rows keep the inputs unquantized (torch's accuracy): on AVX512-BF16 CPUs (Zen 4/5,
Cooper Lake and later Xeons) bfloat16 inputs take ``int4_gemm_bf16`` and ``int8_gemm_bf16`` (``int4_gemm_bf16.cpp``,
``int8_gemm_bf16.cpp``; what the small-batch files' ``*_up_to`` need of them is declared in ``cpu_linears.h``), each
weight block converted once per call to bf16 codes (exact, by shifts; the int4 offset taken out with the input sums)
and dotted by ``vdpbf16ps``; it overtakes the regrouping one-level small-batch kernel from 3 rows, so there the
engine's small-batch bound is 2 (the permuting kernel is faster than the GEMM up to ~16 rows, but its int8 inputs
cost agreement with float32: ``bench.agreement``, ``bf16+int4/int8-inputs``). On AVX512-VBMI CPUs a masked
``vpermb`` joins each k pair's codes from one load. On AVX2-only CPUs ``int4_gemm_avx2.cpp`` dequantizes each weight
block to float32 once per call and multiplies it with the float inputs in 6x16 FMA register tiles.

Greedy sampling's argmax over float32 logit rows (``argmax.cpp``): torch's max-with-index reduction compares one
element at a time; 16-lane AVX-512 compares with four accumulators read the rows at cache bandwidth, with torch's
indices (first of ties, first NaN).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import platform
import shutil
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import torch

from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern
from kernels.reference import paged_attention as _reference

log = logging.getLogger(__name__)
# The translation units of the build, one object file each (kernels.cpu.build counts them to report progress).
SOURCES = [str(Path(__file__).with_name(name))
           for name in ("paged_attention.cpp", "int4_linear.cpp", "int4_linear_avx2.cpp", "int4_gemm_avx2.cpp",
                        "int4_gemm_bf16.cpp", "int8_linear.cpp", "int8_gemm_bf16.cpp", "argmax.cpp",
                        "block_sparse_attention.cpp", "lm_head.cpp")]


def _build_flags() -> list[str]:
    # ATen's vector types compile to the ISA named here (as inductor's generated code does).
    capability = torch.backends.cpu.get_cpu_capability()
    isa = [f"-DCPU_CAPABILITY={capability}", f"-DCPU_CAPABILITY_{capability}"] if capability in (
        "AVX512", "AVX2") else []
    return ["-O3", "-march=native", "-fopenmp", *isa]


@cache
def library_name() -> str:
    """The build's name: ``warden_cpu_kernels_`` and a digest of the sources, headers, flags and where they live.
    Each set of sources builds into its own directory, so two checkouts of different versions on one machine (or a
    branch switch and back) each keep their library instead of rebuilding over the other's on every start. The
    sources' and torch's directories are digested too: torch's build.ninja names both by absolute path, so two
    checkouts of the same version sharing one directory would rewrite it in turn and rebuild for minutes each."""
    digest = hashlib.sha256()
    digest.update(str(Path(__file__).parent.resolve()).encode() + b"\0")
    digest.update(str(Path(torch.__file__).parent.resolve()).encode() + b"\0")
    for path in sorted(Path(__file__).parent.glob("*.[ch]*")):  # the .cpp sources and the .h headers they include
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(" ".join(_build_flags()).encode())
    digest.update(torch.__version__.encode())
    digest.update(_cpu_features())
    return f"warden_cpu_kernels_{digest.hexdigest()[:16]}"


def _cpu_features() -> bytes:
    """This CPU's feature flags. ``-march=native`` builds for the CPU it runs on, so a build directory shared between
    machines (a volume mounted by pods on different nodes) must never hand one CPU's library to another."""
    try:
        with open("/proc/cpuinfo", "rb") as cpuinfo:
            for line in cpuinfo:
                if line.startswith(b"flags"):
                    return line
    except OSError:
        pass
    return platform.processor().encode() or platform.machine().encode()


def build_directory() -> Path:
    """Where torch's extension builder keeps this build (under ``TORCH_EXTENSIONS_DIR``); created if missing."""
    from torch.utils import cpp_extension

    # The builder's own rule for the directory (root, python and device tag, name), so the two never disagree.
    return Path(cpp_extension._get_build_directory(library_name(), verbose=False))


@contextlib.contextmanager
def _exclusive_build(directory: Path) -> Iterator[None]:
    """Hold the build for this process. torch's builder marks a build in progress with a ``lock`` file and waits,
    without a bound, for it to disappear; a build killed midway (Ctrl-C on a first start, a pod stopped during its
    compile) leaves that file behind, and every later start would hang on it. The ``flock`` taken here is released by
    the kernel when its holder dies, so whoever holds it knows no live Warden process is building: a ``lock`` file
    left then is stale and is removed before the builder looks."""
    with open(directory.parent / f"{directory.name}.flock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            (directory / "lock").unlink(missing_ok=True)
            yield
        finally:
            fcntl.flock(held, fcntl.LOCK_UN)


def adopt_build(source: Path) -> bool:
    """Copy a finished build of these sources (``source``: its directory under another extensions root) into this
    process's extensions root, modification times kept so the builder finds nothing to do: a first start under a
    new compile cache then loads in seconds what this machine has already built, instead of building for minutes.
    True if copied; False where this root has the build already or ``source`` holds none."""
    target = build_directory()
    library = f"{library_name()}.so"
    if target == source or (target / library).is_file() or not (source / library).is_file():
        return False
    with _exclusive_build(target):
        if (target / library).is_file():  # another process copied or built it meanwhile
            return False
        shutil.copytree(source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("lock"))
    return True


@cache  # a process loads the library once (a second load would re-register the warden_cpu namespace)
def load() -> bool:
    """Build (first time) and load the kernels; False, with a warning, where no C++ toolchain can build them."""
    from torch.utils import cpp_extension

    try:
        directory = build_directory()
        with _exclusive_build(directory):
            cpp_extension.load(name=library_name(), sources=SOURCES, is_python_module=False,
                               extra_cflags=_build_flags(), build_directory=str(directory), verbose=False)
    except (OSError, RuntimeError, ImportError) as exc:  # no compiler, headers, or a failed build
        log.warning("CPU C++ kernels unavailable, using the torch reference: %s", exc)
        return False
    # The compiled decoder traces the one-row linears: their output shapes without running them.
    torch.library.register_fake("warden_cpu::int4_linear")(_int4_linear_shape)
    torch.library.register_fake("warden_cpu::int4_linear_two_level")(_int4_linear_shape)
    torch.library.register_fake("warden_cpu::int4_linear_up_to")(_int4_linear_up_to_shape)
    torch.library.register_fake("warden_cpu::int8_linear")(_int8_linear_shape)
    torch.library.register_fake("warden_cpu::int8_linear_up_to")(_int8_linear_up_to_shape)
    torch.library.register_fake("warden_cpu::lm_head_linear")(_lm_head_linear_shape)
    torch.library.register_fake("warden_cpu::argmax")(_argmax_shape)
    torch.library.register_fake("warden_cpu::attend_step")(_attend_step_shape)
    return True


def _attend_step_shape(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int, scale: float, window: int = 0,
                       softcap: float = 0.0) -> torch.Tensor:
    return torch.empty_like(q)


def _int4_linear_shape(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
    return x.new_empty(x.shape[0], packed.shape[0])


def _int4_linear_up_to_shape(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor,
                             kernel_rows: int) -> torch.Tensor:
    return x.new_empty(x.shape[0], packed.shape[0])


def _int8_linear_shape(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    return x.new_empty(x.shape[0], weight.shape[0])


def _int8_linear_up_to_shape(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor,
                             kernel_rows: int) -> torch.Tensor:
    return x.new_empty(x.shape[0], weight.shape[0])


def _lm_head_linear_shape(x: torch.Tensor, packed: torch.Tensor, scales: torch.Tensor, levels: int) -> torch.Tensor:
    return x.new_empty(x.shape[0], scales.shape[0])


def _argmax_shape(x: torch.Tensor, portable: bool = False) -> torch.Tensor:
    return x.new_empty(x.shape[0], dtype=torch.long)


def int4_linear(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
    """``x @ W.T`` for int4 weights in ``torch._weight_int4pack_mm_for_cpu``'s packing, with the input quantized to
    int8 per group (as llama.cpp's Q8 activations); for one or a few rows."""
    return torch.ops.warden_cpu.int4_linear(x, packed, group, scales_zeros)


def int4_linear_two_level(x: torch.Tensor, packed: torch.Tensor, group: int,
                          scales_zeros: torch.Tensor) -> torch.Tensor:
    """``int4_linear`` with each input quantized in two levels (the int8 code, then its rounding error in 254 steps:
    ~15 bits relative to the group's largest input, finer than bfloat16), as two rows of the kernel's tile: for one
    row, where the weight stream hides the second row's dots and one level's rounding costs agreement with float32
    (``bench.agreement``)."""
    return torch.ops.warden_cpu.int4_linear_two_level(x, packed, group, scales_zeros)


def int4_linear_up_to(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor,
                      kernel_rows: int) -> torch.Tensor:
    """``int4_linear`` for inputs of at most ``kernel_rows`` rows; for more ``int4_gemm_avx2`` where
    ``int4_gemm_runs()``, else ``torch._weight_int4pack_mm_for_cpu``; chosen per call inside one opaque op (a
    compiled graph's symbolic row count is never compared in Python)."""
    return torch.ops.warden_cpu.int4_linear_up_to(x, packed, group, scales_zeros, kernel_rows)


def int4_gemm_runs() -> bool:
    """Whether ``int4_linear_up_to`` runs the AVX2 float32 GEMM (``int4_gemm_avx2.cpp``: the unquantized inputs
    times the dequantized weights, torch's math, faster than its AVX2 kernel) above its kernel rows, rather
    than torch's kernel (CPUs with the AVX-512 one). Call after ``load()`` succeeded."""
    return bool(torch.ops.warden_cpu.int4_gemm_runs())


def int4_gemm_avx2(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
    """``x @ W.T`` for int4 weights in torch's CPU packing with ``x`` kept in float32 (no input quantization),
    each weight dequantized once per call: for many rows (prefill chunks, large decode batches)."""
    return torch.ops.warden_cpu.int4_gemm_avx2(x, packed, group, scales_zeros)


def int4_gemm_bf16_runs() -> bool:
    """Whether ``int4_gemm_bf16`` runs here (AVX512-BF16, torch's 64-row packing). Call after ``load()`` succeeded."""
    return bool(torch.ops.warden_cpu.int4_gemm_bf16_runs())


def int4_gemm_bf16_serves(dtype: torch.dtype) -> bool:
    """Whether ``int4_linear_up_to`` runs ``int4_gemm_bf16`` above its kernel rows for inputs of ``dtype`` (built
    and bfloat16): the C++ op's own rule, asked rather than restated."""
    return bool(torch.ops.warden_cpu.int4_gemm_bf16_serves(dtype))


def int4_gemm_bf16(x: torch.Tensor, packed: torch.Tensor, group: int, scales_zeros: torch.Tensor) -> torch.Tensor:
    """``x @ W.T`` for bfloat16 ``x`` and int4 weights in torch's 64-row CPU packing, the inputs unquantized: each
    weight block converted once per call to bf16 codes plus 16 (exact) and dotted by ``vdpbf16ps`` (torch's math,
    exact products, float32 sums; the offset out of the sums), for 3+ rows on AVX512-BF16 CPUs."""
    return torch.ops.warden_cpu.int4_gemm_bf16(x, packed, group, scales_zeros)


def int8_linear(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """``x @ (weight * scales[:, None]).T`` for per-channel int8 weights (``torch._weight_int8pack_mm``'s
    signature), with the input quantized to int8 per group of 32; for one or a few rows."""
    return torch.ops.warden_cpu.int8_linear(x, weight, scales)


def int8_linear_up_to(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, kernel_rows: int) -> torch.Tensor:
    """``int8_linear`` for inputs of at most ``kernel_rows`` rows; for more, ``int8_gemm_bf16`` where it serves
    (``int8_gemm_bf16_serves``: bfloat16 inputs, a multiple of 64 output rows, built), else
    ``torch._weight_int8pack_mm``; chosen per call inside one opaque op (as ``int4_linear_up_to``)."""
    return torch.ops.warden_cpu.int8_linear_up_to(x, weight, scales, kernel_rows)


def int8_gemm_bf16_runs() -> bool:
    """Whether ``int8_gemm_bf16`` is built here (AVX512-BF16). Call after ``load()`` succeeded."""
    return bool(torch.ops.warden_cpu.int8_gemm_bf16_runs())


def int8_gemm_bf16_serves(dtype: torch.dtype, out_features: int) -> bool:
    """Whether ``int8_linear_up_to`` runs ``int8_gemm_bf16`` above its kernel rows for a layer of ``out_features``
    outputs in ``dtype`` (built, bfloat16, whole 64-row blocks): the C++ op's own rule, asked rather than restated."""
    return bool(torch.ops.warden_cpu.int8_gemm_bf16_serves(dtype, out_features))


def int8_gemm_bf16(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """``torch._weight_int8pack_mm`` for bfloat16 inputs with the inputs unquantized: every weight converted once
    per call to bf16 (exact) and dotted by ``vdpbf16ps`` (exact products, float32 sums); k along the lanes up to 16
    rows, output rows along them above (``int8_gemm_bf16.cpp``). For 5+ rows on AVX512-BF16 CPUs."""
    return torch.ops.warden_cpu.int8_gemm_bf16(x, weight, scales)


def lm_head_supported(out_features: int, in_features: int) -> bool:
    """Whether ``lm_head_linear`` runs here (AVX-512 VNNI) for an int8 head of that shape (``out_features`` a
    multiple of 16, ``in_features`` of 4). Call after ``load()`` succeeded."""
    return bool(torch.ops.warden_cpu.lm_head_supported(out_features, in_features))


def lm_head_pack(weight: torch.Tensor) -> torch.Tensor:
    """The int8 ``[N, K]`` weight as ``lm_head_linear`` reads it: ``[N / 16, K / 4, 64]`` bytes, 16 output rows by
    4 inputs per vector, each weight + 128 (``lm_head.cpp``). Once, at load."""
    return torch.ops.warden_cpu.lm_head_pack(weight)


def lm_head_linear(x: torch.Tensor, packed: torch.Tensor, scales: torch.Tensor, levels: int = 2) -> torch.Tensor:
    """``x @ (weight * scales[:, None]).T`` from ``lm_head_pack``'s packing, each input row quantized to int8 with
    one scale (``levels`` 2: also each rounding error in 254 steps of it, as fine as ``int8_linear``'s inputs) and
    dotted by ``vpdpbusd``, 64 products an instruction, 4 rows per loaded weight vector: the LM head at any row
    count (``kernels.reference.quantized_linear.int8_head_linear``)."""
    return torch.ops.warden_cpu.lm_head_linear(x, packed, scales, levels)


# The one-row linear per weight kind (a quantized Linear's quant_kind): both quantize the input row in two levels.
ONE_ROW_LINEARS: dict[str, Callable[..., torch.Tensor]] = {"int4": int4_linear_two_level, "int8": int8_linear}


def one_row_linear_supported(kind: str, out_features: int, in_features: int) -> bool:
    """Whether ``ONE_ROW_LINEARS[kind]`` runs here for a layer of that shape: this CPU has AVX-512 VNNI (both also
    run on AVX2, FMA and F16C: ``int4_linear_avx2.cpp``, ``int8_linear.cpp``'s AVX2 path), and the layer is what the
    kernel reads (int4: torch's 64-row packing; int8: whole 64-input chunks). Call after ``load()`` succeeded."""
    if kind not in ONE_ROW_LINEARS:
        raise ValueError(f"no one-row linear for {kind!r} weights (have {sorted(ONE_ROW_LINEARS)})")
    if kind == "int4":
        return out_features % 64 == 0 and bool(torch.ops.warden_cpu.int4_linear_supported())
    return in_features % 64 == 0 and bool(torch.ops.warden_cpu.int8_linear_supported())


@cache  # what the build compiled: fixed for the process
def argmax_supported() -> bool:
    """Whether ``argmax`` has its AVX-512 path here (without it the op runs a plain loop, slower than torch's
    reduction, so callers keep torch's). Call after ``load()`` succeeded."""
    return bool(torch.ops.warden_cpu.argmax_supported())


def argmax(x: torch.Tensor, portable: bool = False) -> torch.Tensor:
    """``kernels.reference.argmax.argmax`` for float32 ``x`` ``[rows, vocab]`` (rows may be strided). ``portable``
    runs the loop of builds without AVX-512 (for tests)."""
    return torch.ops.warden_cpu.argmax(x, portable)


def store_kvcache(key: torch.Tensor, value: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor,
                  slot_mapping: torch.Tensor) -> None:
    """This step's keys and values into their cache slots (slot -1: a padding row, skipped)."""
    torch.ops.warden_cpu.store_kvcache(key, value, k_cache, v_cache, slot_mapping)


def decode_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, block_tables: torch.Tensor,
                     seq_lens: torch.Tensor, scale: float, window: int = 0, softcap: float = 0.0) -> torch.Tensor:
    """``[num_decodes, heads, head_dim]``: each row's single query against its cached context (with ``window``,
    only its last ``window`` keys: the blocks before them are never read; ``softcap``: Gemma 2's logit cap)."""
    return torch.ops.warden_cpu.decode_attention(q, k_cache, v_cache, block_tables, seq_lens, scale, window, softcap)


def block_sparse_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                           scale: float, pattern: BlockSparsePattern, softcap: float = 0.0,
                           visits: torch.Tensor | None = None) -> torch.Tensor:
    """``kernels.reference.block_sparse_attention`` in C++ (``block_sparse_attention.cpp``): every query of the batch
    against only the key blocks ``pattern`` shows its block; ``visits`` (int64 ``[num_seqs, max_query_blocks]``, for
    tests) receives how many key blocks each query block read."""
    return torch.ops.warden_cpu.block_sparse_attention(q, k_cache, v_cache, meta.block_tables, meta.seq_lens,
                                                       meta.query_start_loc, scale, pattern.as_ints(), softcap,
                                                       visits)


# Batches whose longest query is at most this many tokens run every query token as its own decode row: a decode
# with draft tokens (speculative decoding), grammar-forced tokens (jump-forward), a short prefill chunk. Each
# token attends causally to the keys up to its own position, which is exactly a decode row with that length. With
# bfloat16 caches on AVX512-BF16 a sequence's tokens share one decode row instead, as extra query heads of each kv
# head (``short_query_attention``): its cache rows are read once for all its tokens, not once per token (a decode
# verifying 4 drafts over 1-3K keys with SmolLM2's heads: 3.3x a one-token decode's attention instead of 4.7-5.5x),
# with bitwise the rows' outputs.
SHORT_QUERY = 16

_rows: tuple[AttentionMetadata, torch.Tensor, torch.Tensor] | None = None


def token_rows(meta: AttentionMetadata) -> tuple[torch.Tensor, torch.Tensor]:
    """Per query token: its sequence's block-table row and the context length up to and including it. Memoised
    for the current step's metadata object (every layer attends with the same one), as the reference does."""
    global _rows
    if _rows is not None and _rows[0] is meta:
        return _rows[1], _rows[2]
    starts = meta.query_start_loc.long()
    q_lens = starts[1:] - starts[:-1]
    seq = torch.repeat_interleave(torch.arange(meta.num_seqs, device=starts.device), q_lens)
    offset = torch.arange(seq.shape[0], device=starts.device) - starts[:-1][seq]
    lens = (meta.seq_lens.long()[seq] - q_lens[seq] + offset + 1).to(torch.int32)
    tables = meta.block_tables.index_select(0, seq)
    _rows = (meta, tables, lens)
    return tables, lens


def paged_attention(q: torch.Tensor, k_cache: torch.Tensor, v_cache: torch.Tensor, meta: AttentionMetadata,
                    scale: float, window: int = 0, softcap: float = 0.0) -> torch.Tensor:
    # int8 caches where the kernels do not read them, and caches of another float dtype than the queries
    # (kv_cache_dtype="bfloat16" under a float32 engine), take the reference, which converts the rows it gathers.
    if (k_cache.dtype == torch.int8 and not int8_attention_runs()) or k_cache.dtype not in (q.dtype, torch.int8):
        return _reference.paged_attention(q, k_cache, v_cache, meta, scale, window, softcap)
    nd = meta.num_decodes
    if nd == meta.num_seqs:
        return decode_attention(q, k_cache, v_cache, meta.block_tables, meta.seq_lens, scale, window, softcap)
    if meta.max_query_len <= SHORT_QUERY:
        if window <= 0 and short_query_attention_serves(q, k_cache):  # each sequence's cache read once
            return torch.ops.warden_cpu.short_query_attention(q, k_cache, v_cache, meta.block_tables, meta.seq_lens,
                                                              meta.query_start_loc, nd, scale, softcap)
        tables, lens = token_rows(meta)
        return decode_attention(q, k_cache, v_cache, tables, lens, scale, window, softcap)
    out = torch.empty(q.shape, dtype=q.dtype, device=q.device)  # contiguous, as the prefill kernel writes it
    if nd:
        out[:nd] = decode_attention(q[:nd], k_cache, v_cache, meta.block_tables, meta.seq_lens, scale, window,
                                    softcap)
    if window <= 0 and softcap <= 0 and prefill_attention_serves(q, k_cache):
        torch.ops.warden_cpu.prefill_attention(q.contiguous(), k_cache, v_cache, meta.block_tables, meta.seq_lens,
                                               meta.query_start_loc, nd, scale, out)
        return out
    _reference.prefill_attention(q, k_cache, v_cache, meta, scale, out, window, softcap)
    return out


def set_attention_step(meta: AttentionMetadata, k_caches: list[torch.Tensor], v_caches: list[torch.Tensor]) -> None:
    """The step's metadata and every layer's caches, held in C++ for ``attend_step`` until ``clear_attention_step``
    (``engine.worker.forward_context`` sets them around each compiled forward)."""
    torch.ops.warden_cpu.set_attention_step(k_caches, v_caches, meta.slot_mapping, meta.block_tables, meta.seq_lens,
                                            meta.query_start_loc, meta.num_decodes, meta.max_query_len, SHORT_QUERY)


def clear_attention_step() -> None:
    """Forget the step and the caches: ``attend_step`` then calls ``warden::paged_attention`` (the Python op)."""
    torch.ops.warden_cpu.clear_attention_step()


def attend_step(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int, scale: float, window: int = 0,
                softcap: float = 0.0) -> torch.Tensor:
    """``engine.layers.attention``'s ``warden::paged_attention`` in C++: this step's keys and values stored into
    layer ``layer``'s cache, then ``paged_attention`` over it, from the state ``set_attention_step`` holds, without
    Python between the compiled graph and the kernels. What the kernels here do not serve, and a call with no step
    set, take the Python op."""
    return torch.ops.warden_cpu.attend_step(q, k, v, layer, scale, window, softcap)


def prefill_attention_serves(q: torch.Tensor, k_cache: torch.Tensor) -> bool:
    """Whether ``paged_attention.cpp``'s prefill kernel takes these chunks (bfloat16 on AVX512-BF16, head_dim a
    multiple of 32; callers also require no window and no soft-cap). It reads the cache blocks in place and lays
    each chunk's keys out once for all its queries, where the reference gathers a padded copy per call."""
    return (q.dtype == torch.bfloat16 and k_cache.dtype in (torch.bfloat16, torch.int8) and q.shape[-1] % 32 == 0
            and bool(torch.ops.warden_cpu.prefill_attention_runs()))


def short_query_attention_serves(q: torch.Tensor, k_cache: torch.Tensor) -> bool:
    """Whether ``paged_attention.cpp``'s one pass serves short queries (bfloat16 queries and caches on AVX512-BF16,
    head_dim a multiple of 32; callers also require no window): each sequence's tokens become extra query heads of
    its decode row, so its cache rows are read once for all of them, with bitwise the outputs of a row per token."""
    return (q.dtype == torch.bfloat16 and k_cache.dtype == torch.bfloat16 and q.shape[-1] % 32 == 0
            and bool(torch.ops.warden_cpu.prefill_attention_runs()))


@cache  # what the build compiled: fixed for the process
def int8_attention_runs() -> bool:
    """Whether ``paged_attention.cpp`` attends over int8 caches here (AVX512-BF16); elsewhere they take the reference
    path. Its store quantizes into them on every CPU."""
    return bool(torch.ops.warden_cpu.int8_attention_runs())
