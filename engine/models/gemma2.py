"""Gemma 2: Llama's attention and paged cache with Gemma's own decoder around them.

What differs from ``engine.models.llama``:

* Layers alternate a sliding-window attention and a global one (``ModelArchConfig.layer_windows``, from the config's
  ``layer_types``), so the KV blocks of a long sequence can never be freed: its global layers still read them.
* Attention scores are scaled by ``query_pre_attn_scalar ** -0.5`` rather than ``head_dim ** -0.5`` and
  soft-capped (``c * tanh(s / c)``, ``attn_logit_softcapping``) inside the kernel; the final logits are
  soft-capped too (``final_logit_softcapping``).
* Four norms per layer: the attention and the feed-forward outputs are each normalised (``post_attention_layernorm``,
  ``post_feedforward_layernorm``) before they join the residual stream, and the feed-forward input has its own
  (``pre_feedforward_layernorm``). Every RMSNorm multiplies by ``1 + weight``: the 1 is folded into the weight once
  at load, so the shared RMSNorm kernels serve unchanged.
* The feed-forward is GeGLU with tanh-approximated GeLU (``gelu_pytorch_tanh``).
* Token embeddings are multiplied by ``sqrt(hidden_size)`` (rounded to the model's dtype, as transformers does),
  and the LM head is tied to them.

Q/K/V, gate/up fusion, tensor-parallel slicing and the HF weight names are Llama's (``LlamaForCausalLM.load_weights``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank
from engine.layers.norm import RMSNorm
from engine.layers.rotary import RotaryEmbedding
from engine.models.config import ModelArchConfig
from engine.models.llama import LlamaAttention, LlamaForCausalLM, LlamaMLP
from kernels.attention_metadata import AttentionMetadata

# transformers' names for the tanh approximation of GeLU (Gemma's configs use the first).
_GELU_TANH = ("gelu_pytorch_tanh", "gelu_tanh", "gelu_new", "gelu_fast")


class Gemma2MLP(LlamaMLP):
    """``down(gelu_tanh(gate(x)) * up(x))`` over Llama's fused gate|up projection."""

    def __init__(self, cfg: ModelArchConfig, tp: TensorParallelRank) -> None:
        super().__init__(cfg, tp)
        if cfg.hidden_activation not in _GELU_TANH:
            raise ValueError(f"gemma2: unsupported hidden_activation {cfg.hidden_activation!r}")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = self.gate_up_proj(x).chunk(2, dim=-1)
        return self.down_proj(F.gelu(gate, approximate="tanh") * up)


class Gemma2DecoderLayer(nn.Module):
    """``attention``: where a family's differs from Llama's (Gemma 3 normalises query and key heads)."""

    def __init__(self, cfg: ModelArchConfig, rotary: RotaryEmbedding, tp: TensorParallelRank,
                 attention: LlamaAttention | None = None) -> None:
        super().__init__()
        self.self_attn = attention if attention is not None else LlamaAttention(cfg, rotary, tp)
        attn = self.self_attn.attn
        attn.scale = (cfg.query_pre_attn_scalar or cfg.head_dim) ** -0.5
        attn.softcap = cfg.attn_logit_softcapping or 0.0
        self.mlp = Gemma2MLP(cfg, tp)
        eps = cfg.rms_norm_eps
        self.input_layernorm = RMSNorm(cfg.hidden_size, eps)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, eps)
        self.pre_feedforward_layernorm = RMSNorm(cfg.hidden_size, eps)
        self.post_feedforward_layernorm = RMSNorm(cfg.hidden_size, eps)

    def forward(
        self, positions: torch.Tensor, x: torch.Tensor, residual: torch.Tensor | None, meta: AttentionMetadata
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``x``: the previous layer's output not yet added to the ``residual`` stream (the first layer: the
        embeddings, and no residual). Returns this layer's output and the stream it is to be added to."""
        if residual is None:
            residual, h = x, self.input_layernorm(x)
        else:
            h, residual = self.input_layernorm(x, residual)
        h = self.post_attention_layernorm(self.self_attn(positions, h, meta))
        h, residual = self.pre_feedforward_layernorm(h, residual)
        return self.post_feedforward_layernorm(self.mlp(h)), residual


class Gemma2ForCausalLM(LlamaForCausalLM):
    def __init__(self, cfg: ModelArchConfig, max_position: int, tp: TensorParallelRank | None = None) -> None:
        super().__init__(cfg, max_position, tp)
        # transformers multiplies by sqrt(hidden) rounded to the embeddings' dtype: kept as a float32 buffer and
        # rounded to the activations' dtype per call, so it follows model.to(dtype).
        self.register_buffer("embed_scale", torch.tensor(cfg.hidden_size**0.5), persistent=False)

    def make_layer(self, index: int) -> nn.Module:
        return Gemma2DecoderLayer(self.config, self.rotary, self.tp)

    def embed(self, input_ids: torch.Tensor) -> torch.Tensor:
        x = self.embed_tokens(input_ids)
        return x * self.embed_scale.to(x.dtype)  # Gemma scales its embeddings by sqrt(hidden)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        logits = self.lm_head(hidden).float()
        cap = self.config.final_logit_softcapping
        return torch.tanh(logits / cap) * cap if cap else logits

    def load_weights(self, weights: Iterable[tuple[str, Any]]) -> set[str]:
        return super().load_weights(_fold_norm_offsets(weights))


def _fold_norm_offsets(weights: Iterable[tuple[str, Any]]) -> Iterator[tuple[str, Any]]:
    """Gemma's checkpoints store each RMSNorm's ``weight`` for a ``1 + weight`` multiplier: add the 1 (in float32)."""
    for name, tensor in weights:
        if name.endswith("norm.weight"):
            whole = tensor if isinstance(tensor, torch.Tensor) else tensor[:]
            tensor = whole.float() + 1.0
        yield name, tensor
