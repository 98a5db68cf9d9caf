"""``EngineConfig.kv_cache_dtype``: the setting, the cache the runner allocates for it, and the real model serving
from an int8 KV cache next to a bfloat16 one."""

from __future__ import annotations

import pytest
import torch

from bench.teacher_forcing import agreement, teacher_forced_logprobs
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.worker.model_runner import kv_bytes_per_block
from gateway.core.engine_settings import EngineSettings
from tests.engine.conftest import CHAT_PROMPTS
from tests.engine.test_huge_pages import huge_kb_around, needs_thp

# Measured on the default model (6 chat prompts x 24 tokens): top-1 95.1%, mean KL 0.0033 nats.
TOP1_PERCENT = 90.0
KL_MEAN = 0.01


def test_unknown_kv_cache_dtypes_are_refused() -> None:
    with pytest.raises(ValueError, match="kv_cache_dtype must be one of"):
        EngineConfig(kv_cache_dtype="fp8")


def test_int8_kv_cache_on_cuda_is_a_config_error() -> None:
    config = EngineConfig(kv_cache_dtype="int8")
    with pytest.raises(ValueError, match="CPU engine only"):
        config.resolved_for(torch.device("cuda"))
    assert config.resolved_for(torch.device("cpu")).kv_cache_dtype == "int8"


def test_int8_kv_cache_with_block_sparse_attention_is_a_config_error() -> None:
    with pytest.raises(ValueError, match="block-sparse"):
        EngineConfig(kv_cache_dtype="int8", block_sparse_block_size=64)


def test_the_environment_setting_reaches_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDEN_ENGINE_KV_CACHE_DTYPE", "int8")
    assert EngineConfig(**EngineSettings(_env_file=None).engine_kwargs("default")).kv_cache_dtype == "int8"


@pytest.fixture(scope="module")
def engines() -> dict[str, LLM]:
    """The default model in bfloat16, eager, with a bfloat16 and an int8 KV cache."""
    base = {"dtype": "bfloat16", "quantization": None, "compile_model": False, "show_progress": False,
            "kv_cache_memory_mb": 64}
    llms = {kind: LLM(EngineConfig(kv_cache_dtype=kind, **base)) for kind in ("bfloat16", "int8")}
    yield llms
    for llm in llms.values():
        llm.close()


@needs_thp
def test_the_runners_caches_lie_on_huge_pages(engines: dict[str, LLM]) -> None:
    """Both caches (64 MB each) on 2 MB pages: decode attention reads their rows scattered over all of them."""
    for llm in engines.values():
        cache = llm.engine.runner.kv_cache
        assert huge_kb_around(cache.data_ptr()) * 1024 >= cache.numel() * cache.element_size() // 2


def test_the_runner_allocates_int8_rows_with_their_scales(engines: dict[str, LLM]) -> None:
    runner = engines["int8"].engine.runner
    bf16 = engines["bfloat16"].engine.runner.kv_cache
    assert runner.kv_cache.dtype == torch.int8
    assert runner.kv_cache.shape[-1] == bf16.shape[-1] + 4
    assert runner.kv_cache.shape[:2] == bf16.shape[:2] and runner.kv_cache.shape[3:-1] == bf16.shape[3:-1]
    model = runner.model
    assert kv_bytes_per_block(model, 16, torch.bfloat16, "int8") * 128 == kv_bytes_per_block(
        model, 16, torch.bfloat16) * 68
    # The same memory budget holds 128/68 as many blocks of int8 rows (bfloat16 rows are 128 bytes, int8 68).
    assert runner.kv_cache.shape[2] == 64 * 2**20 // kv_bytes_per_block(model, runner.block_size, torch.bfloat16,
                                                                       "int8")
    assert runner.kv_cache.shape[2] > bf16.shape[2] * 1.8


def test_int8_kv_predicts_what_bfloat16_kv_predicts(engines: dict[str, LLM]) -> None:
    """Both caches read the bfloat16 cache's greedy outputs teacher-forced (prefill chunks and decodes of 6 rows
    through the cache): the next-token distributions at every position agree. Greedy outputs alone are too
    sensitive to compare: a near-tie anywhere parts two runs for the rest of the output."""
    tokenizer = engines["bfloat16"].tokenizer
    prompts = [tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": p}]))
               for p in CHAT_PROMPTS]
    params = SamplingParams(max_tokens=24, temperature=0, ignore_eos=True)
    outputs = [list(o.token_ids) for o in engines["bfloat16"].generate(prompts, params)]
    logprobs = {kind: teacher_forced_logprobs(llm, prompts, outputs, len(prompts)) for kind, llm in engines.items()}
    scores = agreement(logprobs["int8"], logprobs["bfloat16"])
    assert scores["top1"] >= TOP1_PERCENT and scores["kl_mean"] <= KL_MEAN, scores
