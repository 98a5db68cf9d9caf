"""Speculative decoding by prompt lookup: the proposer against a brute-force reference, and the engine with it on
against the engine with it off (greedy outputs and logprobs identical, drafts actually accepted), under chunked
prefill, a tight KV pool (drafts dropped, preemption), stop strings, max_tokens, seeds and grammars (drafts cut to
what the grammar accepts, one mask per draft position)."""

from __future__ import annotations

import json

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import EngineConfig
from engine.llm import LLM, GenerationResult
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.scheduling.block_manager import BlockManager
from engine.scheduling.scheduler import Scheduler
from engine.scheduling.sequence import Sequence
from engine.spec_decode import NgramProposer
from engine.spec_decode.draft_masks import draft_masks

PASSAGE = ("The quarterly report shows revenue of 4.2 million dollars, up 12 percent from last year, driven by "
           "strong sales in the northern region and the launch of two new products. Operating costs rose 5 "
           "percent, mainly because of higher shipping prices and new hires in the support team.")
PROMPTS = [
    f"Repeat the following text exactly, word for word:\n\n{PASSAGE}",
    "Copy this sentence three times: The cat sat on the mat.",
    "What is the capital of France?",
    "Write a Python function that adds two numbers, then write it again with type hints.",
]


# -- the proposer ------------------------------------------------------------------------------------------------
def _reference(tokens: list[int], k: int, min_n: int, max_n: int) -> list[int]:
    """The longest recurring suffix n-gram, its most recent earlier occurrence, the k tokens after it."""
    for n in range(min(max_n, len(tokens) - 1), min_n - 1, -1):
        suffix = tokens[-n:]
        for start in range(len(tokens) - n - 1, -1, -1):
            if tokens[start : start + n] == suffix:
                return tokens[start + n : start + n + k]
    return []


def test_proposer_finds_the_longest_most_recent_match() -> None:
    proposer = NgramProposer(4, min_n=2, max_n=4)
    assert proposer.propose([1, 2, 3, 4, 5, 6, 1, 2, 3], proposer.new_index()) == [4, 5, 6, 1]
    assert proposer.propose([1, 2, 9, 1, 2, 7, 1, 2], proposer.new_index()) == [7, 1, 2]  # the latest "1 2"
    assert proposer.propose([7, 1, 2, 3, 8, 1, 2, 9, 9, 1, 2, 3], proposer.new_index()) == [8, 1, 2, 9]  # 3-gram wins
    assert proposer.propose([1, 2, 3, 4, 5], proposer.new_index()) == []
    assert proposer.propose([1, 2, 3, 1, 2], proposer.new_index(), limit=1) == [3]
    assert proposer.propose([1, 2, 3, 1, 2], proposer.new_index(), limit=0) == []
    with pytest.raises(ValueError):
        NgramProposer(0)
    with pytest.raises(ValueError):
        NgramProposer(3, min_n=3, max_n=2)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=60),
       st.integers(min_value=1, max_value=5), st.integers(min_value=1, max_value=3), st.integers(0, 2))
def test_incremental_index_matches_a_fresh_scan(tokens: list[int], k: int, min_n: int, extra: int) -> None:
    proposer = NgramProposer(k, min_n=min_n, max_n=min_n + extra)
    index = proposer.new_index()
    for length in range(1, len(tokens) + 1):  # one index, grown token by token as a sequence grows
        prefix = tokens[:length]
        assert proposer.propose(prefix, index) == _reference(prefix, k, min_n, min_n + extra), prefix


# -- the scheduler -----------------------------------------------------------------------------------------------
def test_drafts_are_dropped_rather_than_exceed_the_budget_or_preempt() -> None:
    blocks = BlockManager(num_blocks=2, block_size=4, enable_prefix_caching=False)
    scheduler = Scheduler(blocks, max_num_seqs=4, max_num_batched_tokens=64)
    seq = Sequence("a", [1, 2, 3, 4, 5], SamplingParams(max_tokens=20))
    scheduler.add(seq)
    assert scheduler.schedule().num_new_tokens == [5]
    seq.num_computed_tokens = 5
    seq.token_ids.append(6)  # sampled: 6 tokens known, 5 computed
    seq.spec_token_ids = [7, 8, 9, 10]  # 6 + 4 = 10 tokens would need 3 blocks; the pool has 2
    batch = scheduler.schedule()
    assert batch.num_new_tokens == [3] and seq.spec_token_ids == [7, 8]  # 1 + the drafts that fit 8 slots
    assert scheduler.num_preemptions == 0


