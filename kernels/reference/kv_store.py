"""Write this step's keys and values into the paged KV cache."""

from __future__ import annotations

import torch


def store_kvcache(
    key: torch.Tensor,  # [num_tokens, num_kv_heads, head_dim]
    value: torch.Tensor,
    k_cache: torch.Tensor,  # [num_blocks, block_size, num_kv_heads, head_dim]
    v_cache: torch.Tensor,
    slot_mapping: torch.Tensor,  # int64 [num_tokens]
) -> None:
    kv_heads, head_dim = k_cache.shape[-2:]
    k_cache.view(-1, kv_heads, head_dim).index_copy_(0, slot_mapping, key.to(k_cache.dtype))
    v_cache.view(-1, kv_heads, head_dim).index_copy_(0, slot_mapping, value.to(v_cache.dtype))
