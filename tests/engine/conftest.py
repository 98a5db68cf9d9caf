"""Engine test fixtures. The real SmolLM2 weights are loaded once per session (engine and, for parity,
transformers on the same GGUF file); tiny random checkpoints cover other architectures quickly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from engine.config import EngineConfig
from engine.llm import LLM
from engine.loader.source import default_gguf_path
from engine.tokenization.tokenizer import Tokenizer

from .tiny_models import write_tiny_checkpoint

os.environ.setdefault("HF_HUB_OFFLINE", "1")
torch.set_num_threads(min(2, os.cpu_count() or 1))

CHAT_PROMPTS = [
    "What is the capital of France?",
    "Write a haiku about the sea.",
    "Explain in one sentence why the sky is blue.",
    "List three prime numbers greater than 10.",
    "Translate 'good morning' into Spanish and German.",
    "def fibonacci(n):",
]


@pytest.fixture(scope="session")
def gguf_path() -> Path:
    return default_gguf_path()


@pytest.fixture(scope="session")
def smol_llm() -> LLM:
    """The real default model, float32 on CPU, default engine settings."""
    return LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=128))


@pytest.fixture(scope="session")
def smol_tokenizer(smol_llm: LLM) -> Tokenizer:
    return smol_llm.tokenizer


@pytest.fixture(scope="session")
def chat_prompt_ids(smol_tokenizer: Tokenizer) -> list[list[int]]:
    return [smol_tokenizer.encode(smol_tokenizer.apply_chat_template([{"role": "user", "content": p}]))
            for p in CHAT_PROMPTS]


@pytest.fixture(scope="session")
def hf_smol(gguf_path: Path):
    """transformers' own Llama on the same GGUF file (test-only reference)."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, gguf_file=gguf_path.name, dtype=torch.float32)
    return model.eval()


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="session")
def tiny_llm(tiny_llama_dir: Path) -> LLM:
    return LLM(EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=64, block_size=4,
                            max_num_seqs=8, max_num_batched_tokens=32))
