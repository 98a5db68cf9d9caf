"""RequestOutput.stop_reason: which stop string or requested stop token ended the output (vLLM's field); None at
EOS, at max_tokens and for a request without stops."""

from __future__ import annotations

from engine.sampling_params import SamplingParams
from engine.tokenization.detokenizer import StopStringFilter

PROMPT = [11, 12, 13, 14, 15, 16]


def greedy(llm, **kwargs):
    return llm.generate([PROMPT], SamplingParams(max_tokens=16, temperature=0, **kwargs))[0]


def test_the_matched_stop_string_is_reported(tiny_llm):
    full = greedy(tiny_llm, ignore_eos=True)
    assert full.finish_reason == "length" and full.stop_reason is None
    text = full.text
    assert len(text) >= 6
    stop = text[3:5]
    decoy = "\x00never produced\x00"
    cut = greedy(tiny_llm, ignore_eos=True, stop=[decoy, stop])
    assert cut.finish_reason == "stop"
    assert cut.stop_reason == stop
    assert cut.text == text[: text.index(stop)]


def test_the_earliest_match_wins_over_the_order_listed(tiny_llm):
    text = greedy(tiny_llm, ignore_eos=True).text
    early, late = text[1:3], text[-3:]
    if late in text[: text.index(early) + len(early)]:
        late = text[-2:]
    assert text.index(early) < text.index(late)
    cut = greedy(tiny_llm, ignore_eos=True, stop=[late, early])
    assert cut.stop_reason == early


def test_a_requested_stop_token_is_reported_by_id(tiny_llm):
    full = greedy(tiny_llm, ignore_eos=True).token_ids
    stop = full[2]
    out = greedy(tiny_llm, ignore_eos=True, stop_token_ids=[stop])
    assert out.finish_reason == "stop" and out.token_ids[-1] == stop
    assert out.stop_reason == stop


def test_eos_is_not_a_stop_reason(tiny_llm, monkeypatch):
    full = greedy(tiny_llm, ignore_eos=True).token_ids
    monkeypatch.setattr(tiny_llm.engine, "eos_token_ids", [full[1]])
    out = greedy(tiny_llm)
    assert out.finish_reason == "stop" and out.token_ids[-1] == full[1]
    assert out.stop_reason is None


def test_stop_string_filter_names_a_stop_split_across_deltas():
    stops = StopStringFilter(["END", "STOP"])
    assert stops.feed("hello S") == ("hell", False)  # the last len("STOP") - 1 characters are held back
    assert stops.matched is None
    assert stops.feed("TO") == ("o ", False)
    assert stops.feed("P and more") == ("", True)
    assert stops.matched == "STOP"


def test_stop_string_filter_ties_go_to_the_first_listed():
    stops = StopStringFilter(["abc", "ab"])
    assert stops.feed("xxabc") == ("xx", True)
    assert stops.matched == "abc"
