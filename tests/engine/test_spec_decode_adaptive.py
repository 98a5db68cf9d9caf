"""Adaptive prompt lookup: the measured step costs, the observed acceptance (shadow proposals included), the
goodput-maximizing draft budget, and the engine verifying only the drafts that pay while outputs stay unchanged."""

from __future__ import annotations

import time

import pytest

from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.spec_decode.acceptance import AcceptanceTracker, DraftHistory
from engine.spec_decode.draft_budget import choose_draft_lengths
from engine.spec_decode.step_costs import StepCostTable, non_decreasing_fit, step_clock

PASSAGE = ("The gateway authenticates each tenant by its API key, applies the tenant's rate limits and quotas, "
           "redacts personal data from prompts and completions, and writes every request to a tamper-evident "
           "audit chain in Postgres before the response leaves.")
QUOTE = f"Repeat the following text exactly, word for word:\n\n{PASSAGE}"
OPEN = "Why is the sky blue?"


class FixedCosts(StepCostTable):
    """A cost table that keeps what the test sets and ignores the engine's own timings."""

    def __init__(self, costs: dict[int, float]) -> None:
        super().__init__(min_samples=1)
        for size, seconds in costs.items():
            super().record(size, seconds)  # the warm-up step
            super().record(size, seconds)

    def record(self, num_tokens: int, seconds: float) -> None:
        pass


def _table(**samples: list[float]) -> StepCostTable:
    table = StepCostTable(window=4, min_samples=3)
    for size, seconds in samples.items():
        for s in seconds:
            table.record(int(size.removeprefix("n")), s)
    return table


# -- step costs ---------------------------------------------------------------------------------------------------
def test_the_first_step_of_a_size_is_warm_up_and_a_size_is_known_after_min_samples() -> None:
    table = _table(n1=[9.0, 1.0, 1.2])  # the first (a compile) is dropped; two samples are not enough
    assert table.fitted() == {} and table.estimate(1) is None
    table.record(1, 1.1)
    assert table.fitted() == pytest.approx({1: 1.1})


def test_a_cpu_step_is_timed_on_cpu_time_which_other_processes_taking_the_cores_do_not_advance() -> None:
    # A process that does not run (asleep here; descheduled for a neighbour under load) spends wall time but no CPU
    # time, so a CPU step's measured cost is the work it did, not what else the machine was doing meanwhile.
    clock = step_clock("cpu")
    started, wall = clock(), time.perf_counter()
    time.sleep(0.3)
    assert time.perf_counter() - wall >= 0.3 and clock() - started < 0.1
    # The host waits for a GPU's step, so there the step is timed on the wall clock.
    assert step_clock("cuda") is time.perf_counter


def test_the_median_of_the_latest_window_resists_outliers_and_follows_change() -> None:
    table = _table(n2=[0.0, 1.0, 1.0, 50.0])
    assert table.fitted()[2] == pytest.approx(1.0)
    for _ in range(4):
        table.record(2, 3.0)  # the machine got slower: the window forgets the old steps
    assert table.fitted()[2] == pytest.approx(3.0)


def test_an_unmeasured_size_is_interpolated_and_past_the_largest_costs_what_that_one_does() -> None:
    table = _table(n1=[0, 1.0, 1.0, 1.0], n4=[0, 2.0, 2.0, 2.0], n3=[0, 1.5, 1.5, 1.5])
    assert table.estimate(2) == pytest.approx(1.25)
    assert table.estimate(4) == pytest.approx(2.0)
    assert table.estimate(7) == pytest.approx(2.0)
    assert table.estimate(0) is None


def test_a_size_measured_cheaper_than_a_smaller_one_is_pooled_with_it() -> None:
    # 3 tokens measured in a quieter moment than 2: neither is believed alone.
    table = _table(n1=[0, 1.0, 1.0, 1.0], n2=[0, 2.0, 2.0, 2.0], n3=[0, 1.0, 1.0, 1.0, 1.0], n4=[0, 3.0, 3.0, 3.0])
    assert table.fitted() == pytest.approx({1: 1.0, 2: 10 / 7, 3: 10 / 7, 4: 3.0})  # (2*3 + 1*4) / 7
    assert table.estimate(5) == pytest.approx(3.0)


