"""Prefix caching: exact ``cached_tokens``, identical outputs with and without it, tenant isolation by salt."""

from __future__ import annotations

from engine.block_manager import BlockManager
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.sequence import Sequence

GREEDY = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)


def finish(engine, request):
    engine.add_request(request)
    outs = []
    while engine.has_unfinished_requests():
        outs += engine.step()
    return outs


def test_cached_tokens_are_exact_and_outputs_unchanged(tiny_llm):
    engine = tiny_llm.engine
    bs = engine.config.block_size
    prompt = list(range(100, 100 + 6 * bs + 2))  # 6 full blocks + 2 tokens
    first = finish(engine, EngineRequest("p1", prompt, GREEDY, cache_salt="tenant-a"))
    assert first[-1].usage.cached_tokens == 0
    second = finish(engine, EngineRequest("p2", prompt, GREEDY, cache_salt="tenant-a"))
    assert second[-1].usage.cached_tokens == 6 * bs
    assert [t for o in second for t in o.token_ids] == [t for o in first for t in o.token_ids]
    # a prompt sharing 3 blocks then diverging reuses exactly those 3
    fork = prompt[: 3 * bs] + [7] * (2 * bs)
    third = finish(engine, EngineRequest("p3", fork, GREEDY, cache_salt="tenant-a"))
    assert third[-1].usage.cached_tokens == 3 * bs


def test_a_different_salt_never_shares_blocks(tiny_llm):
    engine = tiny_llm.engine
    prompt = list(range(200, 200 + 5 * engine.config.block_size))
    finish(engine, EngineRequest("a", prompt, GREEDY, cache_salt="tenant-a"))
    other = finish(engine, EngineRequest("b", prompt, GREEDY, cache_salt="tenant-b"))
    assert other[-1].usage.cached_tokens == 0
    unsalted = finish(engine, EngineRequest("c", prompt, GREEDY))
    assert unsalted[-1].usage.cached_tokens == 0


def test_fully_cached_prompt_still_computes_its_last_token():
    bm = BlockManager(num_blocks=8, block_size=4)
    seq = Sequence("x", list(range(8)), GREEDY)
    assert bm.admit(seq, bm.find_cached_prefix(seq), 8)
    seq.num_computed_tokens = 8
    bm.commit_computed_blocks(seq)
    bm.free_seq(seq)
    again = Sequence("y", list(range(8)), GREEDY)
    hits = bm.find_cached_prefix(again)
    assert len(hits) == 1  # the second block is recomputed so the last prompt token yields logits
    assert bm.admit(again, hits, 8) and again.num_computed_tokens == 4
    bm.free_seq(again)
    assert bm.num_free_blocks == 8
