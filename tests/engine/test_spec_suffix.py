"""The per-tenant suffix speculator: the index against a rebuild from what it keeps (eviction subtracts exactly),
its bounds, frequency-ranked proposals, and in the engine: one tenant's outputs never draft another tenant's
request, and greedy outputs are identical with and without it while the tenant's own history is accepted."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import EngineConfig
from engine.llm import LLM
from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.spec_decode.suffix_index import SuffixStore, TenantSuffixIndex


def _store(**overrides: int) -> SuffixStore:
    bounds = {"min_n": 2, "max_n": 3, "tenant_tokens": 1000, "total_tokens": 1000, "prompt_context": 0, **overrides}
    return SuffixStore(**bounds)


# -- the index -------------------------------------------------------------------------------------------------------
def test_the_most_frequent_continuation_is_proposed_while_likely_enough() -> None:
    store = _store()
    for doc in ([1, 2, 3, 4, 9], [1, 2, 3, 5, 9], [1, 2, 3, 5, 9]):
        store.add("t", [], doc)
    assert store.propose("t", [7, 1, 2, 3], 4, 0.0) == ([5, 9], 3)  # 5 follows "1 2 3" twice, 4 once
    assert store.propose("t", [7, 1, 2, 3], 4, 0.5) == ([5, 9], 3)  # 2/3, then 1
    assert store.propose("t", [7, 1, 2, 3], 4, 0.7) == ([], 3)  # 2/3 is too unlikely
    assert store.propose("t", [7, 2, 3], 1, 0.0) == ([5], 2)  # the longest n-gram held: "2 3"
    assert store.propose("t", [7, 8], 4, 0.0) == ([], 0)
    assert store.propose("t", [7, 1, 2, 3], 0, 0.0) == ([], 0)


def test_the_end_of_the_prompt_is_kept_so_an_answer_s_start_is_matched() -> None:
    store = _store(prompt_context=2)
    store.add("t", [50, 60, 70, 80], [1, 2])
    assert store.propose("t", [9, 9, 70, 80], 2, 0.0) == ([1, 2], 2)


def _rebuilt(index: TenantSuffixIndex) -> dict[int, dict[int, int]]:
    fresh = TenantSuffixIndex(index.min_n, index.max_n)
    for doc in index.docs:
        fresh.add(doc)
    return fresh.counts


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.lists(st.integers(0, 5), min_size=1, max_size=12)),
                min_size=1, max_size=30),
       st.integers(4, 20), st.integers(0, 20))
def test_the_index_always_counts_exactly_the_documents_it_keeps_within_its_bounds(
        adds: list[tuple[int, list[int]]], tenant_tokens: int, extra: int) -> None:
    store = _store(tenant_tokens=tenant_tokens, total_tokens=tenant_tokens + extra)
    for tenant, output in adds:
        store.add(tenant, [], output)
        assert store.num_tokens <= store.total_tokens
        held = 0
        for key in range(3):
            index = store.domain(key)
            if index is None:
                continue
            assert 0 < index.num_tokens <= tenant_tokens and index.num_tokens == sum(map(len, index.docs))
            assert index.counts == _rebuilt(index)  # eviction subtracted every count it had added
            held += index.num_tokens
        assert held == store.num_tokens


def test_the_least_recently_used_tenant_gives_way_first() -> None:
    store = _store(tenant_tokens=6, total_tokens=12)
    store.add("a", [], [1, 2, 3, 4, 5, 6])
    store.add("b", [], [1, 2, 3, 4, 5, 6])
    assert store.propose("a", [1, 2], 1, 0.0) == ([3], 2)  # "a" is used: "b" is now the least recent
    store.add("c", [], [7, 8, 9])
    assert store.domain("b") is None and store.domain("a") is not None and store.num_tokens == 9
    store.add("a", [], [4, 4, 4])  # past its own bound: its oldest document goes
    index = store.domain("a")
    assert index is not None and list(index.docs) == [[4, 4, 4]]
    with pytest.raises(ValueError):
        _store(tenant_tokens=10, total_tokens=5)


def test_a_tenant_never_gets_another_tenant_s_drafts() -> None:
    store = _store()
    store.add("b", [], [1, 2, 3, 4, 5])
    assert store.propose("a", [1, 2, 3], 3, 0.0) == ([], 0)
    assert store.propose("b", [1, 2, 3], 3, 0.0) == ([4, 5], 3)


# -- the engine ------------------------------------------------------------------------------------------------------
OPEN = ("Answer in one sentence: why do some programmers prefer tabs to spaces for indentation, and what "
        "does their editor do differently?")


@pytest.fixture(scope="module")
def suffix_engine() -> LLMEngine:
    # Every proposal verified: these tests check what is drafted and that verification keeps outputs exact.
    return LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="suffix",
                            prompt_lookup_adaptive=False)).engine


def _ask(engine: LLMEngine, prompt: list[int], salt: str) -> tuple[list[int], int, int]:
    """One greedy request under ``salt``'s isolation domain: its output, the drafts verified and accepted."""
    stats = engine.stats_collector
    drafted, accepted = stats.spec_draft_tokens, stats.spec_accepted_tokens
    request_id = f"{salt}-{engine.num_steps}"
    engine.add_request(EngineRequest(request_id, prompt, SamplingParams(max_tokens=40, temperature=0),
                                     cache_salt=salt, tenant=salt))
    output: list[int] = []
    while engine.has_unfinished_requests():
        for delta in engine.step():
            output += delta.token_ids
    return output, stats.spec_draft_tokens - drafted, stats.spec_accepted_tokens - accepted


def test_one_tenant_s_outputs_never_draft_another_tenant_s_request(
        suffix_engine: LLMEngine, smol_llm: LLM) -> None:
    tokenizer = smol_llm.tokenizer
    prompt = tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": OPEN}]),
                              add_special_tokens=False)
    plain = smol_llm.generate([prompt], SamplingParams(max_tokens=40, temperature=0))[0].token_ids
    fresh = _ask(suffix_engine, prompt, "tenant-c")  # no history anywhere: drafts from its own context only
    first_b = _ask(suffix_engine, prompt, "tenant-b")
    assert first_b == fresh
    # Tenant A asks exactly what B (and C) asked: B's answer would draft all of A's, and is not offered.
    assert _ask(suffix_engine, prompt, "tenant-a") == fresh
    # The same request from B drafts from B's earlier answer (so the check above could fail).
    output, drafted, accepted = _ask(suffix_engine, prompt, "tenant-b")
    assert output == plain == fresh[0]
    assert accepted >= 25 and accepted > fresh[2] + 20 and drafted > fresh[1]


def test_greedy_outputs_are_unchanged_and_the_tenant_s_history_is_accepted(
        suffix_engine: LLMEngine, smol_llm: LLM) -> None:
    tokenizer = smol_llm.tokenizer
    questions = ["Write a short haiku about the sea.", "List three prime numbers and say why they are prime.",
                 "Explain what a hash table is in two sentences."]
    prompts = [tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": q}]),
                                add_special_tokens=False) for q in questions]
    plain = [r.token_ids for r in smol_llm.generate(prompts, SamplingParams(max_tokens=40, temperature=0))]
    accepted_by_round = []
    for _ in range(2):
        accepted = 0
        for prompt, expected in zip(prompts, plain, strict=True):
            output, _, kept = _ask(suffix_engine, prompt, "tenant-d")
            assert output == expected
            accepted += kept
        accepted_by_round.append(accepted)
    assert accepted_by_round[1] > accepted_by_round[0] + 60  # the second round repeats the first round's answers
