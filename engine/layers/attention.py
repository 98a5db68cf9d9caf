"""Attention over the paged KV cache: store this step's keys/values, then attend through the kernel dispatch.

Eagerly the layer gets the step's metadata as an argument. Inside a compiled forward (``engine.worker.compilation``)
the store and the attention are one opaque operator, ``warden::paged_attention``, which the compiler never
traces into: it takes the layer's index and reads the metadata and the layer's cache from the forward context,
so the graph depends only on the number of tokens. On the CPU with the C++ kernels the operator is
``warden_cpu::attend_step`` instead (``kernels.cpu.attend_step``): the same store and attention in C++, reading the
state the forward context hands it once per step, so the graph's C++ wrapper reaches the kernels without Python at
any layer (block-sparse layers keep the Python operator).

Each layer carries its own sliding window (``sliding_window`` keys, the query's own included; 0: global) and
attention-logit soft-capping (0: none), passed to the kernel with every call: the step's metadata is the same for
every layer, while Mistral windows every layer and Gemma 2 alternates windowed and global ones. A layer without a
window may attend by a block-sparse pattern instead (``block_sparse``, ``kernels.block_sparse``; set by the model
runner from ``EngineConfig``), at every query position: prefill chunks and decodes alike.
"""

from __future__ import annotations

import torch
from torch import nn

from engine.worker.forward_context import get_forward_context
from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata
from kernels.block_sparse import BlockSparsePattern

_LIBRARY = torch.library.Library("warden", "DEF")
_LIBRARY.define("paged_attention(Tensor q, Tensor k, Tensor v, int layer, float scale, int window=0, "
                "float softcap=0., int[] block_sparse=[]) -> Tensor")


def _store_and_attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, k_cache: torch.Tensor,
                      v_cache: torch.Tensor, meta: AttentionMetadata, scale: float, window: int = 0,
                      softcap: float = 0.0, block_sparse: BlockSparsePattern | None = None) -> torch.Tensor:
    dispatch.store_kvcache(k, v, k_cache, v_cache, meta.slot_mapping)
    return dispatch.paged_attention(q, k_cache, v_cache, meta, scale, window, softcap, block_sparse)


def _paged_attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int, scale: float,
                        window: int = 0, softcap: float = 0.0, block_sparse: list[int] | None = None) -> torch.Tensor:
    context = get_forward_context()
    k_cache, v_cache = context.kv_caches[layer]
    pattern = BlockSparsePattern.from_ints(block_sparse) if block_sparse else None
    return _store_and_attend(q, k, v, k_cache, v_cache, context.attn_metadata, scale, window, softcap, pattern)


# Registered with torch.library's plain Library API rather than ``custom_op``: its Python wrapper costs ~100 us
# per call, 30 layers x every step. The op writes the cache, which the compiled graph never reads.
_LIBRARY.impl("paged_attention", _paged_attention_op, "CompositeExplicitAutograd")


@torch.library.register_fake("warden::paged_attention")
def _paged_attention_shape(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, layer: int, scale: float,
                           window: int = 0, softcap: float = 0.0,
                           block_sparse: list[int] | None = None) -> torch.Tensor:
    return torch.empty_like(q)


class PagedAttention(nn.Module):
    def __init__(self, num_heads: int, num_kv_heads: int, head_dim: int, *, scale: float | None = None,
                 sliding_window: int = 0, softcap: float = 0.0) -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = num_heads, num_kv_heads, head_dim
        self.scale = head_dim**-0.5 if scale is None else scale
        self.sliding_window = sliding_window
        self.softcap = softcap
        self.block_sparse: BlockSparsePattern | None = None
        # Bound by ModelRunner.allocate_kv_cache: views into the runner's preallocated cache and this layer's
        # index in the forward context's cache list.
        self.k_cache = torch.empty(0)
        self.v_cache = torch.empty(0)
        self.layer_index = -1

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                meta: AttentionMetadata | None) -> torch.Tensor:
        if torch.compiler.is_compiling():
            if self.block_sparse is None and q.device.type == "cpu" and dispatch.cpu_attention_step_runs():
                return torch.ops.warden_cpu.attend_step(q, k, v, self.layer_index, self.scale, self.sliding_window,
                                                        self.softcap)
            sparse = self.block_sparse.as_ints() if self.block_sparse is not None else []
            return torch.ops.warden.paged_attention(q, k, v, self.layer_index, self.scale, self.sliding_window,
                                                    self.softcap, sparse)
        assert meta is not None, "eager attention takes the step's metadata"
        return _store_and_attend(q, k, v, self.k_cache, self.v_cache, meta, self.scale, self.sliding_window,
                                 self.softcap, self.block_sparse)