def test_drafts_never_take_the_block_another_decode_needs() -> None:
    """Two decodes, one free block: it goes to the second decode's own token, not the first one's drafts."""
    blocks = BlockManager(num_blocks=3, block_size=4, enable_prefix_caching=False)
    scheduler = Scheduler(blocks, max_num_seqs=4, max_num_batched_tokens=64)
    first = Sequence("a", [1, 2, 3], SamplingParams(max_tokens=20))
    second = Sequence("b", [5, 6, 7, 8], SamplingParams(max_tokens=20))
    for seq in (first, second):
        scheduler.add(seq)
    assert scheduler.schedule().num_new_tokens == [3, 4]  # one block each
    for seq, token in ((first, 4), (second, 9)):
        seq.num_computed_tokens = len(seq)
        seq.token_ids.append(token)
    first.spec_token_ids = [5, 6, 7]  # 4 + 1 + 3 tokens: would need a second block
    batch = scheduler.schedule()  # "b" needs the last free block for its own token (position 4)
    assert dict(zip([s.request_id for s in batch.seqs], batch.num_new_tokens, strict=True)) == {"a": 1, "b": 1}
    assert first.spec_token_ids == [] and scheduler.num_preemptions == 0


# -- the engine --------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def prompt_ids(smol_llm: LLM) -> list[list[int]]:
    tokenizer = smol_llm.tokenizer
    return [tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": p}]),
                             add_special_tokens=False) for p in PROMPTS]


def _spec_llm(**overrides: object) -> LLM:
    # Every proposal verified: these tests check verification itself (test_spec_decode_adaptive: which to verify).
    return LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="ngram",
                            prompt_lookup_adaptive=False, **overrides))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def spec_llm() -> LLM:
    return _spec_llm()


def _same(plain: list[GenerationResult], spec: list[GenerationResult]) -> None:
    for a, b in zip(plain, spec, strict=True):
        assert b.token_ids == a.token_ids and b.text == a.text and b.finish_reason == a.finish_reason
        if a.logprobs is not None:
            assert b.logprobs is not None and len(b.logprobs) == len(a.logprobs)
            for x, y in zip(a.logprobs, b.logprobs, strict=True):
                assert x.token_id == y.token_id and abs(x.logprob - y.logprob) < 1e-4
                assert [t for t, _, _ in x.top_logprobs] == [t for t, _, _ in y.top_logprobs]


def test_greedy_outputs_and_logprobs_are_unchanged_and_drafts_are_accepted(
        smol_llm: LLM, spec_llm: LLM, prompt_ids: list[list[int]]) -> None:
    params = SamplingParams(max_tokens=64, temperature=0, logprobs=3)
    plain = smol_llm.generate(prompt_ids, params)
    stats = spec_llm.engine.stats_collector
    drafted, accepted, steps = stats.spec_draft_tokens, stats.spec_accepted_tokens, spec_llm.engine.num_steps
    spec = spec_llm.generate(prompt_ids, params)
    _same(plain, spec)
    assert stats.spec_accepted_tokens - accepted >= 20  # the copying prompts accept whole runs
    assert stats.spec_draft_tokens > drafted
    # Each accepted draft is a forward pass saved.
    assert spec_llm.engine.num_steps - steps < max(len(r.token_ids) for r in plain) + len(prompt_ids)
    assert spec_llm.engine.stats().spec_accepted_tokens == stats.spec_accepted_tokens


def test_unchanged_under_chunked_prefill_and_a_tight_pool(smol_llm: LLM, prompt_ids: list[list[int]]) -> None:
    """Small step budget (drafts cut to fit) and a pool that forces preemption (drafts dropped, recomputed)."""
    params = SamplingParams(max_tokens=48, temperature=0)
    plain = smol_llm.generate(prompt_ids * 2, params)
    tight = _spec_llm(max_num_batched_tokens=24, num_kv_blocks=14, block_size=16, max_num_seqs=8)
    spec = tight.generate(prompt_ids * 2, params)
    _same(plain, spec)
    assert tight.engine.scheduler.num_preemptions > 0
    assert tight.engine.stats_collector.spec_accepted_tokens > 0


