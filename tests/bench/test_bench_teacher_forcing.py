"""bench.teacher_forcing against a tiny random float32 model's own greedy outputs: each position's distribution is
the one greedy decoding picked that token from, in both step shapes and at every decode batch; the agreement of a
model with itself is exact, and a changed distribution shows in top-1 and KL."""

from __future__ import annotations

import pytest
import torch

from bench.teacher_forcing import agreement, teacher_forced_logprobs
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from tests.engine.tiny_models import write_tiny_checkpoint

PROMPTS = [[1, 5, 9, 200, 31], [1, 77, 1024, 3, 3, 3, 18], [1, 40, 41, 42]]
LENGTHS = [6, 6, 3]  # the third stops early: decode batches keep going without it


@pytest.fixture(scope="module")
def tiny_llm(tmp_path_factory: pytest.TempPathFactory) -> LLM:
    return LLM(EngineConfig(model=str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny-forced"))),
                            dtype="float32", show_progress=False, compile_model=False, kv_cache_memory_mb=16))


@pytest.fixture(scope="module")
def greedy(tiny_llm: LLM) -> list[list[int]]:
    outputs = []
    for prompt, n in zip(PROMPTS, LENGTHS, strict=True):
        (result,) = tiny_llm.generate([prompt], SamplingParams(max_tokens=n, temperature=0, ignore_eos=True))
        outputs.append(list(result.token_ids))
    return outputs


@pytest.mark.parametrize("decode_batch", [None, 1, 2, 3])
def test_each_position_is_the_distribution_its_greedy_token_came_from(tiny_llm: LLM, greedy: list[list[int]],
                                                                      decode_batch: int | None) -> None:
    free = tiny_llm.engine.block_manager.num_free_blocks
    forced = teacher_forced_logprobs(tiny_llm, PROMPTS, greedy, decode_batch)
    assert tiny_llm.engine.block_manager.num_free_blocks == free  # the borrowed blocks went back
    for output, logprobs in zip(greedy, forced, strict=True):
        assert logprobs.shape == (len(output), tiny_llm.engine.runner.vocab_size)
        assert torch.allclose(logprobs.exp().sum(-1), torch.ones(len(output)), atol=1e-4)
        assert logprobs.argmax(-1).tolist() == output  # aligned: not off by one, not another sequence's row


def test_the_step_shapes_agree_in_float32(tiny_llm: LLM, greedy: list[list[int]]) -> None:
    prefill = teacher_forced_logprobs(tiny_llm, PROMPTS, greedy)
    decode = teacher_forced_logprobs(tiny_llm, PROMPTS, greedy, decode_batch=2)
    for a, b in zip(prefill, decode, strict=True):
        assert torch.allclose(a, b, atol=1e-4)


def test_agreement_is_exact_with_itself_and_sees_a_changed_position(tiny_llm: LLM, greedy: list[list[int]]) -> None:
    reference = teacher_forced_logprobs(tiny_llm, PROMPTS, greedy)
    assert agreement(reference, reference) == {"top1": 100.0, "kl_mean": 0.0, "kl_p99": 0.0, "positions": 15}
    shifted = [r.clone() for r in reference]
    shifted[0][2] = torch.log_softmax(-reference[0][2], dim=-1)  # the argmax becomes the least likely token
    moved = agreement(shifted, reference)
    assert moved["top1"] == round(100 * 14 / 15, 2) and moved["kl_mean"] > 0 and moved["kl_p99"] > 0


def test_sequences_without_output_are_refused(tiny_llm: LLM) -> None:
    with pytest.raises(ValueError, match="at least one output token"):
        teacher_forced_logprobs(tiny_llm, [[1, 2]], [[]])