def test_the_non_decreasing_fit_pools_every_violation_and_keeps_monotone_data() -> None:
    assert non_decreasing_fit([(1, 1.0, 1), (2, 2.0, 1), (5, 2.0, 1)]) == {1: 1.0, 2: 2.0, 5: 2.0}
    fit = non_decreasing_fit([(1, 3.0, 1), (2, 2.0, 1), (3, 1.0, 1), (4, 5.0, 2)])
    assert fit == pytest.approx({1: 2.0, 2: 2.0, 3: 2.0, 4: 5.0})
    values = list(non_decreasing_fit([(n, v, 1) for n, v in enumerate([4, 1, 3, 2, 6, 5, 7])]).values())
    assert values == sorted(values)


# -- acceptance -----------------------------------------------------------------------------------------------------
def _counts(history: DraftHistory) -> tuple[float, float, float, float]:
    c = history.counts
    return c.first_hits, c.first_trials, c.then_hits, c.then_trials


def test_a_verification_counts_the_first_draft_and_the_run_after_it() -> None:
    tracker = AcceptanceTracker(decay=1.0, engine_decay=1.0, prior_rate=0.5, prior_weight=1.0)
    history = DraftHistory()
    assert tracker.rates(history) == pytest.approx((0.5, 0.5))  # no observations: the engine-wide rates
    tracker.observe(history, proposed=4, accepted=2)  # first kept; then one kept and the third missed
    assert _counts(history) == (1, 1, 1, 2)
    tracker.observe(history, proposed=3, accepted=3)  # all kept
    assert _counts(history) == (2, 2, 3, 4)
    tracker.observe(history, proposed=2, accepted=0)  # the first missed: nothing about the run after it
    assert _counts(history) == (2, 3, 3, 4)
    engine_first, engine_then = tracker.engine_rates
    assert (engine_first, engine_then) == pytest.approx(((1 + 2) / (2 + 3), (1 + 3) / (2 + 4)))
    assert tracker.rates(history) == pytest.approx(((2 + engine_first) / (3 + 1), (3 + engine_then) / (4 + 1)))


def test_recent_observations_weigh_most() -> None:
    tracker = AcceptanceTracker()
    history = DraftHistory()
    for _ in range(6):
        tracker.observe(history, proposed=4, accepted=4)
    quoting, _ = tracker.rates(history)
    for _ in range(3):
        tracker.observe(history, proposed=4, accepted=0)
    first, then = tracker.rates(history)
    assert quoting > 0.85 and first < 0.4 and then > 0.85  # the runs it had stay long; starting one got unlikely


def test_a_shadow_proposal_is_checked_against_the_tokens_decoded_without_it() -> None:
    tracker = AcceptanceTracker(decay=1.0, engine_decay=1.0)
    history = DraftHistory()
    tokens = [1, 2, 3]
    tracker.start_shadow(history, [7, 8, 9], position=3)
    tracker.start_shadow(history, [5, 5], position=3)  # one shadow at a time: the first is still being followed
    tracker.settle_shadow(history, tokens)
    assert history.shadow == [7, 8, 9] and _counts(history) == (0, 0, 0, 0)  # nothing decoded yet
    tokens += [7, 8]
    tracker.settle_shadow(history, tokens)
    assert history.shadow == [7, 8, 9] and _counts(history) == (0, 0, 0, 0)  # matching so far: waits
    tokens.append(4)
    tracker.settle_shadow(history, tokens)
    assert history.shadow == [] and _counts(history) == (1, 1, 1, 2)  # 2 matched, the third missed
    tracker.start_shadow(history, [10, 11], position=len(tokens))
    tokens += [10, 11, 12]
    tracker.settle_shadow(history, tokens)
    assert _counts(history) == (2, 2, 2, 3)  # matched in full
    tracker.start_shadow(history, [13, 14], position=len(tokens))
    tokens.append(13)
    tracker.settle_shadow(history, tokens, final=True)  # the sequence drafts now: its matches so far count
    assert history.shadow == [] and _counts(history) == (3, 3, 2, 3)