def test_stop_strings_max_tokens_and_seeds(smol_llm: LLM, spec_llm: LLM,
                                                    prompt_ids: list[list[int]]) -> None:
    copy = prompt_ids[0]
    # A stop string and max_tokens falling inside a run of accepted drafts end the output exactly there.
    for params in (SamplingParams(max_tokens=64, temperature=0, stop=["northern"]),
                   SamplingParams(max_tokens=7, temperature=0)):
        _same(smol_llm.generate([copy], params), spec_llm.generate([copy], params))
    # A seeded request speculates, and its samples still do not depend on drafts: each row's draw is a function of
    # the seed and the position it samples.
    seeded = SamplingParams(max_tokens=32, temperature=0.8, seed=7)
    drafted = spec_llm.engine.stats_collector.spec_draft_tokens
    _same(smol_llm.generate([copy], seeded), spec_llm.generate([copy], seeded))
    assert spec_llm.engine.stats_collector.spec_draft_tokens > drafted
    # Unseeded sampling speculates and stays within max_tokens.
    sampled = spec_llm.generate([copy] * 3, SamplingParams(max_tokens=40, temperature=0.7))
    assert all(0 < len(r.token_ids) <= 40 and r.finish_reason in ("stop", "length") for r in sampled)


EXTRACTION = ("Extract the customer's name, city and order number from this ticket as JSON.\n\nTicket: Dana "
              "Kowalski from Santoram wrote on Monday that order number AX-99812-QZ arrived damaged. Dana Kowalski "
              "asks for a replacement to be sent to Santoram before Friday.")
TICKET = {"type": "object", "additionalProperties": False, "required": ["name", "city", "order_number"],
          "properties": {"name": {"type": "string"}, "city": {"type": "string"}, "order_number": {"type": "string"}}}


def _constrained(llm: LLM, prompt: list[int], max_tokens: int = 48) -> tuple[list[int], str, str | None]:
    engine = llm.engine
    engine.add_request(EngineRequest("extract", prompt, SamplingParams(max_tokens=max_tokens, temperature=0),
                                     structured={"type": "json_schema", "json_schema": {"schema": TICKET}}))
    tokens: list[int] = []
    text, reason = "", None
    while engine.has_unfinished_requests():
        for out in engine.step():
            tokens += out.token_ids
            text += out.text
            reason = out.finish_reason or reason
    return tokens, text, reason


def test_constrained_outputs_draft_within_the_grammar_and_are_unchanged(smol_llm: LLM, spec_llm: LLM) -> None:
    """Under a grammar drafts are cut to what it accepts, each draft row gets its own position's mask, and the
    output equals the plain engine's (values copied from the prompt are where the drafts land)."""
    tokenizer = smol_llm.tokenizer
    prompt = tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": EXTRACTION}]),
                              add_special_tokens=False)
    plain = _constrained(smol_llm, prompt)
    stats = spec_llm.engine.stats_collector
    accepted = stats.spec_accepted_tokens
    spec = _constrained(spec_llm, prompt)
    assert spec == plain and plain[2] == "stop"
    assert set(json.loads(plain[1])) == {"name", "city", "order_number"}
    assert stats.spec_accepted_tokens > accepted


def test_no_drafts_while_more_sequences_decode_than_the_cap(prompt_ids: list[list[int]]) -> None:
    capped = _spec_llm(speculative_disable_by_batch_size=1)
    stats = capped.engine.stats_collector
    lockstep = SamplingParams(max_tokens=24, temperature=0, ignore_eos=True)
    # Two decode side by side until both end. Distinct cache salts: the prompts share the chat template's first
    # blocks, and a prompt whose next block another is computing waits a step for it (the first would then decode
    # alone for a step, and draft).
    engine = capped.engine
    for index in (0, 1):
        engine.add_request(EngineRequest(f"lockstep-{index}", prompt_ids[index], lockstep, cache_salt=f"s{index}"))
    while engine.has_unfinished_requests():
        engine.step()
    assert stats.spec_draft_tokens == 0
    capped.generate([prompt_ids[0]], lockstep)
    assert stats.spec_draft_tokens > 0


