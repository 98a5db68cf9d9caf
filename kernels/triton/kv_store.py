"""Scatter this step's keys and values into the paged KV cache: one program per token, one contiguous row of
``kv_heads * head_dim`` values each for K and V. A slot of -1 skips the token (padding rows of a CUDA graph)."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _store_kvcache_kernel(
    key_ptr, value_ptr, k_cache_ptr, v_cache_ptr, slot_mapping_ptr,
    key_stride_t, key_stride_h, value_stride_t, value_stride_h,
    k_cache_stride_slot, k_cache_stride_h, v_cache_stride_slot, v_cache_stride_h,
    KV_HEADS: tl.constexpr, HEAD_DIM: tl.constexpr, ROW_PAD: tl.constexpr,
):
    token = tl.program_id(0)
    slot = tl.load(slot_mapping_ptr + token).to(tl.int64)
    if slot < 0:
        return
    offs = tl.arange(0, ROW_PAD)
    head, dim = offs // HEAD_DIM, offs % HEAD_DIM
    in_row = offs < KV_HEADS * HEAD_DIM
    k = tl.load(key_ptr + token * key_stride_t + head * key_stride_h + dim, mask=in_row)
    v = tl.load(value_ptr + token * value_stride_t + head * value_stride_h + dim, mask=in_row)
    k_dst = k_cache_ptr + slot * k_cache_stride_slot + head * k_cache_stride_h + dim
    v_dst = v_cache_ptr + slot * v_cache_stride_slot + head * v_cache_stride_h + dim
    tl.store(k_dst, k.to(k_cache_ptr.dtype.element_ty), mask=in_row)
    tl.store(v_dst, v.to(v_cache_ptr.dtype.element_ty), mask=in_row)


def store_kvcache(
    key: torch.Tensor,  # [num_tokens, num_kv_heads, head_dim]
    value: torch.Tensor,
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,  # int64 [num_tokens]
) -> None:
    num_tokens, kv_heads, head_dim = key.shape
    assert value.shape == key.shape and k_cache.shape[-2:] == (kv_heads, head_dim)
    assert key.stride(-1) == value.stride(-1) == k_cache.stride(-1) == v_cache.stride(-1) == 1
    # A block's slots are consecutive: slot s lives at block s // block_size, offset s % block_size.
    assert k_cache.stride(0) == k_cache.shape[1] * k_cache.stride(1)
    assert v_cache.stride(0) == v_cache.shape[1] * v_cache.stride(1)
    if num_tokens == 0:
        return
    _store_kvcache_kernel[(num_tokens,)](
        key, value, k_cache, v_cache, slot_mapping,
        key.stride(0), key.stride(1), value.stride(0), value.stride(1),
        k_cache.stride(1), k_cache.stride(2), v_cache.stride(1), v_cache.stride(2),
        KV_HEADS=kv_heads, HEAD_DIM=head_dim, ROW_PAD=triton.next_power_of_2(kv_heads * head_dim),
    )
