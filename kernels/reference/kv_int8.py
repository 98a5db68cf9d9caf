"""The int8 KV cache's layout and quantization (``EngineConfig.kv_cache_dtype = "int8"``), as torch code.

Each (slot, kv head) row of keys or values is stored as ``head_dim`` int8 codes followed by the row's float32 scale
(its four bytes, native order): an int8 cache is ``[num_blocks, block_size, kv_heads, head_dim + 4]``. The scale
lives inside the row, not in a tensor of its own, so whatever moves or shares a cache row carries its scale with it,
and every cache keeps the ``(k_cache, v_cache)`` shape of the bf16 one through the compiled graph's opaque operator.

Quantization is symmetric per row: ``scale = absmax / 127``, ``code = round(x * (127 / absmax))`` (to nearest
even), a row of zeros stored as zeros with scale 0. ``kernels/cpu/paged_attention.cpp`` computes the same float32
operations, so its codes match these bit for bit.
"""

from __future__ import annotations

import torch

SCALE_BYTES = 4  # one float32 per row
INT8_KV = torch.int8


def is_int8(cache: torch.Tensor) -> bool:
    return cache.dtype == INT8_KV


def head_dim_of(cache: torch.Tensor) -> int:
    """The head_dim of the rows ``cache`` holds (an int8 row also carries its scale)."""
    return cache.shape[-1] - SCALE_BYTES if is_int8(cache) else cache.shape[-1]


def quantize(x: torch.Tensor) -> torch.Tensor:
    """``[..., head_dim]`` keys or values -> their int8 rows ``[..., head_dim + 4]`` (codes, then the scale)."""
    x = x.float()
    absmax = x.abs().amax(dim=-1, keepdim=True)
    nonzero = absmax > 0
    # A tensor over a tensor: IEEE division, as the C++ store's (a number over a tensor may take the reciprocal).
    inverse = torch.where(nonzero, torch.full_like(absmax, 127.0) / torch.where(nonzero, absmax, 1.0), 0.0)
    codes = torch.round(x * inverse).clamp_(-127, 127).to(torch.int8)
    scale = (absmax / 127.0).contiguous()
    return torch.cat([codes, scale.view(torch.int8)], dim=-1)


def dequantize(rows: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """int8 rows ``[..., head_dim + 4]`` -> ``code * scale`` ``[..., head_dim]`` (the float32 product, then
    rounded once to ``dtype``)."""
    head_dim = rows.shape[-1] - SCALE_BYTES
    scale = rows[..., head_dim:].contiguous().view(torch.float32)
    return (rows[..., :head_dim].float() * scale).to(dtype)