def test_a_constrained_request_beside_drafting_ones(prompt_ids: list[list[int]]) -> None:
    """The step's grammar mask has one row per logits row, drafts' rows included (more rows than sequences)."""
    llm = _spec_llm(max_num_seqs=2)
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
              "additionalProperties": False}
    engine = llm.engine
    engine.add_request(EngineRequest("copy", prompt_ids[0], SamplingParams(max_tokens=40, temperature=0)))
    engine.add_request(EngineRequest("json", prompt_ids[2], SamplingParams(max_tokens=40, temperature=0),
                                     structured={"type": "json_schema", "json_schema": {"schema": schema}}))
    text = {"copy": "", "json": ""}
    reasons = {}
    while engine.has_unfinished_requests():
        for out in engine.step():
            text[out.request_id] += out.text
            if out.finished:
                reasons[out.request_id] = out.finish_reason
    assert reasons == {"copy": reasons["copy"], "json": "stop"} and reasons["copy"] in ("stop", "length")
    assert set(json.loads(text["json"])) == {"city"}
    assert engine.stats_collector.spec_accepted_tokens > 0


def test_each_draft_row_gets_the_mask_of_its_own_position(spec_llm: LLM) -> None:
    """draft_masks against matchers advanced for real: row i is the mask after the first i drafts, and the
    matcher ends where it started."""
    engine = spec_llm.engine
    grammar = engine.grammar_compiler().compile({"type": "json_schema", "json_schema": {"schema": TICKET}})
    drafts = spec_llm.tokenizer.encode('{"name": "Dana Kowalski", "city"', add_special_tokens=False)
    matcher = grammar.new_matcher()
    assert matcher.validate_tokens(drafts) == len(drafts)
    words = (engine.vocab_size + 31) // 32
    rows = draft_masks(matcher, drafts, words)
    assert len(rows) == len(drafts) + 1 and matcher.num_accepted == 0
    for position, row in enumerate(rows):
        reference = grammar.new_matcher()
        assert reference.accept_tokens(drafts[:position]) == position
        expected = torch.full((words,), -1, dtype=torch.int32)
        reference.fill_bitmask(expected)
        assert torch.equal(row.row, expected), position
    assert not torch.equal(rows[0].row, rows[2].row)  # the positions really differ
    again = torch.full((words,), -1, dtype=torch.int32)
    matcher.fill_bitmask(again)
    assert torch.equal(again, rows[0].row)  # rolled back to where it was


def test_penalised_and_min_tokens_requests_speculate_and_are_unchanged(smol_llm: LLM, spec_llm: LLM,
                                                                      prompt_ids: list[list[int]]) -> None:
    """Each draft row counts the drafts before it as output: penalties see them, and min_tokens keeps stop tokens
    banned exactly up to its own output position — as decoding one token at a time does."""
    cases = [  # (prompt, params)
        (prompt_ids[0], SamplingParams(max_tokens=40, temperature=0, frequency_penalty=0.4, presence_penalty=0.2,
                                       repetition_penalty=1.1)),
        (prompt_ids[2], SamplingParams(max_tokens=32, temperature=0, min_tokens=24)),  # EOS banned until 24 tokens
    ]
    stats = spec_llm.engine.stats_collector
    for prompt, params in cases:
        drafted = stats.spec_draft_tokens
        plain, spec = smol_llm.generate([prompt], params), spec_llm.generate([prompt], params)
        _same(plain, spec)
        assert stats.spec_draft_tokens > drafted, params
        assert len(spec[0].token_ids) >= params.min_tokens


def test_each_draft_row_sees_the_drafts_before_it_as_output(tiny_llm: LLM) -> None:
    """The sampling tensors of a drafting sequence's rows: row j counts the output plus the first j drafts (for
    penalties) and bans stop tokens only while that output is shorter than min_tokens."""
    params = SamplingParams(max_tokens=20, temperature=0, frequency_penalty=0.5, min_tokens=3)
    seq = Sequence("s", [1, 2, 3], params, stop_token_ids=frozenset({2}))
    seq.token_ids.append(40)  # one output token
    seq.spec_token_ids = [41, 42, 41]  # rows: after 40, after 41, after 42, after the second 41
    tensors = tiny_llm.engine.runner.prepare_sampling([seq] * 4, None)
    assert tensors.output_counts is not None and tensors.banned_rows is not None
    counts = tensors.output_counts[:, [40, 41, 42]].tolist()
    assert counts == [[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 2, 1]]
    assert tensors.banned_rows.tolist() == [0, 1] and tensors.banned_ids.tolist() == [2, 2]  # outputs 1, 2 < 3
