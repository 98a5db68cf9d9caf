"""Mamba2 (attention-free) causal LM: embeddings, ``num_hidden_layers`` pre-norm blocks of RMSNorm + Mamba2 mixer
with a residual add, a final RMSNorm and the LM head (tied to the embeddings or not), as transformers'
``Mamba2ForCausalLM``.

There is no KV cache: each layer's per-sequence state lives in a ``Mamba2StateCache`` (``allocate_state``), and
every forward takes ``Mamba2BatchMetadata`` (tokens per sequence, tokens already absorbed, slot) in place of
attention metadata. ``Mamba2ServedModel`` is the same model behind the registry's constructor; the runner drives it
through ``forward_step`` with the slots and snapshots of ``engine.scheduling.mamba_state``. One rank only.

``load_weights`` takes HF names (``backbone.embeddings.weight`` or the original checkpoints'
``backbone.embedding.weight``, ``backbone.layers.{i}.norm.weight``, ``backbone.layers.{i}.mixer.*``,
``backbone.norm_f.weight``, ``lm_head.weight``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import torch
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank
from engine.layers.mamba2 import (
    BoundarySnapshot,
    Mamba2BatchMetadata,
    Mamba2Mixer,
    Mamba2MixerConfig,
    Mamba2StateCache,
    MambaStep,
)
from engine.layers.norm import RMSNorm
from engine.layers.vocab_parallel import ParallelLMHead, VocabParallelEmbedding
from engine.models.config import ModelArchConfig
from engine.models.weights import copy_weight
from kernels.attention_metadata import AttentionMetadata


@dataclass(frozen=True)
class Mamba2ModelConfig:
    vocab_size: int
    num_hidden_layers: int
    mixer: Mamba2MixerConfig
    tie_word_embeddings: bool
    residual_in_fp32: bool

    @classmethod
    def from_hf(cls, config: Mapping[str, Any]) -> Mamba2ModelConfig:
        return cls(vocab_size=int(config["vocab_size"]), num_hidden_layers=int(config["num_hidden_layers"]),
                   mixer=Mamba2MixerConfig.from_hf(config),
                   tie_word_embeddings=bool(config.get("tie_word_embeddings", True)),
                   residual_in_fp32=bool(config.get("residual_in_fp32", True)))


class Mamba2Block(nn.Module):
    def __init__(self, cfg: Mamba2ModelConfig) -> None:
        super().__init__()
        self.residual_in_fp32 = cfg.residual_in_fp32
        self.norm = RMSNorm(cfg.mixer.hidden_size, cfg.mixer.norm_eps)
        self.mixer = Mamba2Mixer(cfg.mixer)

    def forward(self, x: torch.Tensor, meta: Mamba2BatchMetadata, state: Mamba2StateCache,
                snapshots: list[BoundarySnapshot] | None = None) -> torch.Tensor:
        """``snapshots``: where to append this layer's boundary snapshots (None: take none)."""
        # As transformers: the residual stream may stay in float32 while the mixer runs in the model dtype.
        dtype = self.norm.weight.dtype
        residual = x.float() if self.residual_in_fp32 else x
        if snapshots is None:
            return residual + self.mixer(self.norm(x.to(dtype)), meta, state)
        out, taken = self.mixer(self.norm(x.to(dtype)), meta, state, boundary_snapshots=True)
        snapshots.extend(taken)
        return residual + out


