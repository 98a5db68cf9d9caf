"""The one place that decides which kernel runs: Triton on CUDA when available, the torch reference elsewhere.

Signatures (every implementation matches them exactly):

* ``store_kvcache(key, value, k_cache, v_cache, slot_mapping) -> None`` — write ``[num_tokens, kv_heads,
  head_dim]`` keys/values into the paged cache at the flat slots ``slot_mapping`` (int64 ``[num_tokens]``).
* ``paged_attention(q, k_cache, v_cache, meta, scale, window=0, softcap=0.0) -> Tensor`` — causal grouped-query
  attention of the flattened queries ``[num_tokens, heads, head_dim]`` over each sequence's cached keys/values,
  described by ``kernels.attention_metadata.AttentionMetadata`` (decodes first, then prefill chunks). The calling
  layer's own ``window`` (sliding window in keys, the query included; 0: global) and ``softcap`` (attention-logit
  soft-capping; 0: none): blocks wholly before a query's window are never read. With ``block_sparse`` (a
  ``kernels.block_sparse.BlockSparsePattern``, for layers without a window) every query of the batch, decodes
  included, attends by the pattern through ``block_sparse_attention(q, k_cache, v_cache, meta, scale, pattern,
  softcap)``, which reads only the key blocks the pattern shows (C++ on CPU, Triton on CUDA).

* ``rms_norm(x, weight, eps) -> Tensor`` and ``fused_add_rms_norm(x, residual, weight, eps) -> (normed,
  residual)`` — RMSNorm of ``[num_tokens, hidden]`` rows, the second after adding the residual stream.
* ``rotary_embedding(positions, q, k, cos, sin) -> (q, k)`` — rotate-half RoPE by per-token position, with
  ``cos``/``sin`` tables ``[max_position, head_dim]``.
* ``silu_and_mul(x) -> Tensor`` — ``silu(gate) * up`` of a fused ``[num_tokens, 2 * d]`` gate|up projection.
* ``fused_moe(x, w13, w2, topk_weights, topk_ids) -> Tensor`` — mixture-of-experts SwiGLU feed-forward of
  ``[num_tokens, hidden]`` rows, each through its top-k experts' stacked weights and summed by its routing weights
  (``kernels.reference.fused_moe`` defines it). On CPU the grouped torch path ``kernels.cpu.fused_moe`` (pure
  Python, no build needed) runs, unless ``WARDEN_KERNELS=reference``.
* ``argmax(x) -> Tensor`` — per row of ``[rows, vocab]`` logits, the first index of the largest value, a NaN
  counting as the largest (``max(dim=-1).indices``); greedy sampling's pick. No Triton kernel: torch's op on CUDA.
* ``fp8_linear(device, out_features, in_features)`` picks, per layer, the FP8 W8A8 linear ``(x, weight,
  weight_scale) -> Tensor`` (``kernels.reference.fp8_linear`` defines it) and the dtype its weight codes are held
  in: on CUDA ``torch._scaled_mm`` on e4m3 codes where it runs for that shape; on the CPU the bf16 GEMM on the
  codes' exact bf16 values (``kernels.fp8_linear``); the dequantizing reference elsewhere and with
  ``WARDEN_KERNELS=reference``.

A Triton implementation plugs in as a module ``kernels.triton`` exporting these functions with these
signatures; it is used for CUDA tensors unless ``WARDEN_KERNELS=reference``. On CPU the ops ``kernels.cpu``
exports (decode attention, in C++ built on the machine at first use) run there, the references otherwise (also
with ``WARDEN_KERNELS=reference`` or where no C++ toolchain can build them). Tests may force any module
implementing the same names onto every device with ``forced_kernels`` (e.g. Triton under ``TRITON_INTERPRET=1``
on the CPU).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from types import ModuleType

import torch

from kernels import fp8_linear as _fp8_linear
from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern
from kernels.reference import activation as _ref_activation
from kernels.reference import argmax as _ref_argmax
from kernels.reference import block_sparse_attention as _ref_block_sparse
from kernels.reference import fp8_linear as _ref_fp8_linear
from kernels.reference import fused_moe as _ref_fused_moe
from kernels.reference import kv_store as _ref_kv_store
from kernels.reference import paged_attention as _ref_attention
from kernels.reference import rms_norm as _ref_rms_norm
from kernels.reference import rotary as _ref_rotary

_forced: ModuleType | None = None


@cache
def _triton_module() -> ModuleType | None:
    if os.environ.get("WARDEN_KERNELS") == "reference":
        return None
    try:
        return importlib.import_module("kernels.triton")
    except ImportError:
        return None


# What kernels.cpu implements. Checked by name first so the ops a compiled graph traces (norms, rotary) never
# call into the build-and-load machinery; paged attention runs inside its opaque operator.
_CPU_OPS = frozenset({"block_sparse_attention", "paged_attention", "store_kvcache"})


@cache
def _cpu_module() -> ModuleType | None:
    """Warden's C++ CPU kernels, built on first use (``kernels.cpu``); None where they cannot be built."""
    if os.environ.get("WARDEN_KERNELS") == "reference":
        return None
    from kernels import cpu  # imported lazily: loading builds a C++ extension

    return cpu if cpu.load() else None


