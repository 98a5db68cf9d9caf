"""Llama-family decoder (Llama 2/3, Mistral, Qwen2, SmolLM): RMSNorm, RoPE, GQA, SwiGLU, tied or untied head.
Mistral is this model with each layer's attention windowed (``ModelArchConfig.layer_windows``).

Q/K/V and gate/up are fused into one matmul each (fewer, larger kernels); ``load_weights`` takes HF-named
tensors and copies each shard into its slice of the fused weight. Under tensor parallelism each rank builds the
model with its slice of the heads, the intermediate size and the vocabulary (``engine.distributed.sharding``), and
``load_weights`` cuts each checkpoint tensor down to that slice.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import torch
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank
from engine.distributed.sharding import attention_shard, check_tensor_parallel, vocab_shard
from engine.layers.attention import PagedAttention
from engine.layers.linear import Linear, RowParallelLinear
from engine.layers.norm import RMSNorm
from engine.layers.rotary import RotaryEmbedding
from engine.layers.vocab_parallel import ParallelLMHead, VocabParallelEmbedding
from engine.models.config import ModelArchConfig
from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata


class LlamaAttention(nn.Module):
    def __init__(self, cfg: ModelArchConfig, rotary: RotaryEmbedding, tp: TensorParallelRank) -> None:
        super().__init__()
        shard = attention_shard(cfg, tp.rank, tp.size)
        self.num_heads, self.num_kv_heads, self.head_dim = shard.num_heads, shard.num_kv_heads, cfg.head_dim
        self.q_size = self.num_heads * self.head_dim
        self.kv_size = self.num_kv_heads * self.head_dim
        # Column-parallel (this rank's heads), then row-parallel back to the full hidden size.
        self.qkv_proj = Linear(cfg.hidden_size, self.q_size + 2 * self.kv_size, bias=cfg.attention_bias)
        self.o_proj = RowParallelLinear(self.q_size, cfg.hidden_size, tp)
        self.rotary = rotary
        self.attn = PagedAttention(self.num_heads, self.num_kv_heads, self.head_dim)

    def forward(self, positions: torch.Tensor, x: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        q, k, v = self.qkv_proj(x).split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q = q.view(-1, self.num_heads, self.head_dim)
        k = k.view(-1, self.num_kv_heads, self.head_dim)
        q, k = self.rotary(positions, q, k)
        out = self.attn(q, k, v.view(-1, self.num_kv_heads, self.head_dim), meta)
        return self.o_proj(out.reshape(-1, self.q_size))


class LlamaMLP(nn.Module):
    def __init__(self, cfg: ModelArchConfig, tp: TensorParallelRank, intermediate_size: int | None = None) -> None:
        super().__init__()
        self.intermediate = (intermediate_size or cfg.intermediate_size) // tp.size
        self.gate_up_proj = Linear(cfg.hidden_size, 2 * self.intermediate)  # column-parallel
        self.down_proj = RowParallelLinear(self.intermediate, cfg.hidden_size, tp)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(dispatch.silu_and_mul(self.gate_up_proj(x)))


class LlamaDecoderLayer(nn.Module):
    """``mlp``: the feed-forward, where a family's differs from the dense SwiGLU (a mixture of experts)."""

    def __init__(self, cfg: ModelArchConfig, rotary: RotaryEmbedding, tp: TensorParallelRank,
                 mlp: nn.Module | None = None) -> None:
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.self_attn = LlamaAttention(cfg, rotary, tp)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.mlp = mlp if mlp is not None else LlamaMLP(cfg, tp)

    def forward(
        self, positions: torch.Tensor, x: torch.Tensor, residual: torch.Tensor | None, meta: AttentionMetadata
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            residual, x = x, self.input_layernorm(x)
        else:
            x, residual = self.input_layernorm(x, residual)
        x = self.self_attn(positions, x, meta)
        x, residual = self.post_attention_layernorm(x, residual)
        return self.mlp(x), residual


class LlamaForCausalLM(nn.Module):
    def __init__(self, cfg: ModelArchConfig, max_position: int, tp: TensorParallelRank | None = None) -> None:
        super().__init__()
        tp = tp or TensorParallelRank()
        check_tensor_parallel(cfg, tp.size)
        self.config, self.tp = cfg, tp
        self.rotary = RotaryEmbedding(cfg.head_dim, max_position, cfg.rope_theta, cfg.rope_scaling)
        self.embed_tokens = VocabParallelEmbedding(cfg.vocab_size, cfg.hidden_size, tp)
        self.layers = nn.ModuleList(self.make_layer(i) for i in range(cfg.num_hidden_layers))
        for index, layer in enumerate(self.layers):  # Mistral's sliding window (0: global), whatever the layer kind
            attention = cast(LlamaAttention, layer.self_attn)  # every family's layers attend through one
            attention.attn.sliding_window = cfg.layer_window(index)
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.lm_head = ParallelLMHead(cfg.hidden_size, cfg.vocab_size, tp)
        if cfg.tie_word_embeddings:
            self.lm_head.weight = self.embed_tokens.weight

    def make_layer(self, index: int) -> nn.Module:
        """Decoder layer ``index`` (a family whose layers differ overrides this; ``config``, ``rotary`` and ``tp``
        are set)."""
        return LlamaDecoderLayer(self.config, self.rotary, self.tp)

    def forward(self, input_ids: torch.Tensor, positions: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        """Final hidden states ``[num_tokens, hidden]`` of the flattened batch."""
        x = self.embed(input_ids)
        residual = None
        for layer in self.layers:
            x, residual = layer(positions, x, residual, meta)
        x, _ = self.norm(x, residual)
        return x

    def embed(self, input_ids: torch.Tensor) -> torch.Tensor:
        """The input embeddings (a family that scales them overrides this)."""
        return self.embed_tokens(input_ids)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden).float()

    def load_weights(self, weights: Iterable[tuple[str, Any]]) -> set[str]:
        """Copy HF-named tensors into the (fused, this rank's slice of the) parameters; returns the names filled.
        A weight may also be a lazily read safetensors slice: then only this rank's part is read."""
        params = dict(self.named_parameters(remove_duplicate=False))
        loaded: set[str] = set()
        cfg = self.config
        slices = _rank_slices(cfg, self.tp)
        for name, tensor in weights:
            if name == "rope_freqs":
                self.rotary.set_freq_factors(tensor)
                continue
            name = name.removeprefix("model.")
            if name == "lm_head.weight" and cfg.tie_word_embeddings:
                continue
            parts = name.split(".")
            target, cut = name, None
            for short, (fused_name, rank_slice) in slices.items():
                if short in parts:
                    target, cut = name.replace(short, fused_name), rank_slice
                    break
            param = params.get(target)
            if param is None:
                continue  # e.g. rotary inv_freq buffers saved by old checkpoints
            tensor = cut.source(tensor) if cut is not None else _read_whole(tensor)
            with torch.no_grad():
                dest = param if cut is None else cut.dest(param)
                if dest.shape != tensor.shape:
                    raise ValueError(f"{name}: checkpoint shape {tuple(tensor.shape)} != model {tuple(dest.shape)}")
                dest.copy_(tensor)
            loaded.add(target)
        return loaded


def _read_whole(tensor: Any) -> torch.Tensor:
    return tensor if isinstance(tensor, torch.Tensor) else tensor[:]


class _RankSlice:
    """Where one checkpoint tensor goes on this rank: the rows (or, for row-parallel weights, the columns) it
    keeps, and the rows of the (fused) parameter they fill."""

    def __init__(self, dim: int, start: int, length: int, dest_offset: int = 0, dest_length: int | None = None
                 ) -> None:
        self.dim, self.start, self.length = dim, start, length
        self.dest_offset, self.dest_length = dest_offset, length if dest_length is None else dest_length

    def source(self, tensor: Any) -> torch.Tensor:
        """This rank's part of a checkpoint tensor (or of a lazy safetensors slice, reading only that part)."""
        dims = len(tensor.shape) if isinstance(tensor, torch.Tensor) else len(tensor.get_shape())
        if self.dim >= dims:  # a row-parallel layer's bias is whole on every rank
            return _read_whole(tensor)
        index = (slice(None),) * self.dim + (slice(self.start, self.start + self.length),)
        return tensor[index]

    def dest(self, param: torch.Tensor) -> torch.Tensor:
        return param.narrow(0, self.dest_offset, self.dest_length) if self.dim == 0 else param


def _rank_slices(cfg: ModelArchConfig, tp: TensorParallelRank) -> dict[str, tuple[str, _RankSlice]]:
    """Checkpoint weight name part -> (this model's parameter name part, this rank's slice). At one rank every
    slice is the whole tensor; the fused ones still place q/k/v and gate/up side by side."""
    attn = attention_shard(cfg, tp.rank, tp.size)
    hd = cfg.head_dim
    q, kv = attn.num_heads * hd, attn.num_kv_heads * hd
    inter = cfg.intermediate_size // tp.size
    vocab = vocab_shard(cfg.vocab_size, tp.rank, tp.size)
    vocab_rows = _RankSlice(0, vocab.start, vocab.end - vocab.start)  # padding rows stay zero
    return {
        "q_proj": ("qkv_proj", _RankSlice(0, attn.head_start * hd, q)),
        "k_proj": ("qkv_proj", _RankSlice(0, attn.kv_head_start * hd, kv, dest_offset=q)),
        "v_proj": ("qkv_proj", _RankSlice(0, attn.kv_head_start * hd, kv, dest_offset=q + kv)),
        "o_proj": ("o_proj", _RankSlice(1, tp.rank * q, q)),
        "gate_proj": ("gate_up_proj", _RankSlice(0, tp.rank * inter, inter)),
        "up_proj": ("gate_up_proj", _RankSlice(0, tp.rank * inter, inter, dest_offset=inter)),
        "down_proj": ("down_proj", _RankSlice(1, tp.rank * inter, inter)),
        "embed_tokens": ("embed_tokens", vocab_rows),
        "lm_head": ("lm_head", vocab_rows),
    }
