"""Mixture-of-experts feed-forward (vLLM's ``FusedMoE`` vocabulary): a router, top-k expert selection, the routed
experts' SwiGLU MLPs as one grouped kernel, and optionally a shared expert behind a sigmoid gate (Qwen2-MoE).

Routing follows transformers exactly: softmax over the router logits in float32, the top ``k`` probabilities, and,
where the family renormalises (Mixtral always; Qwen2-MoE when ``norm_topk_prob``), those ``k`` divided by their sum.
The experts' weights are stacked, ``w13`` ``[experts, 2 * inter, hidden]`` (gate rows then up rows, the fused layout
of the dense MLP's ``gate_up_proj``) and ``w2`` ``[experts, hidden, inter]``; ``kernels.dispatch.fused_moe`` runs
them (grouped GEMMs: rows sorted by expert once, one GEMM per expert over its contiguous rows, scattered back
weighted). The router, the expert stacks and the shared expert's gate are plain parameters, not ``Linear`` layers,
so the engine's int8/int4 serving copies never touch them: a quantized router could pick other experts.

Under tensor parallelism every expert's intermediate width is split over the ranks (vLLM's TP MoE): ``w13`` holds
this rank's gate and up rows, ``w2`` the matching columns, the router is whole on every rank, and the partial
outputs are summed across ranks after the grouped kernel (the shared expert, a tensor-parallel MLP, sums its own).

Inside a compiled forward (``engine.worker.compilation``) the grouped kernel is one opaque operator,
``warden::fused_moe``: its row counts per expert depend on the routing, which the compiler must not specialise on.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank, all_reduce
from kernels import dispatch

_LIBRARY = torch.library.Library("warden", "FRAGMENT")
_LIBRARY.define("fused_moe(Tensor x, Tensor w13, Tensor w2, Tensor topk_weights, Tensor topk_ids) -> Tensor")
_LIBRARY.impl("fused_moe", dispatch.fused_moe, "CompositeExplicitAutograd")


@torch.library.register_fake("warden::fused_moe")
def _fused_moe_shape(x: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor, topk_weights: torch.Tensor,
                     topk_ids: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


def select_experts(router_logits: torch.Tensor, top_k: int, renormalize: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """float32 routing weights ``[tokens, top_k]`` and the experts they go to (int64, same shape)."""
    probs = torch.softmax(router_logits.float(), dim=-1)
    weights, ids = torch.topk(probs, top_k, dim=-1)
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights, ids


class FusedMoE(nn.Module):
    """The routed experts and their router; ``shared_expert`` (an MLP of the model's own kind) is added, scaled by
    ``sigmoid(x @ shared_expert_gate.T)``, where the family has one. ``intermediate_size``: each expert's width on
    this rank (its share under tensor parallelism)."""

    def __init__(self, num_experts: int, top_k: int, hidden_size: int, intermediate_size: int, renormalize: bool,
                 shared_expert: nn.Module | None = None, tp: TensorParallelRank | None = None) -> None:
        super().__init__()
        self.num_experts, self.top_k, self.renormalize = num_experts, top_k, renormalize
        self.tp = tp or TensorParallelRank()
        self.intermediate_size = intermediate_size
        self.gate = nn.Parameter(torch.empty(num_experts, hidden_size), requires_grad=False)
        self.w13_weight = nn.Parameter(torch.empty(num_experts, 2 * intermediate_size, hidden_size),
                                       requires_grad=False)
        self.w2_weight = nn.Parameter(torch.empty(num_experts, hidden_size, intermediate_size), requires_grad=False)
        self.shared_expert = shared_expert
        self.shared_expert_gate = nn.Parameter(torch.empty(1, hidden_size), requires_grad=False) \
            if shared_expert is not None else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        topk_weights, topk_ids = select_experts(F.linear(x, self.gate), self.top_k, self.renormalize)
        if torch.compiler.is_compiling():
            out = torch.ops.warden.fused_moe(x, self.w13_weight, self.w2_weight, topk_weights, topk_ids)
        else:
            out = dispatch.fused_moe(x, self.w13_weight, self.w2_weight, topk_weights, topk_ids)
        if self.tp.size > 1:
            out = all_reduce(out)
        if self.shared_expert is not None and self.shared_expert_gate is not None:
            out = out + torch.sigmoid(F.linear(x, self.shared_expert_gate)) * self.shared_expert(x)
        return out
