"""The sampler under broken numerics and degenerate temperatures: NaN logits are excluded, +inf wins, a row with no
finite logit fails its own request (never a made-up token, never the batch), and a temperature too small to sample
with (1e-40) is greedy instead of producing NaN probabilities and an arbitrary token."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch

from engine.config import EngineConfig
from engine.layers.sampler import INVALID_TOKEN, MIN_TEMPERATURE, Sampler, SamplingTensors
from engine.llm import LLM
from engine.sampling_params import SamplingParams

NAN, INF = float("nan"), float("inf")
VOCAB = 64


def batch_of_broken_rows() -> torch.Tensor:
    torch.manual_seed(0)
    logits = torch.randn(4, VOCAB)
    logits[0, 5] = NAN  # one NaN entry: that token is excluded
    logits[0, 7] = 40.0  # the best finite one
    logits[1, 9] = INF  # the model is certain of token 9
    logits[2, :] = NAN  # nothing to sample
    return logits


@pytest.mark.parametrize("temperature", [0.0, 1.0, 1e-40])
def test_nan_is_excluded_inf_wins_and_an_empty_row_is_marked(temperature: float) -> None:
    logits = batch_of_broken_rows()
    t = SamplingTensors(temperature=torch.full((4,), temperature), all_greedy=temperature == 0.0,
                        base_generator=torch.Generator().manual_seed(1), max_logprobs=2)
    for _ in range(20):  # sampled rows: every draw
        out = Sampler()(logits.clone(), t)
        tokens = out.token_ids.tolist()
        assert tokens[0] != 5 and tokens[1] == 9 and tokens[2] == INVALID_TOKEN
        assert 0 <= tokens[3] < VOCAB
        if temperature != 1.0:
            assert tokens[0] == 7 and tokens[3] == int(logits[3].argmax())
        assert out.logprobs is not None and math.isfinite(out.logprobs[1].item())


def test_finite_logits_whose_sum_overflows_are_kept_as_they_are() -> None:
    """The finite check sums the batch: huge finite logits overflow that sum, and are then sanitised into themselves."""
    logits = torch.randn(2, VOCAB)
    logits[0, 3], logits[0, 4], logits[1, 8] = 3e38, 3e38, -3e38
    t = SamplingTensors(temperature=torch.zeros(2), all_greedy=True)
    assert Sampler()(logits.clone(), t).token_ids.tolist() == [3, int(logits[1].argmax())]


def test_a_row_whose_every_token_is_banned_is_marked() -> None:
    logits = torch.randn(2, VOCAB)
    t = SamplingTensors(temperature=torch.zeros(2), all_greedy=True, banned_rows=torch.arange(VOCAB) * 0 + 1,
                        banned_ids=torch.arange(VOCAB))
    assert Sampler()(logits, t).token_ids.tolist() == [int(logits[0].argmax()), INVALID_TOKEN]


def test_a_finite_row_whose_mask_allows_nothing_is_marked() -> None:
    """Finite logits skip the empty-row check unless something masked them since: a structured-output mask that
    allows no token empties its row all the same."""
    logits = torch.randn(2, VOCAB)
    allowed = torch.full((2, VOCAB // 32), -1, dtype=torch.int32)  # every bit set: every token allowed
    allowed[1] = 0
    t = SamplingTensors(temperature=torch.zeros(2), all_greedy=True, allowed_bitmask=allowed)
    assert Sampler()(logits, t).token_ids.tolist() == [int(logits[0].argmax()), INVALID_TOKEN]


def test_temperatures_below_the_floor_are_greedy() -> None:
    assert SamplingParams(temperature=1e-40).greedy and SamplingParams(temperature=0.0).greedy
    assert not SamplingParams(temperature=MIN_TEMPERATURE).greedy
    logits = torch.randn(3, VOCAB) * 5
    t = SamplingTensors(temperature=torch.tensor([1e-40, 1e-30, 1e-6]), all_greedy=False,
                        base_generator=torch.Generator().manual_seed(2))
    assert torch.equal(Sampler()(logits, t).token_ids, logits.argmax(dim=-1))


@pytest.fixture
def broken_llm(tiny_llama_dir: Path) -> LLM:
    """A real engine whose weights are damaged the way a numerical fault would: token 99's output row is NaN (every
    step's logits hold one NaN), token 98's embedding is NaN (a prompt holding it has no finite logit at all)."""
    llm = LLM(EngineConfig(model=str(tiny_llama_dir), show_progress=False, num_kv_blocks=64, block_size=4,
                           max_num_seqs=8, max_num_batched_tokens=64))
    with torch.no_grad():
        llm.engine.model.lm_head.weight[99] = NAN
        llm.engine.model.embed_tokens.weight[98] = NAN
    return llm


@pytest.mark.parametrize("temperature", [0.0, 0.8])
def test_the_engine_fails_only_the_request_with_no_finite_logits(broken_llm: LLM, temperature: float) -> None:
    params = SamplingParams(max_tokens=12, temperature=temperature, seed=5, ignore_eos=True, logprobs=1)
    healthy, poisoned = broken_llm.generate([[11, 12, 13, 14], [11, 98, 13, 14]], params)
    assert healthy.finish_reason == "length" and len(healthy.token_ids) == 12
    assert 99 not in healthy.token_ids  # the NaN logit is never picked
    assert poisoned.finish_reason == "error" and poisoned.token_ids == []
    assert poisoned.error is not None and "finite" in poisoned.error


def test_a_tiny_temperature_generates_the_greedy_text(tiny_llm: LLM) -> None:
    prompt = [[11, 12, 13, 14, 15, 16]]
    greedy = tiny_llm.generate(prompt, SamplingParams(max_tokens=10, temperature=0.0, ignore_eos=True))[0]
    tiny = tiny_llm.generate(prompt, SamplingParams(max_tokens=10, temperature=1e-40, ignore_eos=True))[0]
    assert tiny.token_ids == greedy.token_ids and tiny.text == greedy.text and tiny.finish_reason == "length"
