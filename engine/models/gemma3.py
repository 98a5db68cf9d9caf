"""Gemma 3 (text): Gemma 2's decoder (``engine.models.gemma2``) with what Gemma 3 changed.

* Five windowed layers to one global (the config's ``layer_types``), so, as for Gemma 2, no KV block can be freed
  before its sequence ends.
* The windowed layers rotate with their own RoPE base (``rope_local_base_freq``, 10k) while the global layers keep
  ``rope_theta`` (1M) and its scaling (linear for the larger checkpoints): two rotary tables.
* Each query and key head is RMS-normalised (``q_norm``/``k_norm``, ``1 + weight`` like every Gemma norm, folded at
  load) before RoPE.
* No soft-capping of the attention or final logits (the config's caps are null).
"""

from __future__ import annotations

import torch
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank
from engine.layers.norm import RMSNorm
from engine.layers.rotary import RotaryEmbedding
from engine.models.config import ModelArchConfig
from engine.models.gemma2 import Gemma2DecoderLayer, Gemma2ForCausalLM
from engine.models.llama import LlamaAttention
from kernels.attention_metadata import AttentionMetadata


class Gemma3Attention(LlamaAttention):
    def __init__(self, cfg: ModelArchConfig, rotary: RotaryEmbedding, tp: TensorParallelRank) -> None:
        super().__init__(cfg, rotary, tp)
        self.q_norm = RMSNorm(cfg.head_dim, cfg.rms_norm_eps)
        self.k_norm = RMSNorm(cfg.head_dim, cfg.rms_norm_eps)

    def forward(self, positions: torch.Tensor, x: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        q, k, v = self.qkv_proj(x).split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        # One row per head for the norms (the RMSNorm kernels take [rows, width]).
        q = self.q_norm(q.reshape(-1, self.head_dim)).view(-1, self.num_heads, self.head_dim)
        k = self.k_norm(k.reshape(-1, self.head_dim)).view(-1, self.num_kv_heads, self.head_dim)
        q, k = self.rotary(positions, q, k)
        out = self.attn(q, k, v.reshape(-1, self.num_kv_heads, self.head_dim), meta)
        return self.o_proj(out.reshape(-1, self.q_size))


class Gemma3ForCausalLM(Gemma2ForCausalLM):
    def make_layer(self, index: int) -> nn.Module:
        cfg = self.config
        rotary = self.rotary
        if cfg.layer_window(index) > 0 and cfg.local_rope_theta is not None:
            rotary = self._local_rotary(cfg.local_rope_theta)
        return Gemma2DecoderLayer(cfg, rotary, self.tp, attention=Gemma3Attention(cfg, rotary, self.tp))

    def _local_rotary(self, theta: float) -> RotaryEmbedding:
        """The windowed layers' rotary table (plain RoPE at ``local_rope_theta``), made with the first of them:
        ``make_layer`` runs inside the base constructor, after ``self.rotary`` exists."""
        if "local_rotary" not in self._modules:
            self.local_rotary = RotaryEmbedding(self.config.head_dim, self.rotary.max_position, theta, None)
        return self.local_rotary