def prepare(device: torch.device) -> None:
    """Build or load what ``device``'s kernels need now (the engine calls it at start, so no request pays)."""
    if device.type == "cpu" and _forced is None:
        _cpu_module()


@contextmanager
def forced_kernels(module: ModuleType) -> Iterator[None]:
    """Within the block, every dispatched op runs ``module``'s implementation whatever the device."""
    global _forced
    previous, _forced = _forced, module
    try:
        yield
    finally:
        _forced = previous


def cpu_attention_step() -> ModuleType | None:
    """``kernels.cpu`` where the compiled decoder's attention layers call its ``attend_step`` (CPU kernels built and
    chosen: no forced module, no ``WARDEN_KERNELS=reference``), for the forward context to set each step's state
    in; else None."""
    return _cpu_module() if _forced is None else None


@torch.compiler.assume_constant_result  # read while tracing: the answer is the graph's op, not a guard
def cpu_attention_step_runs() -> bool:
    """Whether a compiled graph's CPU attention layers call ``kernels.cpu.attend_step`` (C++, no Python per layer)
    rather than the Python ``warden::paged_attention``."""
    return cpu_attention_step() is not None


def cpu_one_row_linear(kind: str, out_features: int, in_features: int) -> Callable | None:
    """The C++ one-row linear for a CPU layer of ``kind`` (``"int4"``: ``kernels.cpu.int4_linear``, with
    ``torch._weight_int4pack_mm_for_cpu``'s signature; ``"int8"``: ``kernels.cpu.int8_linear``, with
    ``torch._weight_int8pack_mm``'s) and that shape, or None where it cannot run (not built, no AVX-512 VNNI, a
    shape it does not read, ``WARDEN_KERNELS=reference``)."""
    module = _cpu_module() if _forced is None else None
    if module is None or not module.one_row_linear_supported(kind, out_features, in_features):
        return None
    return module.ONE_ROW_LINEARS[kind]


def cpu_int4_linear_up_to(out_features: int, in_features: int) -> Callable | None:
    """``kernels.cpu.int4_linear_up_to`` (the int4 kernel up to a row count, torch's above it, chosen per call) where
    ``cpu_one_row_linear("int4", ...)`` runs, else None."""
    if cpu_one_row_linear("int4", out_features, in_features) is None:
        return None
    module = _cpu_module()
    return None if module is None else module.int4_linear_up_to


def cpu_int8_linear_up_to(out_features: int, in_features: int) -> Callable | None:
    """``kernels.cpu.int8_linear_up_to`` (the int8 kernel up to a row count; above it the bf16 GEMM where
    ``cpu_int8_gemm_runs``, else ``torch._weight_int8pack_mm``; chosen per call) where
    ``cpu_one_row_linear("int8", ...)`` runs, else None."""
    if cpu_one_row_linear("int8", out_features, in_features) is None:
        return None
    module = _cpu_module()
    return None if module is None else module.int8_linear_up_to


def cpu_int4_gemm_bf16_serves(dtype: torch.dtype) -> bool:
    """Whether ``kernels.cpu.int4_linear_up_to`` runs ``int4_gemm_bf16`` above its kernel rows for inputs of ``dtype``
    (AVX512-BF16, bfloat16), rather than another GEMM or torch's kernel."""
    module = _cpu_module() if _forced is None else None
    return module is not None and module.int4_gemm_bf16_serves(dtype)


def cpu_int8_gemm_runs(out_features: int, dtype: torch.dtype) -> bool:
    """Whether ``kernels.cpu.int8_linear_up_to`` runs ``int8_gemm_bf16`` above its kernel rows for a layer of
    ``out_features`` outputs in ``dtype`` (AVX512-BF16, bfloat16, whole 64-row blocks), rather than torch's kernel."""
    module = _cpu_module() if _forced is None else None
    return module is not None and module.int8_gemm_bf16_serves(dtype, out_features)


