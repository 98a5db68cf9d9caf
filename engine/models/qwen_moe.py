"""Qwen2-MoE (Qwen1.5-MoE, Qwen2-57B-A14B): Mixtral's decoder with q/k/v biases, routed experts whose top-k weights
are renormalised only under ``norm_topk_prob``, a shared expert (a dense SwiGLU MLP of its own width) added to every
token scaled by ``sigmoid(x @ shared_expert_gate.T)``, and optionally some layers dense (``mlp_only_layers``, or
every layer off ``decoder_sparse_step``), which load as Llama's MLP.

Qwen3-MoE (Qwen3-30B-A3B, Qwen3-235B-A22B): the same routing and dense layers, no shared expert and no q/k/v biases,
and each query and key head RMS-normalised before RoPE: the attention of ``engine.models.gemma3`` (Llama's with
``q_norm``/``k_norm``), whose checkpoint names Qwen3 shares.

Tensor parallelism: each routed expert and the shared expert split over the ranks by intermediate width, as Mixtral's.
"""

from __future__ import annotations

import re
from typing import Any

from torch import nn

from engine.models.gemma3 import Gemma3Attention
from engine.models.llama import LlamaMLP
from engine.models.mixtral import MixtralForCausalLM, slice_along

_SHARED = re.compile(r"^layers\.(\d+)\.mlp\.shared_expert\.(gate_proj|up_proj|down_proj)\.weight$")
_SHARED_GATE = re.compile(r"^layers\.(\d+)\.mlp\.shared_expert_gate\.weight$")


class Qwen2MoeForCausalLM(MixtralForCausalLM):
    def make_shared_expert(self) -> nn.Module | None:
        size = self.config.shared_expert_intermediate_size
        return LlamaMLP(self.config, self.tp, intermediate_size=size) if size > 0 else None

    def load_moe_weight(self, name: str, tensor: Any, params: dict[str, nn.Parameter]) -> tuple[bool, str | None]:
        if m := _SHARED_GATE.match(name):
            return True, self._copy(params, f"layers.{m[1]}.mlp.shared_expert_gate", tensor)
        if m := _SHARED.match(name):
            prefix = f"layers.{m[1]}.mlp.shared_expert"
            width, start = self._rank_width(self.config.shared_expert_intermediate_size)
            if m[2] == "down_proj":  # row-parallel: this rank's columns
                return True, self._copy(params, f"{prefix}.down_proj.weight", slice_along(tensor, 1, start, width))
            # this rank's gate rows, then its up rows, of the shared expert's fused gate_up_proj
            target = f"{prefix}.gate_up_proj.weight"
            dest = self._param(params, target).narrow(0, 0 if m[2] == "gate_proj" else width, width)
            self._fill(name, dest, slice_along(tensor, 0, start, width))
            self._pieces[target] += 1
            return True, target if self._pieces[target] == 2 else None
        return super().load_moe_weight(name, tensor, params)


class Qwen3MoeForCausalLM(Qwen2MoeForCausalLM):
    def make_layer(self, index: int) -> nn.Module:
        layer = super().make_layer(index)
        layer.self_attn = Gemma3Attention(self.config, self.rotary, self.tp)  # q/k head norms before RoPE
        return layer