class Mamba2ForCausalLM(nn.Module):
    def __init__(self, cfg: Mamba2ModelConfig, tp: TensorParallelRank | None = None) -> None:
        super().__init__()
        tp = tp or TensorParallelRank()
        if tp.size != 1:
            raise ValueError("Mamba2 models do not support tensor parallelism yet")
        self.config = cfg
        self.state_chunk_size = cfg.mixer.chunk_size
        hidden = cfg.mixer.hidden_size
        self.embeddings = VocabParallelEmbedding(cfg.vocab_size, hidden, tp)
        self.layers = nn.ModuleList(Mamba2Block(cfg) for _ in range(cfg.num_hidden_layers))
        self.norm_f = RMSNorm(hidden, cfg.mixer.norm_eps)
        self.lm_head = ParallelLMHead(hidden, cfg.vocab_size, tp)
        if cfg.tie_word_embeddings:
            self.lm_head.weight = self.embeddings.weight

    def allocate_state(self, num_slots: int, *, device: torch.device | str = "cpu",
                       ssm_dtype: torch.dtype = torch.float32) -> list[Mamba2StateCache]:
        """One state cache per layer, ``num_slots`` sequences each (conv state in the model dtype)."""
        dtype = self.norm_f.weight.dtype
        return [Mamba2StateCache(self.config.mixer, num_slots, dtype=dtype, ssm_dtype=ssm_dtype, device=device)
                for _ in self.layers]

    def forward(self, input_ids: torch.Tensor, meta: Mamba2BatchMetadata, states: list[Mamba2StateCache],
                snapshots: list[list[BoundarySnapshot]] | None = None) -> torch.Tensor:
        """Final hidden states ``[num_tokens, hidden]`` of the flattened batch; updates each layer's slots. With
        ``snapshots`` (one list per layer), each layer's state at every ``chunk_size`` boundary a sequence reached
        is appended to its list (``restore_snapshot`` puts one position's back into a slot)."""
        if len(states) != len(self.layers):
            raise ValueError(f"{len(states)} state caches for {len(self.layers)} layers")
        if snapshots is not None and len(snapshots) != len(self.layers):
            raise ValueError(f"{len(snapshots)} snapshot lists for {len(self.layers)} layers")
        x = self.embeddings(input_ids)
        for index, (layer, state) in enumerate(zip(self.layers, states, strict=True)):
            x = layer(x, meta, state, None if snapshots is None else snapshots[index])
        # Normalized from the (float32) residual stream like transformers, then in the model dtype for the head.
        return self.norm_f(x).to(self.norm_f.weight.dtype)

    def forward_step(self, input_ids: torch.Tensor, positions: torch.Tensor, meta: AttentionMetadata | None,
                     step: MambaStep) -> torch.Tensor:
        """The engine's forward (``engine.scheduling.mamba_state.StatefulModel``): no attention, so positions and
        attention metadata are unused."""
        return self(input_ids, step.meta, step.caches, step.snapshots)

    @staticmethod
    def restore_snapshot(states: list[Mamba2StateCache], slot: int, layer_snapshots: list[BoundarySnapshot]) -> None:
        """Load one sequence's snapshot at one position (one per layer, in layer order) into ``slot`` of every
        layer: the sequence then resumes with ``context_len`` = that position."""
        if len(layer_snapshots) != len(states) or len({s.position for s in layer_snapshots}) != 1:
            raise ValueError("a snapshot restore needs one snapshot per layer, all at the same position")
        for state, snapshot in zip(states, layer_snapshots, strict=True):
            state.conv[slot].copy_(snapshot.conv)
            state.ssm[slot].copy_(snapshot.ssm)

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden).float()

    def load_weights(self, weights: Iterable[tuple[str, Any]]) -> set[str]:
        """Copy HF-named tensors into the parameters; returns the parameters filled (engine names). Each mixer's
        tensors are checked as a set (all present, right shapes) once all have been read."""
        params = dict(self.named_parameters())
        loaded: set[str] = set()
        mixer_weights: dict[int, list[tuple[str, torch.Tensor]]] = {}
        for name, tensor in weights:
            tensor = tensor if isinstance(tensor, torch.Tensor) else tensor[:]  # a lazy safetensors slice
            name = name.removeprefix("backbone.").replace("embedding.", "embeddings.")
            if name == "lm_head.weight" and self.config.tie_word_embeddings:
                continue
            parts = name.split(".")
            if parts[0] == "layers" and parts[2] == "mixer":
                mixer_weights.setdefault(int(parts[1]), []).append((".".join(parts[3:]), tensor))
                continue
            param = params.get(name)
            if param is None:
                raise ValueError(f"unexpected Mamba2 weight {name!r}")
            copy_weight(name, param, tensor)
            loaded.add(name)
        for index, layer in enumerate(self.layers):
            mixer = cast(Mamba2Block, layer).mixer
            mixer.load_hf_weights(mixer_weights.get(index, []))  # raises unless every mixer tensor was given
            loaded.update(f"layers.{index}.mixer.{param}" for param, _ in mixer.named_parameters())
        return loaded


class Mamba2ServedModel(Mamba2ForCausalLM):
    """``Mamba2ForCausalLM`` built from a ``ModelArchConfig`` (the registry's constructor): its ``hf_config`` holds
    the checkpoint's config. ``arch`` keeps the engine-level view (vocabulary, EOS ids)."""

    def __init__(self, arch: ModelArchConfig, max_position: int = 0, tp: TensorParallelRank | None = None) -> None:
        super().__init__(Mamba2ModelConfig.from_hf(arch.hf_config), tp)
        self.arch = arch