def fp8_linear(device: torch.device, out_features: int, in_features: int
               ) -> tuple[Callable[..., torch.Tensor], torch.dtype]:
    """The FP8 W8A8 linear ``(x, weight, weight_scale) -> Tensor`` for a layer of this shape on ``device``, and the
    dtype its e4m3 weight codes are held in: on CUDA ``kernels.fp8_linear.scaled_mm_linear`` where
    ``torch._scaled_mm`` runs it (the choice tries the op on the device once), on e4m3; on the CPU
    ``kernels.fp8_linear.codes_linear``, on the codes' exact bfloat16 values; else the reference (codes dequantized,
    float32 matmul), on e4m3 (bfloat16 on the CPU, where converting e4m3 is slow)."""
    storage = torch.bfloat16 if device.type == "cpu" else _ref_fp8_linear.FP8_DTYPE
    if _forced is None and os.environ.get("WARDEN_KERNELS") != "reference":
        if device.type == "cpu":
            return _fp8_linear.codes_linear, storage
        if _fp8_linear.scaled_mm_serves(device, out_features, in_features):
            return _fp8_linear.scaled_mm_linear, storage
    return _ref_fp8_linear.fp8_linear, storage


def uses_triton(device: torch.device) -> bool:
    """Whether ops on ``device`` run the Triton kernels (which, unlike the references, are CUDA-graph safe:
    no host syncs, launches sized by bounds, padding rows with slot -1 skipped)."""
    return _forced is None and device.type == "cuda" and _triton_module() is not None


def _pick(device: torch.device, name: str, reference: Callable) -> Callable:
    if _forced is not None:
        return getattr(_forced, name)
    if device.type == "cuda":
        module = _triton_module()
        if module is not None and hasattr(module, name):
            return getattr(module, name)
    elif device.type == "cpu" and name in _CPU_OPS:
        module = _cpu_module()
        if module is not None:
            return getattr(module, name)
    return reference


def store_kvcache(
    key: torch.Tensor,
    value: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,
) -> None:
    _pick(key.device, "store_kvcache", _ref_kv_store.store_kvcache)(key, value, k_cache, v_cache, slot_mapping)


def paged_attention(
    q: torch.Tensor,
    k_cache: torch.Tensor,
    v_cache: torch.Tensor,
    meta: AttentionMetadata,
    scale: float,
    window: int = 0,
    softcap: float = 0.0,
    block_sparse: BlockSparsePattern | None = None,
) -> torch.Tensor:
    if block_sparse is not None:
        if k_cache.dtype == torch.int8:
            raise ValueError("block-sparse attention does not read int8 KV caches")
        if window > 0:
            raise ValueError("a layer attends either within a sliding window or by a block-sparse pattern, not both")
        sparse = _pick(q.device, "block_sparse_attention", _ref_block_sparse.block_sparse_attention)
        return sparse(q, k_cache, v_cache, meta, scale, block_sparse, softcap)
    attend = _pick(q.device, "paged_attention", _ref_attention.paged_attention)
    if window <= 0 and softcap <= 0:  # the common call, in every backend's original signature
        return attend(q, k_cache, v_cache, meta, scale)
    return attend(q, k_cache, v_cache, meta, scale, window, softcap)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return _pick(x.device, "rms_norm", _ref_rms_norm.rms_norm)(x, weight, eps)


def fused_add_rms_norm(
    x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor, eps: float
) -> tuple[torch.Tensor, torch.Tensor]:
    return _pick(x.device, "fused_add_rms_norm", _ref_rms_norm.fused_add_rms_norm)(x, residual, weight, eps)


def rotary_embedding(
    positions: torch.Tensor, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    return _pick(q.device, "rotary_embedding", _ref_rotary.rotary_embedding)(positions, q, k, cos, sin)


def silu_and_mul(x: torch.Tensor) -> torch.Tensor:
    return _pick(x.device, "silu_and_mul", _ref_activation.silu_and_mul)(x)


def fused_moe(x: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor, topk_weights: torch.Tensor,
              topk_ids: torch.Tensor) -> torch.Tensor:
    if _forced is None and x.device.type == "cpu" and os.environ.get("WARDEN_KERNELS") != "reference":
        from kernels.cpu import fused_moe as _cpu_fused_moe  # pure torch: needs no C++ build

        return _cpu_fused_moe.fused_moe(x, w13, w2, topk_weights, topk_ids)
    return _pick(x.device, "fused_moe", _ref_fused_moe.fused_moe)(x, w13, w2, topk_weights, topk_ids)


def argmax(x: torch.Tensor) -> torch.Tensor:
    # The C++ kernel reads float32 rows with AVX-512; anything else (other dtypes or devices, a CPU without
    # AVX-512, WARDEN_KERNELS=reference, a forced module) takes the reference, which gives the same indices.
    if _forced is None and x.device.type == "cpu" and x.dtype == torch.float32 and x.dim() == 2:
        module = _cpu_module()
        if module is not None and module.argmax_supported():
            return module.argmax(x)
    return _ref_argmax.argmax(x)
