"""A whole Mamba2ForCausalLM (engine.models.mamba2) against transformers' on a tiny random-weight checkpoint:
logits for a batched prefill of two prompts, then for several batched decode steps from the carried state.

Tolerance: float32, logits (magnitude ~1) within ``ATOL``/``RTOL`` of transformers'.
"""

from __future__ import annotations

import json

import pytest
import torch
from transformers import DynamicCache, Mamba2Config, Mamba2ForCausalLM

from engine.layers.mamba2 import Mamba2BatchMetadata
from engine.loader.hf_loader import iter_hf_tensors
from engine.models.mamba2 import Mamba2ForCausalLM as EngineMamba2
from engine.models.mamba2 import Mamba2ModelConfig

ATOL, RTOL = 5e-5, 1e-4
VOCAB = 96


def tiny_hf_model(tie: bool) -> Mamba2ForCausalLM:
    torch.manual_seed(0)
    config = Mamba2Config(hidden_size=32, expand=2, num_heads=8, head_dim=8, state_size=16, n_groups=2,
                          conv_kernel=4, chunk_size=8, num_hidden_layers=3, vocab_size=VOCAB,
                          tie_word_embeddings=tie, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    model = Mamba2ForCausalLM(config).eval()
    with torch.no_grad():  # random init leaves norms at 1, D at 1 and biases at 0: make every parameter matter
        for name, p in model.named_parameters():
            if name.endswith(("norm.weight", "norm_f.weight", ".D")):
                p.add_(torch.randn_like(p) * 0.1)
            elif name.endswith("A_log"):
                p.copy_(torch.log(torch.rand_like(p) * 3 + 0.3))
            elif name.endswith("conv1d.bias"):
                p.copy_(torch.randn_like(p) * 0.1)
    return model


@pytest.mark.parametrize("tie", [False, True])
def test_logits_match_transformers_for_prefill_and_decode(tie):
    hf = tiny_hf_model(tie)
    cfg = Mamba2ModelConfig.from_hf(hf.config.to_dict())
    assert cfg.tie_word_embeddings is tie
    model = EngineMamba2(cfg)
    loaded = model.load_weights(hf.state_dict().items())
    assert "layers.2.mixer.A_log" in loaded and "embeddings.weight" in loaded

    torch.manual_seed(1)
    prompts = [torch.randint(3, VOCAB, (11,)), torch.randint(3, VOCAB, (5,))]
    steps = torch.randint(3, VOCAB, (2, 3))
    slots = (1, 0)
    states = model.allocate_state(num_slots=2)
    with torch.no_grad():
        meta = Mamba2BatchMetadata((11, 5), (0, 0), slots)
        prefill = model.compute_logits(model(torch.cat(prompts), meta, states)).split([11, 5])
        decoded = []
        for k in range(steps.shape[1]):
            meta = Mamba2BatchMetadata((1, 1), (11 + k, 5 + k), slots)
            decoded.append(model.compute_logits(model(steps[:, k], meta, states)))

        for i, prompt in enumerate(prompts):
            cache = DynamicCache(config=hf.config)
            out = hf(prompt[None], cache=cache, use_cache=True)
            torch.testing.assert_close(prefill[i], out.logits[0], atol=ATOL, rtol=RTOL)
            for k in range(steps.shape[1]):
                out = hf(steps[i, k].view(1, 1), cache=out.cache, use_cache=True)
                torch.testing.assert_close(decoded[k][i], out.logits[0, 0], atol=ATOL, rtol=RTOL)


def test_incomplete_or_foreign_checkpoints_are_rejected():
    hf = tiny_hf_model(False)
    weights = hf.state_dict()
    model = EngineMamba2(Mamba2ModelConfig.from_hf(hf.config.to_dict()))
    with pytest.raises(ValueError, match="missing"):
        model.load_weights((n, t) for n, t in weights.items() if n != "backbone.layers.1.mixer.dt_bias")
    with pytest.raises(ValueError, match="unexpected"):
        model.load_weights([("model.layers.0.self_attn.q_proj.weight", torch.zeros(4, 4))])
    with pytest.raises(ValueError, match="shape"):
        model.load_weights([("backbone.norm_f.weight", torch.zeros(3))])
    with pytest.raises(ValueError, match="state caches"):
        model(torch.tensor([3]), Mamba2BatchMetadata((1,), (0,), (0,)), [])


def test_prefix_snapshot_restore_gives_cold_run_logits():
    """What a prefix-cache hit will do: restore every layer's state at a block boundary into a fresh slot and
    prefill only the rest; logits from there on equal a cold run's."""
    hf = tiny_hf_model(False)
    model = EngineMamba2(Mamba2ModelConfig.from_hf(hf.config.to_dict()))
    model.load_weights(hf.state_dict().items())
    torch.manual_seed(2)
    prompt, nxt = torch.randint(3, VOCAB, (19,)), torch.randint(3, VOCAB, (1,))
    states = model.allocate_state(num_slots=2)
    snapshots: list[list] = [[] for _ in model.layers]
    with torch.no_grad():
        cold = model.compute_logits(model(prompt, Mamba2BatchMetadata((19,), (0,), (0,)), states, snapshots))
        cold_next = model.compute_logits(model(nxt, Mamba2BatchMetadata((1,), (19,), (0,)), states))
        assert [[s.position for s in layer] for layer in snapshots] == [[8, 16]] * 3

        at_16 = [layer[1] for layer in snapshots]
        EngineMamba2.restore_snapshot(states, 1, at_16)
        warm = model.compute_logits(model(prompt[16:], Mamba2BatchMetadata((3,), (16,), (1,)), states))
        warm_next = model.compute_logits(model(nxt, Mamba2BatchMetadata((1,), (19,), (1,)), states))
    torch.testing.assert_close(warm, cold[16:], atol=ATOL, rtol=RTOL)
    torch.testing.assert_close(warm_next, cold_next, atol=ATOL, rtol=RTOL)
    with pytest.raises(ValueError, match="same position"):
        EngineMamba2.restore_snapshot(states, 1, [snapshots[0][0], snapshots[1][1], snapshots[2][1]])


@pytest.mark.parametrize("tie", [False, True])
def test_loads_a_safetensors_checkpoint_directory(tmp_path, tie):
    hf = tiny_hf_model(tie)
    hf.save_pretrained(tmp_path, safe_serialization=True)
    config = json.loads((tmp_path / "config.json").read_text())
    model = EngineMamba2(Mamba2ModelConfig.from_hf(config))
    model.load_weights(iter_hf_tensors(tmp_path, lazy=True))
    prompt = torch.randint(3, VOCAB, (9,), generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        ours = model.compute_logits(model(prompt, Mamba2BatchMetadata((9,), (0,), (0,)), model.allocate_state(1)))
        theirs = hf(prompt[None]).logits[0]
    torch.testing.assert_close(ours, theirs, atol=ATOL, rtol=RTOL)
