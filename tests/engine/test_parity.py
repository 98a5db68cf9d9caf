"""Warden's model against transformers' on the same weights: greedy tokens and first-step logits."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams

from .tiny_models import write_tiny_checkpoint

NEW_TOKENS = 32
# float32 on both sides; the residual differences are summation order (fused QKV, paged attention).
LOGITS_ATOL = 2e-3


@torch.no_grad()
def hf_greedy(model, prompt: list[int], n: int) -> list[int]:
    """transformers' forward with its own KV cache, argmax each step, never stopping early (like ignore_eos)."""
    out = model(torch.tensor([prompt]), use_cache=True)
    tokens: list[int] = []
    for _ in range(n):
        tokens.append(int(out.logits[0, -1].argmax()))
        out = model(torch.tensor([[tokens[-1]]]), cache=out.past_key_values, use_cache=True)
    return tokens


@pytest.mark.slow
def test_greedy_tokens_match_transformers(smol_llm, hf_smol, chat_prompt_ids):
    params = SamplingParams(max_tokens=NEW_TOKENS, temperature=0, ignore_eos=True)
    ours = smol_llm.generate(chat_prompt_ids, params)
    for prompt, result in zip(chat_prompt_ids, ours, strict=True):
        assert result.token_ids == hf_greedy(hf_smol, prompt, NEW_TOKENS)


@pytest.mark.slow
def test_first_step_logits_match_transformers(smol_llm, hf_smol, chat_prompt_ids):
    engine = smol_llm.engine
    for prompt in chat_prompt_ids[:3]:
        ours = prompt_logits(engine, prompt)
        with torch.no_grad():
            theirs = hf_smol(torch.tensor([prompt])).logits[0, -1].float()
        assert torch.allclose(ours, theirs, atol=LOGITS_ATOL, rtol=0), (ours - theirs).abs().max()


def prompt_logits(engine, prompt: list[int]) -> torch.Tensor:
    """Last-position logits of a prompt through the engine's own paged path (runner, KV cache, kernels)."""
    from engine.request import EngineRequest

    captured: list[torch.Tensor] = []
    model = engine.model
    original = model.compute_logits

    def capture(hidden: torch.Tensor) -> torch.Tensor:
        logits = original(hidden)
        captured.append(logits[0].clone())
        return logits

    model.compute_logits = capture
    try:
        engine.add_request(EngineRequest("logits-probe", prompt, SamplingParams(max_tokens=1, temperature=0)))
        while engine.has_unfinished_requests():
            engine.step()
    finally:
        del model.compute_logits
    return captured[0]


@pytest.mark.parametrize(
    ("architecture", "overrides"),
    [
        ("llama", {}),
        ("llama", {"tie_word_embeddings": True, "rope_theta": 50000.0}),
        ("llama", {"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                    "high_freq_factor": 4.0, "original_max_position_embeddings": 64}}),
        ("qwen2", {}),  # q/k/v biases
    ],
    ids=["llama", "tied", "llama3-rope", "qwen2"],
)
def test_tiny_architectures_match_transformers(tmp_path: Path, architecture: str, overrides: dict):
    from transformers import AutoModelForCausalLM

    directory = write_tiny_checkpoint(tmp_path / architecture, architecture=architecture, **overrides)
    reference = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
    llm = LLM(EngineConfig(model=str(directory), show_progress=False, num_kv_blocks=32, block_size=8))
    prompts = [[5, 17, 300, 9, 42, 7, 1000, 3, 12, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89], [400, 401, 402]]
    for prompt in prompts:
        ours = prompt_logits(llm.engine, prompt)
        with torch.no_grad():
            theirs = reference(torch.tensor([prompt])).logits[0, -1]
        assert torch.allclose(ours, theirs, atol=1e-4, rtol=0), (ours - theirs).abs().max()
        greedy = llm.generate([prompt], SamplingParams(max_tokens=12, temperature=0, ignore_eos=True))[0]
        assert greedy.token_ids == hf_greedy(reference, prompt, 12)


@pytest.mark.slow
def test_hf_checkpoint_directory_of_the_default_model(tmp_path: Path, hf_smol, smol_llm, smol_tokenizer,
                                                      chat_prompt_ids):
    """The same weights saved as an HF safetensors directory give the same greedy tokens as the GGUF."""
    # transformers will not save_pretrained a model it loaded from GGUF, so write the directory by hand
    import json

    from safetensors.torch import save_file

    config = hf_smol.config.to_dict()
    config.pop("quantization_config", None)
    (tmp_path / "config.json").write_text(json.dumps(config))
    state = {k: v.contiguous() for k, v in hf_smol.state_dict().items() if k != "lm_head.weight"}  # tied
    save_file(state, str(tmp_path / "model.safetensors"))
    smol_tokenizer.backend.save(str(tmp_path / "tokenizer.json"))
    (tmp_path / "tokenizer_config.json").write_text(
        json.dumps({"eos_token": "<|im_end|>", "bos_token": "<|im_start|>",
                    "chat_template": smol_tokenizer.chat_template}))
    from_dir = LLM(EngineConfig(model=str(tmp_path), show_progress=False, kv_cache_memory_mb=32))
    assert from_dir.engine.model_name == tmp_path.name
    params = SamplingParams(max_tokens=16, temperature=0, ignore_eos=True)
    prompts = chat_prompt_ids[:2]
    assert [r.token_ids for r in from_dir.generate(prompts, params)] == [
        r.token_ids for r in smol_llm.generate(prompts, params)]
    assert from_dir.tokenizer.apply_chat_template([{"role": "user", "content": "hi"}]) == \
        smol_tokenizer.apply_chat_template([{"role": "user", "content": "hi"}])
