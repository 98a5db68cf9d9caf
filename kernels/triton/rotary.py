"""Rotary embedding of queries and keys in one launch: one program per token rotates all its query and key
heads (rotate-half layout), reading the cos/sin row of its position once. Math in float32, one rounding."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _rotate(src_ptr, dst_ptr, token, src_stride_t, src_stride_h, dst_stride_t, dst_stride_h, c, s,
            HEADS: tl.constexpr, HEADS_PAD: tl.constexpr, HALF: tl.constexpr, HALF_PAD: tl.constexpr):
    heads = tl.arange(0, HEADS_PAD)[:, None]
    dims = tl.arange(0, HALF_PAD)[None, :]
    mask = (heads < HEADS) & (dims < HALF)
    src = src_ptr + token * src_stride_t + heads * src_stride_h + dims
    x1 = tl.load(src, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + HALF, mask=mask, other=0.0).to(tl.float32)
    dst = dst_ptr + token * dst_stride_t + heads * dst_stride_h + dims
    tl.store(dst, (x1 * c - x2 * s).to(dst_ptr.dtype.element_ty), mask=mask)
    tl.store(dst + HALF, (x2 * c + x1 * s).to(dst_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _rotary_kernel(
    positions_ptr, q_ptr, k_ptr, cos_ptr, sin_ptr, q_out_ptr, k_out_ptr,
    q_stride_t, q_stride_h, k_stride_t, k_stride_h, q_out_stride_t, q_out_stride_h, k_out_stride_t, k_out_stride_h,
    cos_stride, sin_stride,
    Q_HEADS: tl.constexpr, Q_HEADS_PAD: tl.constexpr, K_HEADS: tl.constexpr, K_HEADS_PAD: tl.constexpr,
    HALF: tl.constexpr, HALF_PAD: tl.constexpr,
):
    token = tl.program_id(0).to(tl.int64)
    pos = tl.load(positions_ptr + token).to(tl.int64)
    dims = tl.arange(0, HALF_PAD)[None, :]
    # cos/sin rows hold both halves equal; the first half is all the rotation needs.
    c = tl.load(cos_ptr + pos * cos_stride + dims, mask=dims < HALF, other=0.0).to(tl.float32)
    s = tl.load(sin_ptr + pos * sin_stride + dims, mask=dims < HALF, other=0.0).to(tl.float32)
    _rotate(q_ptr, q_out_ptr, token, q_stride_t, q_stride_h, q_out_stride_t, q_out_stride_h, c, s,
            Q_HEADS, Q_HEADS_PAD, HALF, HALF_PAD)
    _rotate(k_ptr, k_out_ptr, token, k_stride_t, k_stride_h, k_out_stride_t, k_out_stride_h, c, s,
            K_HEADS, K_HEADS_PAD, HALF, HALF_PAD)


def rotary_embedding(
    positions: torch.Tensor,
    q: torch.Tensor,
    k: torch.Tensor,
    cos: torch.Tensor,
    sin: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    num_tokens, q_heads, head_dim = q.shape
    k_heads = k.shape[1]
    assert head_dim % 2 == 0 and k.shape == (num_tokens, k_heads, head_dim)
    assert q.stride(-1) == k.stride(-1) == cos.stride(-1) == sin.stride(-1) == 1
    q_out = torch.empty((num_tokens, q_heads, head_dim), dtype=q.dtype, device=q.device)
    k_out = torch.empty((num_tokens, k_heads, head_dim), dtype=q.dtype, device=q.device)
    if num_tokens:
        half = head_dim // 2
        _rotary_kernel[(num_tokens,)](
            positions, q, k, cos, sin, q_out, k_out,
            q.stride(0), q.stride(1), k.stride(0), k.stride(1),
            q_out.stride(0), q_out.stride(1), k_out.stride(0), k_out.stride(1),
            cos.stride(0), sin.stride(0),
            Q_HEADS=q_heads, Q_HEADS_PAD=triton.next_power_of_2(q_heads),
            K_HEADS=k_heads, K_HEADS_PAD=triton.next_power_of_2(k_heads),
            HALF=half, HALF_PAD=triton.next_power_of_2(half),
        )
    return q_out, k_out
