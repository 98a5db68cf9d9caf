"""Bad input fails with a specific exception and a clear message, and never disturbs other requests."""

from __future__ import annotations

import pytest

from engine.config import EngineConfig
from engine.errors import EmptyPromptError, InvalidRequestError, PromptTooLongError, UnknownModelError
from engine.llm_engine import LLMEngine
from engine.loader.source import resolve_model
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"temperature": -0.1}, "temperature"),
        ({"temperature": 2.5}, "temperature"),
        ({"top_p": 0.0}, "top_p"),
        ({"top_k": -1}, "top_k"),
        ({"min_p": 1.5}, "min_p"),
        ({"repetition_penalty": 0.0}, "repetition_penalty"),
        ({"presence_penalty": 3.0}, "presence_penalty"),
        ({"frequency_penalty": -2.5}, "frequency_penalty"),
        ({"logprobs": 21}, "top_logprobs"),
        ({"stop": [""]}, "stop"),
    ],
)
def test_out_of_range_sampling_values(kwargs, param):
    with pytest.raises(InvalidRequestError) as info:
        SamplingParams(**kwargs)
    assert info.value.param == param


def test_engine_rejects_bad_requests_without_disturbing_the_batch(tiny_llm):
    engine: LLMEngine = tiny_llm.engine
    engine.add_request(EngineRequest("good", [4, 5, 6], SamplingParams(max_tokens=6, temperature=0, ignore_eos=True)))
    engine.step()
    with pytest.raises(EmptyPromptError, match="empty"):
        engine.add_request(EngineRequest("empty", [], SamplingParams()))
    with pytest.raises(PromptTooLongError, match="context"):
        engine.add_request(EngineRequest("huge", [7] * engine.max_model_len, SamplingParams()))
    with pytest.raises(PromptTooLongError, match="max_tokens"):
        engine.add_request(EngineRequest("long", [7] * 10, SamplingParams(max_tokens=engine.max_model_len)))
    with pytest.raises(InvalidRequestError, match="vocabulary"):
        engine.add_request(EngineRequest("oov", [engine.vocab_size + 5], SamplingParams()))
    with pytest.raises(InvalidRequestError, match="already running"):
        engine.add_request(EngineRequest("good", [1], SamplingParams()))
    bad = SamplingParams()
    bad.max_tokens = 0  # mutated after construction: caught again at admission
    with pytest.raises(InvalidRequestError, match="max_tokens"):
        engine.add_request(EngineRequest("mutated", [1, 2], bad))
    outputs = []
    while engine.has_unfinished_requests():
        outputs += engine.step()
    assert [o.request_id for o in outputs] == ["good"] * 5
    assert outputs[-1].finish_reason == "length" and outputs[-1].usage.completion_tokens == 6
    assert engine.block_manager.num_free_blocks == engine.block_manager.num_blocks


def test_unknown_models_are_refused(tmp_path):
    with pytest.raises(UnknownModelError, match="unknown model"):
        resolve_model("no-such-model")
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(UnknownModelError, match="safetensors"):
        resolve_model(str(tmp_path))
    with pytest.raises(UnknownModelError):
        LLMEngine(EngineConfig(model=str(tmp_path / "missing.gguf")))


def test_abort_of_unknown_or_finished_request_is_ignored(tiny_llm):
    assert tiny_llm.engine.abort_request("never-seen") is None