# -- the draft budget ------------------------------------------------------------------------------------------------
def test_nothing_is_drafted_until_the_plain_step_of_this_batch_size_is_measured_or_bracketed() -> None:
    plain, verify = FixedCosts({2: 1.0, 8: 2.0}), FixedCosts({})
    assert choose_draft_lengths(1, [4], [(0.99, 0.99)], plain, verify) == [0]
    assert choose_draft_lengths(9, [4] * 9, [(0.99, 0.99)] * 9, plain, verify) == [0] * 9
    assert choose_draft_lengths(2, [4, 4], [(0.99, 0.99)] * 2, plain, verify) == [4, 4]  # unmeasured verify: tried
    assert choose_draft_lengths(5, [4] * 5, [(0.99, 0.99)] * 5, plain, verify) == [4] * 5  # between 2 and 8


@pytest.mark.parametrize(("rates", "verify_cost", "expected"), [
    ((0.9, 0.9), 1.7, 4),  # a quoting sequence on a CPU: 1 + .9 + .81 + .73 + .66 = 4.1 tokens for 1.7x the time
    ((0.5, 0.95), 1.7, 4),  # half the proposals start a run, and runs are long: 2.85 tokens
    ((0.3, 0.3), 1.7, 0),  # open text on a CPU: 1.43 tokens for 1.7x the time
    ((0.3, 0.3), 1.02, 4),  # open text where rows are nearly free (a GPU)
    ((0.0, 0.9), 1.0, 0),  # first drafts never accepted: nothing to gain even for free
])
def test_a_lone_sequence_drafts_only_where_expected_tokens_outweigh_the_step_cost(
        rates: tuple[float, float], verify_cost: float, expected: int) -> None:
    plain = FixedCosts({1: 1.0})
    verify = FixedCosts({n: verify_cost for n in range(2, 6)})
    assert choose_draft_lengths(1, [4], [rates], plain, verify) == [expected]


def test_a_batch_verifies_the_likeliest_drafts_first_and_stops_where_goodput_peaks() -> None:
    # Each extra row costs a quarter of a one-sequence step.
    costs = {n: 1.0 + 0.25 * (n - 1) for n in range(1, 20)}
    plain, verify = FixedCosts(costs), FixedCosts(costs)
    rates, proposed = [(0.95, 0.95), (0.2, 0.2), (0.7, 0.7)], [4, 4, 2]
    lengths = choose_draft_lengths(3, proposed, rates, plain, verify)
    assert lengths[1] == 0 and lengths[0] >= lengths[2] > 0

    def goodput(split: list[int]) -> float:
        expected = 3 + sum(first * then ** (j - 1) for (first, then), n in zip(rates, split, strict=True)
                           for j in range(1, n + 1))
        return expected / costs[3 + sum(split)]

    best = goodput(lengths)
    assert all(goodput([a, b, c]) <= best + 1e-12 for a in range(5) for b in range(5) for c in range(3))


# -- the engine ------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def prompts(smol_llm: LLM) -> list[list[int]]:
    tokenizer = smol_llm.tokenizer
    return [tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": p}]),
                             add_special_tokens=False) for p in (QUOTE, OPEN)]


@pytest.fixture(scope="module")
def adaptive_llm() -> LLM:
    return LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="ngram"))


def _run(llm: LLM, prompts: list[list[int]], plain_cost: float, verify_cost: float) -> tuple[list[list[int]], int]:
    engine = llm.engine
    speculator = engine.speculator
    assert speculator is not None
    speculator.plain_step_costs = FixedCosts({n: plain_cost for n in range(1, 64)})
    speculator.verify_step_costs = FixedCosts({n: verify_cost for n in range(2, 64)})
    drafted = engine.stats_collector.spec_draft_tokens
    results = llm.generate(prompts, SamplingParams(max_tokens=48, temperature=0))
    return [r.token_ids for r in results], engine.stats_collector.spec_draft_tokens - drafted


