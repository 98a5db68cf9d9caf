"""The step's attention metadata, reachable from inside a compiled forward (vLLM's forward context).

A compiled graph cannot take ``AttentionMetadata`` as an argument without specialising on its integers (every
step would recompile), so the compiled model sees only token ids and positions, and the attention layers reach
the step's metadata and their KV cache through this context, set by the runner around each forward.

On the CPU with the C++ kernels, the same metadata and caches are also handed to ``kernels.cpu.set_attention_step``
(for as long as the context lasts): the compiled layers call ``kernels.cpu.attend_step``, which reads them there,
so no layer's attention enters Python.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch

from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata


@dataclass(slots=True)
class ForwardContext:
    attn_metadata: AttentionMetadata
    # layer index -> (k_cache, v_cache) of that layer, [num_blocks, block_size, kv_heads, head_dim] each
    kv_caches: Sequence[tuple]


_context: ForwardContext | None = None
# The last caches split into per-kind lists for the C++ step state: the runner passes the same list every step.
_split: tuple[Sequence[tuple], list[torch.Tensor], list[torch.Tensor]] | None = None


def _bind_cpu_step(context: ForwardContext | None) -> None:
    """Hand ``context`` (None: no step) to the C++ attention op's state, where it runs."""
    global _split
    kernels = dispatch.cpu_attention_step()
    if kernels is None:
        return
    if context is None or context.attn_metadata.slot_mapping.device.type != "cpu" or not context.kv_caches:
        kernels.clear_attention_step()
        _split = None
        return
    if _split is None or _split[0] is not context.kv_caches:
        caches = context.kv_caches
        _split = (caches, [layer[0] for layer in caches], [layer[1] for layer in caches])
    kernels.set_attention_step(context.attn_metadata, _split[1], _split[2])


@contextmanager
def forward_context(meta: AttentionMetadata, kv_caches: Sequence[tuple]) -> Iterator[None]:
    global _context
    previous, _context = _context, ForwardContext(meta, kv_caches)
    _bind_cpu_step(_context)
    try:
        yield
    finally:
        _context = previous
        _bind_cpu_step(previous)


def get_forward_context() -> ForwardContext:
    if _context is None:
        raise RuntimeError("attention ran outside a forward context (ModelRunner sets one around each forward)")
    return _context
