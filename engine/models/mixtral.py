"""Mixtral: Llama's decoder (attention, norms, RoPE, embeddings and head from ``engine.models.llama``) with every
feed-forward a sparse mixture of SwiGLU experts (``engine.layers.fused_moe``), top-k routed and renormalised.

``load_weights`` stacks the experts' tensors into the layer's ``w13_weight``/``w2_weight`` from either layout a
checkpoint has: one tensor per expert (``block_sparse_moe.experts.{e}.w1|w3|w2.weight``, the Hub's Mixtral files and
what transformers still writes) or transformers' stacked ``mlp.experts.gate_up_proj``/``down_proj``. Everything else
goes through Llama's loader. A stack counts as loaded only once every expert's piece has arrived, so a checkpoint
missing one expert fails the load instead of serving uninitialised weights.

Tensor parallelism splits each expert's intermediate width over the ranks (``engine.layers.fused_moe``): a rank
reads its rows of every gate/up tensor and its columns of every down tensor (only those, from a lazily read
checkpoint), the attention and dense layers split as Llama's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

import torch
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank
from engine.layers.fused_moe import FusedMoE
from engine.models.config import ModelArchConfig
from engine.models.llama import LlamaDecoderLayer, LlamaForCausalLM
from engine.models.weights import copy_weight

# The MoE block is ``block_sparse_moe`` in Mixtral's files and ``mlp`` in Qwen2-MoE's and transformers' own.
_BLOCK = r"^layers\.(\d+)\.(?:block_sparse_moe|mlp)\."
_EXPERT = re.compile(_BLOCK + r"experts\.(\d+)\.(w1|w2|w3|gate_proj|up_proj|down_proj)\.weight$")
_STACKED = re.compile(_BLOCK + r"experts\.(gate_up_proj|down_proj)$")
_ROUTER = re.compile(_BLOCK + r"gate\.weight$")
# Which half of w13 (gate rows first, then up rows) or w2 each per-expert tensor fills.
_PIECE = {"w1": ("w13_weight", 0), "gate_proj": ("w13_weight", 0), "w3": ("w13_weight", 1),
          "up_proj": ("w13_weight", 1), "w2": ("w2_weight", None), "down_proj": ("w2_weight", None)}


def _read(tensor: Any) -> torch.Tensor:
    return tensor if isinstance(tensor, torch.Tensor) else tensor[:]


def slice_along(tensor: Any, dim: int, start: int, length: int) -> torch.Tensor:
    """``[start, start + length)`` along ``dim`` of a tensor or a lazy safetensors slice (reading only that part)."""
    return tensor[(slice(None),) * dim + (slice(start, start + length),)]


class MixtralForCausalLM(LlamaForCausalLM):
    def __init__(self, cfg: ModelArchConfig, max_position: int, tp: TensorParallelRank | None = None) -> None:
        if cfg.num_experts <= 0 or not 0 < cfg.num_experts_per_tok <= cfg.num_experts:
            raise ValueError(f"{cfg.architecture}: {cfg.num_experts} experts with top-{cfg.num_experts_per_tok}")
        super().__init__(cfg, max_position, tp)
        self._pieces: Counter[str] = Counter()  # per expert stack, the per-expert tensors loaded so far

    def make_layer(self, index: int) -> nn.Module:
        cfg = self.config
        if not cfg.is_moe_layer(index):
            return LlamaDecoderLayer(cfg, self.rotary, self.tp)
        moe = FusedMoE(cfg.num_experts, cfg.num_experts_per_tok, cfg.hidden_size,
                       cfg.moe_intermediate_size // self.tp.size, renormalize=cfg.norm_topk_prob,
                       shared_expert=self.make_shared_expert(), tp=self.tp)
        return LlamaDecoderLayer(cfg, self.rotary, self.tp, mlp=moe)

    def make_shared_expert(self) -> nn.Module | None:
        """The always-on expert beside the routed ones, for families that have one (Mixtral has none)."""
        return None

    def load_moe_weight(self, name: str, tensor: Any, params: dict[str, nn.Parameter]) -> tuple[bool, str | None]:
        """Copy one checkpoint tensor (``model.`` prefix removed) of a MoE block into its place: whether ``name`` is
        one, and the parameter it completes (None while a stack still waits for other experts' pieces)."""
        if m := _ROUTER.match(name):
            return True, self._copy(params, f"layers.{m[1]}.mlp.gate", tensor)
        width, start = self._rank_width(self.config.moe_intermediate_size)
        if m := _EXPERT.match(name):
            layer, expert, (stack, half) = m[1], int(m[2]), _PIECE[m[3]]
            target = f"layers.{layer}.mlp.{stack}"
            dest = self._param(params, target)[expert]
            if half is not None:  # this rank's rows of the gate or up projection
                dest, tensor = dest.narrow(0, half * width, width), slice_along(tensor, 0, start, width)
            else:  # this rank's columns of the down projection
                tensor = slice_along(tensor, 1, start, width)
            self._fill(name, dest, tensor)
            self._pieces[target] += 1
            # w13 takes two pieces per expert (gate and up), w2 one.
            needed = self.config.num_experts * (2 if half is not None else 1)
            return True, target if self._pieces[target] == needed else None
        if m := _STACKED.match(name):
            if m[2] == "down_proj":  # [experts, hidden, inter]
                return True, self._copy(params, f"layers.{m[1]}.mlp.w2_weight", slice_along(tensor, 2, start, width))
            full = self.config.moe_intermediate_size  # [experts, 2 * inter, hidden]: gate rows, then up rows
            rows = torch.cat([slice_along(tensor, 1, start, width), slice_along(tensor, 1, full + start, width)], dim=1)
            return True, self._copy(params, f"layers.{m[1]}.mlp.w13_weight", rows)
        return False, None

    def load_weights(self, weights: Iterable[tuple[str, Any]]) -> set[str]:
        params = dict(self.named_parameters(remove_duplicate=False))
        self._pieces.clear()
        loaded: set[str] = set()

        def dense_weights() -> Iterable[tuple[str, Any]]:
            for name, tensor in weights:
                handled, done = self.load_moe_weight(name.removeprefix("model."), tensor, params)
                if not handled:
                    yield name, tensor
                elif done is not None:
                    loaded.add(done)

        loaded |= super().load_weights(dense_weights())
        return loaded

    def _rank_width(self, full: int) -> tuple[int, int]:
        """This rank's share of an intermediate width ``full``, and where it starts."""
        width = full // self.tp.size
        return width, self.tp.rank * width

    @staticmethod
    def _param(params: dict[str, nn.Parameter], target: str) -> nn.Parameter:
        if target not in params:
            raise ValueError(f"{target}: not a parameter of this model (a MoE tensor for a dense layer?)")
        return params[target]

    def _copy(self, params: dict[str, nn.Parameter], target: str, tensor: Any) -> str:
        self._fill(target, self._param(params, target), tensor)
        return target

    @staticmethod
    def _fill(name: str, dest: torch.Tensor, tensor: Any) -> None:
        copy_weight(name, dest, _read(tensor))
