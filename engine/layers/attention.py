"""Attention over the paged KV cache: store this step's keys/values, then attend through the kernel dispatch."""

from __future__ import annotations

import torch
from torch import nn

from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata


class PagedAttention(nn.Module):
    def __init__(self, num_heads: int, num_kv_heads: int, head_dim: int) -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.scale = head_dim**-0.5
        # Views into the runner's preallocated cache, bound by ModelRunner.allocate_kv_cache.
        self.k_cache = torch.empty(0)
        self.v_cache = torch.empty(0)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        dispatch.store_kvcache(k, v, self.k_cache, self.v_cache, meta.slot_mapping)
        return dispatch.paged_attention(q, self.k_cache, self.v_cache, meta, self.scale)
