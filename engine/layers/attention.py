"""Attention over the paged KV cache: store this step's keys/values, then attend through the kernel dispatch.

Eagerly the layer gets the step's metadata as an argument. Inside a compiled forward (``engine.compilation``)
the store and the attention are one opaque operator, ``warden::paged_attention``, which the compiler never
traces into: it takes the layer's index and reads the metadata and the layer's cache from the forward context,
so the graph depends only on the number of tokens.
"""

from __future__ import annotations

import torch
from torch import nn

from engine.forward_context import get_forward_context
from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata

_LIBRARY = torch.library.Library("warden", "DEF")
_LIBRARY.define("paged_attention(Tensor q, Tensor k, Tensor v, int layer, float scale) -> Tensor")


def _store_and_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                      v_cache: torch.Tensor, meta: AttentionMetadata, scale: float) -> torch.Tensor:
    dispatch.store_kvcache(k, v, k_cache, v_cache, meta.slot_mapping)
    return dispatch.paged_attention(q, k_cache, v_cache, meta, scale)


def _paged_attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int, scale: float) -> torch.Tensor:
    context = get_forward_context()
    k_cache, v_cache = context.kv_caches[layer]
    return _store_and_attend(q, k, v, k_cache, v_cache, context.attn_metadata, scale)


# Registered with torch.library's plain Library API rather than ``custom_op``: its Python wrapper costs ~100 us
# per call, 30 layers x every step. The op writes the cache, which the compiled graph never reads.
_LIBRARY.impl("paged_attention", _paged_attention_op, "CompositeExplicitAutograd")


@torch.library.register_fake("warden::paged_attention")
def _paged_attention_shape(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int,
                           scale: float) -> torch.Tensor:
    return torch.empty_like(q)


class PagedAttention(nn.Module):
    def __init__(self, num_heads: int, num_kv_heads: int, head_dim: int) -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.scale = head_dim**-0.5
        # Bound by ModelRunner.allocate_kv_cache: views into the runner's preallocated cache and this layer's
        # index in the forward context's cache list.
        self.k_cache = torch.empty(0)
        self.v_cache = torch.empty(0)
        self.layer_index = -1

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                meta: AttentionMetadata | None) -> torch.Tensor:
        if torch.compiler.is_compiling():
            return torch.ops.warden.paged_attention(q, k, v, self.layer_index, self.scale)
        assert meta is not None, "eager attention takes the step's metadata"
        return _store_and_attend(q, k, v, self.k_cache, self.v_cache, meta, self.scale)
