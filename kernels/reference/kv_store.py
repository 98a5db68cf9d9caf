"""Write this step's keys and values into the paged KV cache (an int8 cache stores them quantized per row:
``kernels.reference.kv_int8``)."""

from __future__ import annotations

import torch

from kernels.reference import kv_int8


def store_kvcache(
    key: torch.Tensor,  # [num_tokens, num_kv_heads, head_dim]
    value: torch.Tensor,
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,  # int64 [num_tokens]
) -> None:
    kv_heads, row = k_cache.shape[-2:]
    if kv_int8.is_int8(k_cache):
        key, value = kv_int8.quantize(key), kv_int8.quantize(value)
    k_cache.view(-1, kv_heads, row).index_copy_(0, slot_mapping, key.to(k_cache.dtype))
    v_cache.view(-1, kv_heads, row).index_copy_(0, slot_mapping, value.to(v_cache.dtype))
