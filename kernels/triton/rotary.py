"""Rotary embedding of queries and keys in one launch: each program rotates all the query and key heads
(rotate-half layout) of TOKENS_PER_PROGRAM tokens, reading each token's cos/sin row once. Math in float32, one
rounding. Several tokens per program because one token's heads are small (SmolLM2: 1.5 KB of q and k), too little
work for a program to keep HBM busy; bench.kernels sweeps the count (docs/benchmarks.md, "GPU kernels")."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

TOKENS_PER_PROGRAM = 4


@triton.jit
def _rotate(src_ptr, dst_ptr, tokens, token_mask, src_stride_t, src_stride_h, dst_stride_t, dst_stride_h, c, s,
            HEADS: tl.constexpr, HEADS_PAD: tl.constexpr, HALF: tl.constexpr, HALF_PAD: tl.constexpr):
    """Rotates ``[tokens, HEADS, 2 * HALF]``; ``c`` and ``s`` are the tokens' ``[tokens, 1, HALF_PAD]`` rows."""
    t = tokens[:, None, None]
    heads = tl.arange(0, HEADS_PAD)[None, :, None]
    dims = tl.arange(0, HALF_PAD)[None, None, :]
    mask = token_mask[:, None, None] & (heads < HEADS) & (dims < HALF)
    src = src_ptr + t * src_stride_t + heads * src_stride_h + dims
    x1 = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + HALF, mask=mask, other=0.0).to(tl.float32)
    dst = dst_ptr + t * dst_stride_t + heads * dst_stride_h + dims
    tl.store(dst, (x1 * c - x2 * s).to(dst_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + HALF, (x2 * c + x1 * s).to(dst_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rotary_kernel(
    positions_ptr, q_ptr, k_ptr, cos_ptr, sin_ptr, q_out_ptr, k_out_ptr,
    num_tokens,
    q_stride_t, q_stride_h, k_stride_t, k_stride_h, q_out_stride_t, q_out_stride_h, k_out_stride_t, k_out_stride_h,
    cos_stride, sin_stride,
    Q_HEADS: tl.constexpr, Q_HEADS_PAD: tl.constexpr, K_HEADS: tl.constexpr, K_HEADS_PAD: tl.constexpr,
    HALF: tl.constexpr, HALF_PAD: tl.constexpr, TOKENS: tl.constexpr,
):
    tokens = tl.program_id(0).to(tl.int64) * TOKENS + tl.arange(0, TOKENS)
    token_mask = tokens < num_tokens
    pos = tl.load(positions_ptr + tokens, mask=token_mask, other=0).to(tl.int64)[:, None, None]
    dims = tl.arange(0, HALF_PAD)[None, None, :]
    # cos/sin rows hold both halves equal; the first half is all the rotation needs.
    row_mask = token_mask[:, None, None] & (dims < HALF)
    c = tl.load(cos_ptr + pos * cos_stride + dims, mask=row_mask, other=0.0).to(tl.float32)
    s = tl.load(sin_ptr + pos * sin_stride + dims, mask=row_mask, other=0.0).to(tl.float32)
    _rotate(q_ptr, q_out_ptr, tokens, token_mask, q_stride_t, q_stride_h, q_out_stride_t, q_out_stride_h, c, s,
            Q_HEADS, Q_HEADS_PAD, HALF, HALF_PAD)
    _rotate(k_ptr, k_out_ptr, tokens, token_mask, k_stride_t, k_stride_h, k_out_stride_t, k_out_stride_h, c, s,
            K_HEADS, K_HEADS_PAD, HALF, HALF_PAD)


def rotate(positions: torch.Tensor, q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
           tokens_per_program: int = TOKENS_PER_PROGRAM) -> tuple[torch.Tensor, torch.Tensor]:
    """``rotary_embedding`` with the tokens per program chosen (a power of two)."""
    num_tokens, q_heads, head_dim = q.shape
    k_heads = k.shape[1]
    assert head_dim % 2 == 0 and k.shape == (num_tokens, k_heads, head_dim)
    assert q.stride(-1) == k.stride(-1) == cos.stride(-1) == sin.stride(-1) == 1
    assert tokens_per_program > 0 and tokens_per_program & (tokens_per_program - 1) == 0
    q_out = torch.empty((num_tokens, q_heads, head_dim), dtype=q.dtype, device=q.device)
    k_out = torch.empty((num_tokens, k_heads, head_dim), dtype=q.dtype, device=q.device)
    if num_tokens:
        half = head_dim // 2
        _rotary_kernel[(triton.cdiv(num_tokens, tokens_per_program),)](
            positions, q, k, cos, sin, q_out, k_out,
            num_tokens,
            q.stride(0), q.stride(1), k.stride(0), k.stride(1),
            q_out.stride(0), q_out.stride(1), k_out.stride(0), k_out.stride(1),
            cos.stride(0), sin.stride(0),
            Q_HEADS=q_heads, Q_HEADS_PAD=triton.next_power_of_2(q_heads),
            K_HEADS=k_heads, K_HEADS_PAD=triton.next_power_of_2(k_heads),
            HALF=half, HALF_PAD=triton.next_power_of_2(half), TOKENS=tokens_per_program,
        )
    return q_out, k_out


def rotary_embedding(
    positions: torch.Tensor,
    q: torch.Tensor,
    k: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    return rotate(positions, q, k, cos, sin)
