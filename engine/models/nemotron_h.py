"""Nemotron-H: a hybrid decoder whose layers are each one of a Mamba2 mixer, attention, an MLP or a mixture of
experts, as transformers' ``NemotronHForCausalLM``.

Every layer is ``x + mixer(norm(x))`` with its own RMSNorm (weight applied in float32); the layer kinds come from
``layers_block_type`` (``linear_attention`` / ``full_attention`` / ``mlp`` / ``moe``, or the older ``mamba`` /
``attention`` names, or the ``hybrid_override_pattern`` string ``M*-E``). Attention is grouped-query attention over
the paged KV cache with no positional encoding (the Mamba layers carry position). The MLPs are ungated
(``down(act(up(x)))``, ``relu2`` = squared ReLU); the MoE routes with sigmoid scores plus a correction bias,
group-limited top-k, optional renormalization and ``routed_scaling_factor``, adds an always-on shared MLP, and may
project into a latent width around the experts.

The Mamba layers keep their state in ``engine.scheduling.mamba_state`` slots: the runner calls ``forward_step`` with the
step's attention metadata and a ``MambaStep`` (the k-th Mamba layer uses the k-th state cache). One rank only.

``load_weights`` takes the checkpoint's names under ``backbone.`` (NVIDIA's files) or ``model.`` (transformers'
state dict), experts one by one (``experts.{e}.up_proj.weight``) or stacked (``experts.up_proj``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import nn

from engine.distributed.parallel_state import TensorParallelRank
from engine.layers.attention import PagedAttention
from engine.layers.linear import Linear
from engine.layers.mamba2 import BoundarySnapshot, Mamba2Mixer, Mamba2MixerConfig, Mamba2StateCache, MambaStep
from engine.layers.vocab_parallel import ParallelLMHead, VocabParallelEmbedding
from engine.models.config import ModelArchConfig
from engine.models.weights import copy_weight
from kernels.attention_metadata import AttentionMetadata

MAMBA, ATTENTION, MLP, MOE = "linear_attention", "full_attention", "mlp", "moe"
_LEGACY_KINDS = {"mamba": MAMBA, "attention": ATTENTION, "M": MAMBA, "*": ATTENTION, "-": MLP, "E": MOE}
_ACTIVATIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "relu2": lambda x: torch.square(F.relu(x)), "silu": F.silu, "gelu": F.gelu, "relu": F.relu,
}


def layer_kinds(config: Mapping[str, Any]) -> list[str]:
    kinds = config.get("layers_block_type") or config.get("layer_types") or config.get("hybrid_override_pattern")
    if not kinds:
        raise ValueError("a Nemotron-H config names its layers in layers_block_type or hybrid_override_pattern")
    resolved = [_LEGACY_KINDS.get(kind, kind) for kind in kinds]
    if unknown := set(resolved) - {MAMBA, ATTENTION, MLP, MOE}:
        raise ValueError(f"unknown Nemotron-H layer kinds {sorted(unknown)}")
    return resolved


@dataclass(frozen=True)
class NemotronHConfig:
    vocab_size: int
    hidden_size: int
    kinds: tuple[str, ...]
    norm_eps: float
    mixer: Mamba2MixerConfig
    num_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    mlp_activation: str
    mlp_bias: bool
    num_experts: int
    top_k: int
    moe_intermediate_size: int
    shared_intermediate_size: int
    moe_latent_size: int | None
    n_group: int
    topk_group: int
    norm_topk_prob: bool
    routed_scaling_factor: float
    tie_word_embeddings: bool

    @classmethod
    def from_hf(cls, config: Mapping[str, Any]) -> NemotronHConfig:
        activation = config.get("mlp_hidden_act", "relu2")
        if activation not in _ACTIVATIONS:
            raise ValueError(f"Nemotron-H MLP activation {activation!r} is not supported ({sorted(_ACTIVATIONS)})")
        if int(config.get("num_nextn_predict_layers") or 0):
            raise ValueError("Nemotron-H multi-token prediction layers are not supported")
        heads = int(config["num_attention_heads"])
        latent = config.get("moe_latent_size")
        return cls(
            vocab_size=int(config["vocab_size"]), hidden_size=int(config["hidden_size"]),
            kinds=tuple(layer_kinds(config)), norm_eps=float(config.get("layer_norm_epsilon", 1e-5)),
            mixer=Mamba2MixerConfig.from_nemotron_h(config), num_heads=heads,
            num_kv_heads=int(config.get("num_key_value_heads") or heads),
            head_dim=int(config.get("head_dim") or int(config["hidden_size"]) // heads),
            intermediate_size=int(config.get("intermediate_size", 0)), mlp_activation=activation,
            mlp_bias=bool(config.get("mlp_bias")), num_experts=int(config.get("n_routed_experts", 0)),
            top_k=int(config.get("num_experts_per_tok", 1)),
            moe_intermediate_size=int(config.get("moe_intermediate_size", 0)),
            shared_intermediate_size=int(config.get("moe_shared_expert_intermediate_size", 0)),
            moe_latent_size=None if latent is None else int(latent), n_group=int(config.get("n_group", 1)),
            topk_group=int(config.get("topk_group", 1)), norm_topk_prob=bool(config.get("norm_topk_prob", True)),
            routed_scaling_factor=float(config.get("routed_scaling_factor", 1.0)),
            tie_word_embeddings=bool(config.get("tie_word_embeddings", False)))


class NemotronHRMSNorm(nn.Module):
    """RMSNorm with the weight multiply in float32 before the cast back (transformers' Nemotron-H norm)."""

    def __init__(self, hidden_size: int, eps: float) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(hidden_size), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (self.weight.float() * h).to(x.dtype)


class NemotronHAttention(nn.Module):
    def __init__(self, cfg: NemotronHConfig) -> None:
        super().__init__()
        self.num_heads, self.num_kv_heads, self.head_dim = cfg.num_heads, cfg.num_kv_heads, cfg.head_dim
        self.q_proj = Linear(cfg.hidden_size, cfg.num_heads * cfg.head_dim)
        self.k_proj = Linear(cfg.hidden_size, cfg.num_kv_heads * cfg.head_dim)
        self.v_proj = Linear(cfg.hidden_size, cfg.num_kv_heads * cfg.head_dim)
        self.o_proj = Linear(cfg.num_heads * cfg.head_dim, cfg.hidden_size)
        self.attn = PagedAttention(cfg.num_heads, cfg.num_kv_heads, cfg.head_dim)

    def forward(self, x: torch.Tensor, meta: AttentionMetadata) -> torch.Tensor:
        q = self.q_proj(x).view(-1, self.num_heads, self.head_dim)
        k = self.k_proj(x).view(-1, self.num_kv_heads, self.head_dim)
        v = self.v_proj(x).view(-1, self.num_kv_heads, self.head_dim)
        return self.o_proj(self.attn(q, k, v, meta).reshape(x.shape[0], -1))


class NemotronHMLP(nn.Module):
    def __init__(self, hidden_size: int, intermediate_size: int, activation: str, bias: bool) -> None:
        super().__init__()
        self.up_proj = Linear(hidden_size, intermediate_size, bias=bias)
        self.down_proj = Linear(intermediate_size, hidden_size, bias=bias)
        self.act = _ACTIVATIONS[activation]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(self.act(self.up_proj(x)))


class NemotronHRouter(nn.Module):
    def __init__(self, cfg: NemotronHConfig) -> None:
        super().__init__()
        if cfg.num_experts % cfg.n_group:
            raise ValueError(f"n_routed_experts ({cfg.num_experts}) must be a multiple of n_group ({cfg.n_group})")
        self.cfg = cfg
        self.weight = nn.Parameter(torch.zeros(cfg.num_experts, cfg.hidden_size), requires_grad=False)
        self.e_score_correction_bias = nn.Parameter(torch.zeros(cfg.num_experts), requires_grad=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """float32 weights and expert ids, ``[tokens, top_k]`` each: experts chosen by score + bias within the best
        ``topk_group`` groups (a group scored by its two best), weighted by their plain sigmoid score."""
        cfg = self.cfg
        scores = F.linear(x.float(), self.weight.float()).sigmoid()
        choice = scores + self.e_score_correction_bias.float()
        grouped = choice.view(-1, cfg.n_group, cfg.num_experts // cfg.n_group)
        group_scores = grouped.topk(min(2, grouped.shape[-1]), dim=-1)[0].sum(dim=-1)
        groups = torch.topk(group_scores, k=cfg.topk_group, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores).scatter_(1, groups, 1.0)
        expert_mask = group_mask.unsqueeze(-1).expand_as(grouped).reshape(-1, cfg.num_experts)
        ids = torch.topk(choice.masked_fill(expert_mask == 0, float("-inf")), k=cfg.top_k, dim=-1, sorted=False)[1]
        weights = scores.gather(1, ids)
        if cfg.norm_topk_prob:
            weights = weights / (weights.sum(dim=-1, keepdim=True) + 1e-20)
        return weights * cfg.routed_scaling_factor, ids


class NemotronHExperts(nn.Module):
    def __init__(self, cfg: NemotronHConfig) -> None:
        super().__init__()
        width = cfg.moe_latent_size or cfg.hidden_size
        self.up_proj = nn.Parameter(torch.empty(cfg.num_experts, cfg.moe_intermediate_size, width),
                                    requires_grad=False)
        self.down_proj = nn.Parameter(torch.empty(cfg.num_experts, width, cfg.moe_intermediate_size),
                                      requires_grad=False)
        self.act = _ACTIVATIONS[cfg.mlp_activation]

    def forward(self, x: torch.Tensor, weights: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        """Each token through its ``top_k`` experts, summed by routing weight (one GEMM pair per expert hit)."""
        out = torch.zeros(x.shape, dtype=weights.dtype, device=x.device)
        for expert in ids.unique().tolist():
            tokens, slot = torch.where(ids == expert)
            h = F.linear(self.act(F.linear(x[tokens], self.up_proj[expert])), self.down_proj[expert])
            out.index_add_(0, tokens, (h * weights[tokens, slot, None]).to(out.dtype))
        return out.to(x.dtype)


class NemotronHMoE(nn.Module):
    def __init__(self, cfg: NemotronHConfig) -> None:
        super().__init__()
        self.gate = NemotronHRouter(cfg)
        self.experts = NemotronHExperts(cfg)
        self.shared_experts = NemotronHMLP(cfg.hidden_size, cfg.shared_intermediate_size, cfg.mlp_activation,
                                           cfg.mlp_bias)
        latent = cfg.moe_latent_size
        self.fc1_latent_proj = Linear(cfg.hidden_size, latent, bias=cfg.mlp_bias) if latent else None
        self.fc2_latent_proj = Linear(latent, cfg.hidden_size, bias=cfg.mlp_bias) if latent else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weights, ids = self.gate(x)
        h = self.fc1_latent_proj(x) if self.fc1_latent_proj is not None else x
        h = self.experts(h, weights, ids)
        h = self.fc2_latent_proj(h) if self.fc2_latent_proj is not None else h
        return h + self.shared_experts(x)


class NemotronHBlock(nn.Module):
    def __init__(self, cfg: NemotronHConfig, kind: str) -> None:
        super().__init__()
        self.kind = kind
        self.norm = NemotronHRMSNorm(cfg.hidden_size, cfg.norm_eps)
        self.mixer: nn.Module
        if kind == MAMBA:
            self.mixer = Mamba2Mixer(cfg.mixer)
        elif kind == ATTENTION:
            self.mixer = NemotronHAttention(cfg)
        elif kind == MLP:
            self.mixer = NemotronHMLP(cfg.hidden_size, cfg.intermediate_size, cfg.mlp_activation, cfg.mlp_bias)
        else:
            self.mixer = NemotronHMoE(cfg)


class NemotronHForCausalLM(nn.Module):
    def __init__(self, arch: ModelArchConfig, max_position: int = 0, tp: TensorParallelRank | None = None) -> None:
        super().__init__()
        tp = tp or TensorParallelRank()
        if tp.size != 1:
            raise ValueError("Nemotron-H models do not support tensor parallelism yet")
        self.config = arch
        cfg = self.hybrid_config = NemotronHConfig.from_hf(arch.hf_config)
        self.state_chunk_size = cfg.mixer.chunk_size
        self.embeddings = VocabParallelEmbedding(cfg.vocab_size, cfg.hidden_size, tp)
        self.layers = nn.ModuleList(NemotronHBlock(cfg, kind) for kind in cfg.kinds)
        self.norm_f = NemotronHRMSNorm(cfg.hidden_size, cfg.norm_eps)
        self.lm_head = ParallelLMHead(cfg.hidden_size, cfg.vocab_size, tp)
        if cfg.tie_word_embeddings:
            self.lm_head.weight = self.embeddings.weight
        self.num_mamba_layers = cfg.kinds.count(MAMBA)

    def allocate_state(self, num_slots: int, *, device: torch.device | str = "cpu",
                       ssm_dtype: torch.dtype = torch.float32) -> list[Mamba2StateCache]:
        """One state cache per Mamba layer, in layer order (conv state in the model dtype)."""
        dtype = self.norm_f.weight.dtype
        return [Mamba2StateCache(self.hybrid_config.mixer, num_slots, dtype=dtype, ssm_dtype=ssm_dtype, device=device)
                for _ in range(self.num_mamba_layers)]

    def forward_step(self, input_ids: torch.Tensor, positions: torch.Tensor, meta: AttentionMetadata | None,
                     step: MambaStep) -> torch.Tensor:
        """Final hidden states ``[num_tokens, hidden]`` of the flattened batch; attention layers read and write the
        paged KV cache through ``meta``, Mamba layers their slots of ``step.caches``."""
        if len(step.caches) != self.num_mamba_layers:
            raise ValueError(f"{len(step.caches)} state caches for {self.num_mamba_layers} Mamba layers")
        x = self.embeddings(input_ids)
        mamba_index = 0
        for layer in self.layers:
            block = cast(NemotronHBlock, layer)
            h = block.norm(x)
            if block.kind == MAMBA:
                h = self._mamba(cast(Mamba2Mixer, block.mixer), h, step, mamba_index)
                mamba_index += 1
            elif block.kind == ATTENTION:
                assert meta is not None, "a hybrid model's attention layers need the step's attention metadata"
                h = block.mixer(h, meta)
            else:
                h = block.mixer(h)
            x = x + h
        return self.norm_f(x)

    @staticmethod
    def _mamba(mixer: Mamba2Mixer, h: torch.Tensor, step: MambaStep, index: int) -> torch.Tensor:
        cache = step.caches[index]
        if step.snapshots is None:
            return cast(torch.Tensor, mixer(h, step.meta, cache))
        out, taken = cast(tuple[torch.Tensor, list[BoundarySnapshot]],
                          mixer(h, step.meta, cache, boundary_snapshots=True))
        step.snapshots[index].extend(taken)
        return out

    def compute_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.lm_head(hidden).float()

    def load_weights(self, weights: Iterable[tuple[str, Any]]) -> set[str]:
        """Copy checkpoint tensors into the parameters; returns the parameters filled (engine names)."""
        params = dict(self.named_parameters())
        loaded: set[str] = set()
        mixer_weights: dict[int, list[tuple[str, torch.Tensor]]] = {}
        experts: dict[str, dict[int, torch.Tensor]] = {}  # stacked parameter -> expert -> that expert's matrix
        for name, tensor in weights:
            tensor = tensor if isinstance(tensor, torch.Tensor) else tensor[:]  # a lazy safetensors slice
            name = re.sub(r"^(backbone|model)\.", "", name).replace("embedding.", "embeddings.")
            if name == "lm_head.weight" and self.hybrid_config.tie_word_embeddings:
                continue
            parts = name.split(".")
            if parts[0] == "layers" and parts[2] == "mixer" and self.hybrid_config.kinds[int(parts[1])] == MAMBA:
                mixer_weights.setdefault(int(parts[1]), []).append((".".join(parts[3:]), tensor))
                continue
            if match := re.fullmatch(r"(layers\.\d+\.mixer\.experts)\.(\d+)\.(up_proj|down_proj)\.weight", name):
                experts.setdefault(f"{match[1]}.{match[3]}", {})[int(match[2])] = tensor
                continue
            self._copy(params, name, tensor)
            loaded.add(name)
        for name, by_expert in experts.items():
            if sorted(by_expert) != list(range(self.hybrid_config.num_experts)):
                raise ValueError(f"{name}: experts {sorted(by_expert)} of {self.hybrid_config.num_experts}")
            self._copy(params, name, torch.stack([by_expert[e] for e in sorted(by_expert)]))
            loaded.add(name)
        for index, layer in enumerate(self.layers):
            block = cast(NemotronHBlock, layer)
            if block.kind == MAMBA:
                block.mixer.load_hf_weights(mixer_weights.get(index, []))  # type: ignore[operator]
                loaded.update(f"layers.{index}.mixer.{param}" for param, _ in block.mixer.named_parameters())
        return loaded

    @staticmethod
    def _copy(params: dict[str, nn.Parameter], name: str, tensor: torch.Tensor) -> None:
        param = params.get(name)
        if param is None:
            raise ValueError(f"unexpected Nemotron-H weight {name!r}")
        copy_weight(name, param, tensor)
