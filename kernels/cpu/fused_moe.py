"""Grouped mixture-of-experts feed-forward for CPU tensors (``kernels.reference.fused_moe``'s signature).

The (token, slot) pairs are sorted by expert once, the tokens' rows gathered in that order, and each expert runs one
GEMM over its contiguous rows (written in place into one buffer), the activation runs once over all rows, and the
weighted rows are added back to their tokens in one ``index_add_``. The reference instead scans the whole routing
table once per expert (a mask, a ``where``, a gather, an activation and an ``index_add_`` each), so this saves per
expert the ops around its two GEMMs: what a step of few tokens over many experts pays for. Where the GEMMs
dominate (wide experts, many tokens) both run the same GEMMs; those stream each expert's weights once per call, so
a C++ loop over the experts would only save the Python calls of two GEMMs per expert, and is not built
(bench/families.py times both paths per family: ``moe_kernel`` in bench/results/families.json).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def expert_groups(topk_ids: torch.Tensor, num_experts: int) -> tuple[torch.Tensor, list[int]]:
    """The flat (token * k + slot) indices sorted by expert (stable: token order within an expert), and how many
    rows each expert has."""
    flat = topk_ids.reshape(-1)
    order = torch.argsort(flat, stable=True)
    counts = torch.bincount(flat, minlength=num_experts).tolist()
    return order, counts


def fused_moe(x: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor, topk_weights: torch.Tensor,
              topk_ids: torch.Tensor) -> torch.Tensor:
    k = topk_ids.shape[1]
    order, counts = expert_groups(topk_ids, w13.shape[0])
    token_of = order // k
    rows = x.index_select(0, token_of)
    gate_up = x.new_empty(rows.shape[0], w13.shape[1])
    _grouped_mm(rows, w13, counts, gate_up)
    inter = w13.shape[1] // 2
    act = F.silu(gate_up[:, :inter]) * gate_up[:, inter:]
    down = x.new_empty(rows.shape[0], w2.shape[1])
    _grouped_mm(act, w2, counts, down)
    weighted = down.float() * topk_weights.reshape(-1).index_select(0, order).unsqueeze(1)
    out = torch.zeros(x.shape[0], x.shape[1], dtype=torch.float32, device=x.device)
    return out.index_add_(0, token_of, weighted).to(x.dtype)


def _grouped_mm(rows: torch.Tensor, weights: torch.Tensor, counts: list[int], out: torch.Tensor) -> None:
    """``out[rows of e] = rows[rows of e] @ weights[e].T`` for each expert's contiguous rows."""
    start = 0
    for expert, n in enumerate(counts):
        if n:
            torch.mm(rows[start:start + n], weights[expert].t(), out=out[start:start + n])
            start += n