def test_the_engine_drafts_when_rows_are_cheap_and_not_when_dear_with_unchanged_outputs(
        smol_llm: LLM, adaptive_llm: LLM, prompts: list[list[int]]) -> None:
    plain = [r.token_ids for r in smol_llm.generate(prompts, SamplingParams(max_tokens=48, temperature=0))]
    cheap, cheap_drafts = _run(adaptive_llm, prompts, 1.0, 1.0)
    dear, dear_drafts = _run(adaptive_llm, prompts, 1.0, 50.0)
    assert cheap == plain and dear == plain
    assert cheap_drafts > 0 and dear_drafts == 0


def test_a_sequence_that_does_not_draft_still_learns_its_acceptance_from_its_shadow(
        adaptive_llm: LLM, prompts: list[list[int]]) -> None:
    assert adaptive_llm.engine.speculator is not None
    tracker = adaptive_llm.engine.speculator.acceptance
    assert tracker is not None
    before, proposed = tracker.engine.first_trials, adaptive_llm.engine.stats().spec_proposed_tokens
    _, drafted = _run(adaptive_llm, prompts[:1], 1.0, 50.0)  # the quote: proposals followed, none verified
    assert drafted == 0 and tracker.engine.first_trials > before + 3
    assert adaptive_llm.engine.stats().spec_proposed_tokens > proposed  # operators see what was proposed


def test_a_quoting_sequence_drafts_where_an_open_one_does_not(adaptive_llm: LLM, prompts: list[list[int]]) -> None:
    """At a CPU-like 1.7x verification cost, the quote's proposals pay and the open text's do not."""
    engine = adaptive_llm.engine
    _, quote_drafts = _run(adaptive_llm, prompts[:1], 1.0, 1.7)
    accepted = engine.stats_collector.spec_accepted_tokens
    _, open_drafts = _run(adaptive_llm, prompts[1:], 1.0, 1.7)
    assert quote_drafts >= 16
    assert open_drafts < quote_drafts / 2
    assert engine.stats_collector.spec_accepted_tokens >= accepted


def test_the_engine_measures_its_decode_steps_by_size() -> None:
    llm = LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="ngram"))
    tokenizer = llm.tokenizer
    prompt = tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": QUOTE}]),
                              add_special_tokens=False)
    llm.generate([prompt], SamplingParams(max_tokens=32, temperature=0, ignore_eos=True))
    engine = llm.engine
    assert engine.speculator is not None
    assert 1 in engine.speculator.plain_step_costs.fitted()  # one sequence decoding: measured first, before any draft
    assert engine.stats_collector.spec_draft_tokens > 0  # then drafts, to measure what verifying them costs
    off = LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="ngram",
                           prompt_lookup_adaptive=False))
    assert off.engine.speculator is not None and off.engine.speculator.acceptance is None


def test_the_engine_times_its_steps_on_the_speculators_clock() -> None:
    """The step costs come from ``speculator.clock`` (CPU time on a CPU), not from a wall clock of the engine's own:
    a clock that advances 7 s a reading makes every measured step cost exactly 7 s."""
    llm = LLM(EngineConfig(show_progress=False, kv_cache_memory_mb=64, speculative_method="ngram"))
    speculator = llm.engine.speculator
    assert speculator is not None
    readings = iter(range(0, 1_000_000, 7))
    speculator.clock = lambda: float(next(readings))
    tokenizer = llm.tokenizer
    prompt = tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": QUOTE}]),
                              add_special_tokens=False)
    llm.generate([prompt], SamplingParams(max_tokens=24, temperature=0, ignore_eos=True))
    costs = speculator.plain_step_costs.fitted()
    assert costs and set(costs.values()) == {7.0}
