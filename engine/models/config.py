"""The architecture hyper-parameters of a Llama-family decoder, read from HF config.json or GGUF metadata."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import UnknownModelError

SUPPORTED_ARCHITECTURES = ("llama", "mistral", "qwen2", "mixtral", "qwen2_moe", "gemma2", "gemma3_text", "qwen3_moe",
                           "mamba2", "nemotron_h")
# Families with Mamba2 layers: their model classes read the whole HF config (``hf_config``) themselves.
STATE_SPACE_ARCHITECTURES = ("mamba2", "nemotron_h")


@dataclass(slots=True)
class ModelArchConfig:
    architecture: str
    vocab_size: int
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    rms_norm_eps: float
    rope_theta: float
    max_position_embeddings: int
    tie_word_embeddings: bool
    attention_bias: bool = False  # Qwen2: bias on q/k/v projections
    rope_scaling: dict[str, Any] | None = None  # HF-style, e.g. {"rope_type": "llama3", "factor": 8.0, ...}
    bos_token_id: int | None = None
    eos_token_ids: list[int] = field(default_factory=list)
    # Mixture-of-experts feed-forward (Mixtral, Qwen2-MoE); num_experts 0: every layer dense.
    num_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int = 0  # each routed expert's
    norm_topk_prob: bool = True  # renormalise the top-k routing weights to sum to 1 (Mixtral always does)
    shared_expert_intermediate_size: int = 0  # Qwen2-MoE: an always-on expert scaled by sigmoid(x @ gate)
    moe_layer_step: int = 1  # every n-th layer is sparse (Qwen2-MoE's decoder_sparse_step)
    dense_layers: list[int] = field(default_factory=list)  # layers kept dense (Qwen2-MoE's mlp_only_layers)
    # Sliding-window attention: each layer's window in keys, the query's own included (transformers' convention:
    # kv_idx > q_idx - sliding_window); 0 for a global layer. Empty: every layer global.
    layer_windows: list[int] = field(default_factory=list)
    # Gemma 2: attention scale query_pre_attn_scalar ** -0.5 (None: head_dim's), soft-capping of the attention
    # logits and of the final logits (None: none), the feed-forward's activation.
    query_pre_attn_scalar: float | None = None
    attn_logit_softcapping: float | None = None
    final_logit_softcapping: float | None = None
    hidden_activation: str = "silu"
    # Gemma 3: the windowed layers' RoPE base (None: rope_theta, as the global layers') and RMSNorm of each query
    # and key head before RoPE.
    local_rope_theta: float | None = None
    qk_norm: bool = False
    # The checkpoint's whole config.json, kept for the families whose model class reads more of it than these fields
    # (STATE_SPACE_ARCHITECTURES); empty for the others.
    hf_config: dict[str, Any] = field(default_factory=dict)

    def layer_window(self, index: int) -> int:
        return self.layer_windows[index] if self.layer_windows else 0

    @property
    def uniform_window(self) -> int:
        """The window every layer shares (Mistral), or 0 when any layer is global (Gemma 2's alternating layers, or
        no window at all): only then can KV blocks that left the window be freed."""
        windows = set(self.layer_windows)
        return windows.pop() if len(windows) == 1 and 0 not in windows and self.layer_windows else 0

    def is_moe_layer(self, index: int) -> bool:
        return self.num_experts > 0 and index not in self.dense_layers and (index + 1) % self.moe_layer_step == 0

    @classmethod
    def from_hf(cls, cfg: dict[str, Any]) -> ModelArchConfig:
        model_type = cfg.get("model_type", "llama")
        if model_type not in SUPPORTED_ARCHITECTURES:
            raise UnknownModelError(f"unsupported architecture {model_type!r}; supported: {SUPPORTED_ARCHITECTURES}")
        if model_type in STATE_SPACE_ARCHITECTURES:
            return _state_space_config(model_type, cfg)
        heads = cfg["num_attention_heads"]
        eos = cfg.get("eos_token_id")
        # transformers >= 5 writes "rope_parameters" (theta + scaling in one dict); older configs "rope_scaling".
        rope_params = cfg.get("rope_parameters") or {}
        if "full_attention" in rope_params:  # Gemma 3: one set per layer type; the global layers' is the model's
            rope_params = rope_params["full_attention"] or {}
        scaling = cfg.get("rope_scaling")
        if scaling is None and rope_params.get("rope_type", "default") != "default":
            scaling = rope_params
        return cls(
            architecture=model_type,
            vocab_size=cfg["vocab_size"],
            hidden_size=cfg["hidden_size"],
            intermediate_size=cfg["intermediate_size"],
            num_hidden_layers=cfg["num_hidden_layers"],
            num_attention_heads=heads,
            num_key_value_heads=cfg.get("num_key_value_heads") or heads,
            head_dim=cfg.get("head_dim") or cfg["hidden_size"] // heads,
            rms_norm_eps=cfg.get("rms_norm_eps", 1e-6),
            rope_theta=cfg.get("rope_theta") or rope_params.get("rope_theta", 10000.0),
            max_position_embeddings=cfg.get("max_position_embeddings", 2048),
            tie_word_embeddings=cfg.get("tie_word_embeddings", model_type == "gemma2"),
            attention_bias=cfg.get("attention_bias", cfg.get("qkv_bias", model_type in ("qwen2", "qwen2_moe"))),
            rope_scaling=scaling,
            bos_token_id=cfg.get("bos_token_id"),
            eos_token_ids=[] if eos is None else ([eos] if isinstance(eos, int) else list(eos)),
            **_moe_fields(model_type, cfg),
            **_window_fields(model_type, cfg),
        )


def _window_fields(model_type: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """Per-layer sliding windows and Gemma 2's attention settings. ``layer_types`` (transformers >= 4.53) names each
    layer ``sliding_attention`` or ``full_attention``; without it Mistral-style configs window every layer and
    Gemma 2 alternates, its even layers windowed. Llama has no window."""
    window = cfg.get("sliding_window") if model_type != "llama" else None
    layers = cfg["num_hidden_layers"]
    kinds = cfg.get("layer_types")
    if kinds is None and model_type == "gemma2":
        kinds = ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(layers)]
    if kinds is None and model_type == "gemma3_text":  # configs before layer_types: every n-th layer global
        pattern = cfg.get("sliding_window_pattern", 6)
        kinds = ["full_attention" if (i + 1) % pattern == 0 else "sliding_attention" for i in range(layers)]
    if model_type in ("qwen2", "qwen2_moe", "qwen3_moe") and not cfg.get("use_sliding_window"):
        window = None  # Qwen2 configs carry a sliding_window that only use_sliding_window switches on
    fields: dict[str, Any] = {}
    if window:
        fields["layer_windows"] = ([int(window) if kind == "sliding_attention" else 0 for kind in kinds]
                                   if kinds is not None else [int(window)] * layers)
    if model_type == "gemma3_text":
        if cfg.get("use_bidirectional_attention"):
            raise UnknownModelError("gemma3_text with use_bidirectional_attention (an encoder) is not supported")
        local = (cfg.get("rope_parameters") or {}).get("sliding_attention") or {}
        if local.get("rope_type", "default") != "default":
            raise UnknownModelError(f"gemma3_text: unsupported local rope_type {local['rope_type']!r}")
        fields.update(local_rope_theta=local.get("rope_theta") or cfg.get("rope_local_base_freq") or 10000.0,
                      qk_norm=True)
    if model_type in ("gemma2", "gemma3_text"):
        fields.update(query_pre_attn_scalar=cfg.get("query_pre_attn_scalar"),
                      attn_logit_softcapping=cfg.get("attn_logit_softcapping"),
                      final_logit_softcapping=cfg.get("final_logit_softcapping"),
                      hidden_activation=cfg.get("hidden_activation") or cfg.get("hidden_act") or "gelu_pytorch_tanh")
    return fields


def _moe_fields(model_type: str, cfg: dict[str, Any]) -> dict[str, Any]:
    """The mixture-of-experts fields of an HF config (transformers' names per family); none for a dense family."""
    if model_type == "mixtral":
        return {"num_experts": cfg["num_local_experts"], "num_experts_per_tok": cfg["num_experts_per_tok"],
                "moe_intermediate_size": cfg["intermediate_size"], "norm_topk_prob": True}
    if model_type in ("qwen2_moe", "qwen3_moe"):  # Qwen3-MoE: no shared expert, RMSNorm on each q/k head
        # The Hub's configs say num_experts; transformers 5 writes Qwen3-MoE's as num_local_experts.
        return {"num_experts": cfg["num_experts"] if "num_experts" in cfg else cfg["num_local_experts"],
                "num_experts_per_tok": cfg["num_experts_per_tok"],
                "moe_intermediate_size": cfg["moe_intermediate_size"],
                "norm_topk_prob": cfg.get("norm_topk_prob", False),
                "shared_expert_intermediate_size": cfg.get("shared_expert_intermediate_size", 0),
                "moe_layer_step": cfg.get("decoder_sparse_step", 1),
                "dense_layers": list(cfg.get("mlp_only_layers") or []), "qk_norm": model_type == "qwen3_moe"}
    return {}


def _state_space_config(model_type: str, cfg: dict[str, Any]) -> ModelArchConfig:
    """The engine-level fields of a Mamba2 or Nemotron-H config. Mamba2 has no attention (heads 0) and no position
    limit of its own; Nemotron-H's attention layers use no rotary embedding. The layer count is Nemotron-H's
    ``layers_block_type`` (or the older ``hybrid_override_pattern``), whose length transformers writes instead."""
    eos = cfg.get("eos_token_id")
    hybrid = model_type == "nemotron_h"
    kinds = cfg.get("layers_block_type") or cfg.get("layer_types") or cfg.get("hybrid_override_pattern") or []
    layers = len(kinds) if hybrid else int(cfg["num_hidden_layers"])
    heads = int(cfg.get("num_attention_heads", 0)) if hybrid else 0
    return ModelArchConfig(
        architecture=model_type, vocab_size=cfg["vocab_size"], hidden_size=cfg["hidden_size"],
        intermediate_size=int(cfg.get("intermediate_size", 0)) if hybrid else 0, num_hidden_layers=layers,
        num_attention_heads=heads, num_key_value_heads=int(cfg.get("num_key_value_heads") or heads) if hybrid else 0,
        head_dim=int(cfg.get("head_dim") or (cfg["hidden_size"] // heads if heads else 0)),
        rms_norm_eps=float(cfg.get("layer_norm_epsilon", 1e-5)), rope_theta=0.0,
        max_position_embeddings=int(cfg.get("max_position_embeddings") or 8192),
        tie_word_embeddings=bool(cfg.get("tie_word_embeddings", not hybrid)), bos_token_id=cfg.get("bos_token_id"),
        eos_token_ids=[] if eos is None else ([eos] if isinstance(eos, int) else list(eos)), hf_config=dict(cfg))
