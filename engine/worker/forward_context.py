"""The step's attention metadata, reachable from inside a compiled forward (vLLM's forward context).

A compiled graph cannot take ``AttentionMetadata`` as an argument without specialising on its integers (every
step would recompile), so the compiled model sees only token ids and positions, and the attention layers reach
the step's metadata and their KV cache through this context, set by the runner around each forward.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from kernels.attention_metadata import AttentionMetadata


@dataclass(slots=True)
class ForwardContext:
    attn_metadata: AttentionMetadata
    # layer index -> (k_cache, v_cache) of that layer, [num_blocks, block_size, kv_heads, head_dim] each
    kv_caches: Sequence[tuple]


_context: ForwardContext | None = None


@contextmanager
def forward_context(meta: AttentionMetadata, kv_caches: Sequence[tuple]) -> Iterator[None]:
    global _context
    previous, _context = _context, ForwardContext(meta, kv_caches)
    try:
        yield
    finally:
        _context = previous


def get_forward_context() -> ForwardContext:
    if _context is None:
        raise RuntimeError("attention ran outside a forward context (ModelRunner sets one around each forward)")
    return _context
