"""Tiny randomly initialised HF checkpoints (real safetensors directories) for fast engine tests.

They use the default model's tokenizer files so the whole HF-directory path (config, shards, tokenizer.json,
tokenizer_config.json) is exercised; transformers provides the reference implementation to compare with.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch

from engine.loader.source import resolve_model
from engine.tokenization.tokenizer import Tokenizer


def write_tiny_checkpoint(directory: Path, *, architecture: str = "llama", seed: int = 0, **overrides) -> Path:
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    tokenizer = Tokenizer.from_source(resolve_model("default"))
    common = dict(vocab_size=tokenizer.vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512, rms_norm_eps=1e-5,
                  bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
    common.update(overrides)
    torch.manual_seed(seed)
    if architecture == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(**common))
    elif architecture in MOE_DEFAULTS:
        model = _moe_model(architecture, {**MOE_DEFAULTS[architecture], **common})
    elif architecture in WINDOW_DEFAULTS:
        model = _window_model(architecture, {**common, **WINDOW_DEFAULTS[architecture], **overrides})
    else:
        model = LlamaForCausalLM(LlamaConfig(**common))
    with torch.no_grad():  # random init leaves RMSNorm weights at 1 and biases at 0: make them matter
        for name, p in model.named_parameters():
            if name.endswith("norm.weight") or name.endswith(".bias"):
                p.add_(torch.randn_like(p) * 0.1)
    save_checkpoint(model, tokenizer, directory)
    return directory


def save_checkpoint(model, tokenizer: Tokenizer, directory: Path) -> None:
    """``model``'s safetensors and config with the default model's tokenizer and chat template: a directory the
    engine and transformers both load."""
    directory.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.backend.save(str(directory / "tokenizer.json"))
    (directory / "tokenizer_config.json").write_text(json.dumps({
        "chat_template": tokenizer.chat_template, "eos_token": "<|im_end|>", "bos_token": "<|im_start|>",
        "add_bos_token": False}))


# Tiny mixture-of-experts shapes: 8 experts of top-2 (Mixtral); Qwen2-MoE also with a shared expert of its own width.
MOE_DEFAULTS: dict[str, dict] = {
    "mixtral": {"num_local_experts": 8, "num_experts_per_tok": 2},
    "qwen2_moe": {"num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
                  "shared_expert_intermediate_size": 96, "norm_topk_prob": False},
    "qwen3_moe": {"num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "norm_topk_prob": True},
}


def _moe_model(architecture: str, config: dict):
    from transformers import (
        MixtralConfig,
        MixtralForCausalLM,
        Qwen2MoeConfig,
        Qwen2MoeForCausalLM,
        Qwen3MoeConfig,
        Qwen3MoeForCausalLM,
    )

    if architecture == "mixtral":
        model = MixtralForCausalLM(MixtralConfig(**config))
    elif architecture == "qwen3_moe":
        model = Qwen3MoeForCausalLM(Qwen3MoeConfig(**config))
    else:
        model = Qwen2MoeForCausalLM(Qwen2MoeConfig(**config))
    # Routers start near zero (near-ties that summation order could flip) and the shared expert's gate at zero
    # (sigmoid 0.5 everywhere): give both decisive random weights.
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(("shared_expert_gate.weight", "mlp.gate.weight", "block_sparse_moe.gate.weight")):
                p.copy_(torch.randn_like(p))
    return model


# Tiny sliding-window shapes: windows of a few blocks (tests use 8-token blocks), 16-dim heads. Gemma 2's caps are
# small so soft-capping changes the scores and logits of a random model noticeably; query_pre_attn_scalar differs
# from head_dim so the scale is checked.
WINDOW_DEFAULTS: dict[str, dict] = {
    "mistral": {"sliding_window": 12, "head_dim": 16},
    "gemma2": {"sliding_window": 12, "head_dim": 16, "num_hidden_layers": 4, "query_pre_attn_scalar": 24,
               "attn_logit_softcapping": 1.5, "final_logit_softcapping": 3.0, "tie_word_embeddings": True},
    # one global layer among windowed ones, each kind with its own RoPE (the global one linearly scaled)
    "gemma3_text": {"sliding_window": 12, "head_dim": 16, "num_hidden_layers": 4, "query_pre_attn_scalar": 24,
                    "layer_types": ["sliding_attention", "sliding_attention", "full_attention", "sliding_attention"],
                    "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                                        "full_attention": {"rope_type": "linear", "factor": 2.0,
                                                           "rope_theta": 1_000_000.0}},
                    "tie_word_embeddings": True},
}


def _window_model(architecture: str, config: dict):
    from transformers import (
        Gemma2Config,
        Gemma2ForCausalLM,
        Gemma3ForCausalLM,
        Gemma3TextConfig,
        MistralConfig,
        MistralForCausalLM,
    )

    if architecture == "mistral":
        return MistralForCausalLM(MistralConfig(**config))
    if architecture == "gemma3_text":
        return Gemma3ForCausalLM(Gemma3TextConfig(**config))
    return Gemma2ForCausalLM(Gemma2Config(**config))
