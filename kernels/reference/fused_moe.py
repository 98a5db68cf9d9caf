"""Mixture-of-experts feed-forward over routed tokens: the definition every kernel is checked against.

``fused_moe(x, w13, w2, topk_weights, topk_ids)``: token ``t`` goes through each of its ``k`` experts ``e =
topk_ids[t, j]``, a SwiGLU MLP ``w2[e] @ (silu(gate) * up)`` with ``gate|up = w13[e] @ x[t]``, and the outputs are
summed weighted by ``topk_weights[t, j]``. Shapes: ``x`` ``[tokens, hidden]``, ``w13`` ``[experts, 2 * inter,
hidden]`` (gate rows, then up rows), ``w2`` ``[experts, hidden, inter]``, ``topk_weights`` float32 ``[tokens, k]``,
``topk_ids`` integer ``[tokens, k]``; returns ``[tokens, hidden]`` in ``x``'s dtype.

This is the naive per-expert loop (what transformers runs): each expert finds its tokens with a mask over the whole
routing table, gathers them, and adds its weighted output back. The dispatched kernels group the rows by expert once
instead (``kernels.cpu.fused_moe``, ``kernels.triton.fused_moe``).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def fused_moe(x: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor, topk_weights: torch.Tensor,
              topk_ids: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(x.shape[0], x.shape[1], dtype=torch.float32, device=x.device)
    for expert in torch.unique(topk_ids).tolist():
        tokens, slots = torch.where(topk_ids == expert)
        gate, up = F.linear(x[tokens], w13[expert]).chunk(2, dim=-1)
        y = F.linear(F.silu(gate) * up, w2[expert])
        out.index_add_(0, tokens, y.float() * topk_weights[tokens, slots, None])
    return out.to(x.dtype)
