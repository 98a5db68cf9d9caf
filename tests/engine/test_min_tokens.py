"""min_tokens (vLLM's extension): no stop token, EOS or stop string ends the output before the minimum."""

from __future__ import annotations

import pytest

from engine.errors import InvalidRequestError
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

PROMPT = [11, 12, 13, 14, 15, 16]


def greedy(llm, **kwargs):
    return llm.generate([PROMPT], SamplingParams(max_tokens=16, temperature=0, **kwargs))[0]


def test_stop_token_is_banned_until_min_tokens(tiny_llm):
    full = greedy(tiny_llm, ignore_eos=True).token_ids
    stop = full[1]  # greedy would stop at the second token (or earlier, if it repeats)
    first = full.index(stop)
    assert greedy(tiny_llm, stop_token_ids=[stop]).token_ids == full[: first + 1]
    out = greedy(tiny_llm, stop_token_ids=[stop], min_tokens=6)
    assert len(out.token_ids) >= 6
    assert stop not in out.token_ids[:6]
    # After the minimum the stop token may end the output again, and ends it when sampled.
    if stop in out.token_ids:
        assert out.token_ids[-1] == stop and out.finish_reason == "stop"


def test_eos_is_banned_until_min_tokens(tiny_llm, monkeypatch):
    full = greedy(tiny_llm, ignore_eos=True).token_ids
    eos = full[2]  # make the token greedy decoding emits third the model's EOS
    monkeypatch.setattr(tiny_llm.engine, "eos_token_ids", [eos])
    first = full.index(eos)
    assert greedy(tiny_llm).token_ids == full[: first + 1]
    out = greedy(tiny_llm, min_tokens=8)
    assert len(out.token_ids) >= 8 and eos not in out.token_ids[:8]
    assert greedy(tiny_llm, ignore_eos=True, min_tokens=8).token_ids == full  # ignore_eos bans nothing extra


def test_stop_string_only_counts_after_min_tokens(tiny_llm):
    full = greedy(tiny_llm, ignore_eos=True)
    assert len(full.token_ids) == 16
    early = tiny_llm.tokenizer.decode(full.token_ids[:2])[-2:]  # text the first tokens produce
    assert early
    cut = greedy(tiny_llm, ignore_eos=True, stop=[early])
    assert cut.finish_reason == "stop" and len(cut.token_ids) < 16
    held = greedy(tiny_llm, ignore_eos=True, stop=[early], min_tokens=16)
    assert held.token_ids == full.token_ids and held.text == full.text


def test_min_tokens_bad_values():
    with pytest.raises(InvalidRequestError, match="min_tokens"):
        SamplingParams(max_tokens=4, min_tokens=5)
    with pytest.raises(InvalidRequestError, match="min_tokens"):
        SamplingParams(max_tokens=4, min_tokens=-1)


def test_min_tokens_with_a_grammar_is_refused(tiny_llm):
    request = EngineRequest("constrained", PROMPT, SamplingParams(max_tokens=8, min_tokens=2),
                            structured={"type": "json_object"})
    with pytest.raises(InvalidRequestError, match="min_tokens"):
        tiny_llm.engine.add_request(request)
