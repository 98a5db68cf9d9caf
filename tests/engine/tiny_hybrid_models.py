"""Tiny random-weight Mamba2 and Nemotron-H checkpoints (real safetensors directories with the default model's
tokenizer) built from transformers' own classes, for the engine's state-space serving tests.

The Mamba scan's chunk is 8 tokens unless asked otherwise, so 8- or 16-token KV blocks take state snapshots at every
block end.
"""

from __future__ import annotations

from pathlib import Path

import torch

from engine.loader.source import resolve_model
from engine.tokenization.tokenizer import Tokenizer

from .tiny_models import save_checkpoint

CHUNK_SIZE = 8
# Nemotron-H: every layer kind, two Mamba layers around attention, a mixture of experts and a dense MLP.
NEMOTRON_LAYERS = ["linear_attention", "full_attention", "moe", "linear_attention", "mlp"]


def write_tiny_state_space_checkpoint(directory: Path, family: str, *, seed: int = 0, chunk_size: int = CHUNK_SIZE):
    """Write a ``mamba2`` or ``nemotron_h`` checkpoint to ``directory``; returns transformers' model (float32,
    eval) for reference logits."""
    from transformers import Mamba2Config, Mamba2ForCausalLM, NemotronHConfig, NemotronHForCausalLM

    tokenizer = Tokenizer.from_source(resolve_model("default"))
    torch.manual_seed(seed)
    common = dict(vocab_size=tokenizer.vocab_size, hidden_size=32, n_groups=2, conv_kernel=4, chunk_size=chunk_size,
                  tie_word_embeddings=False, bos_token_id=1, eos_token_id=2, pad_token_id=0)
    model: torch.nn.Module
    if family == "mamba2":
        model = Mamba2ForCausalLM(Mamba2Config(expand=2, num_heads=8, head_dim=8, state_size=16, num_hidden_layers=3,
                                               **common))
    elif family == "nemotron_h":
        model = NemotronHForCausalLM(NemotronHConfig(
            layers_block_type=NEMOTRON_LAYERS, mamba_num_heads=8, mamba_head_dim=8, ssm_state_size=16,
            num_attention_heads=4, num_key_value_heads=2, head_dim=8, intermediate_size=48, n_routed_experts=4,
            num_experts_per_tok=2, moe_intermediate_size=16, moe_shared_expert_intermediate_size=24, n_group=2,
            topk_group=1, routed_scaling_factor=1.5, max_position_embeddings=512, **common))
    else:
        raise ValueError(family)
    model = model.eval()
    with torch.no_grad():  # random init leaves norms at 1, D at 1, biases and routers at 0: make every one matter
        for name, p in model.named_parameters():
            if name.endswith(("norm.weight", "norm_f.weight", ".D")):
                p.add_(torch.randn_like(p) * 0.1)
            elif name.endswith("A_log"):
                p.copy_(torch.log(torch.rand_like(p) * 3 + 0.3))
            elif name.endswith(("conv1d.bias", "e_score_correction_bias")):
                p.copy_(torch.randn_like(p) * 0.1)
            elif name.endswith("gate.weight"):
                p.copy_(torch.randn_like(p))
        for name, buffer in model.named_buffers():
            if name.endswith("e_score_correction_bias"):
                buffer.copy_(torch.randn_like(buffer) * 0.1)
    save_checkpoint(model, tokenizer, directory)
    return model
