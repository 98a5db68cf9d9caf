"""The serving benchmark's replay and arithmetic: session order, think time and the concurrency bound, SSE timing,
statistics, the SLO and goodput, the best level at the SLO and the Pareto front; prompts synthesized to exact
lengths with exactly the shared prefixes."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest

from bench.serve_prompts import PromptSynthesizer
from bench.serve_replay import ChatStreamer, RequestResult, replay
from bench.serve_stats import LevelSummary, Slo, best_at_slo, pareto_front, percentile, summarize
from bench.traces.generate import TraceShape, generate
from bench.traces.mooncake import TraceEntry
from gateway.openai import responses
from gateway.openai.streaming import SSE_DONE, sse_event


async def test_replay_keeps_session_order_and_the_concurrency_bound() -> None:
    entries = generate(TraceShape(context=256, output=4, block_size=64, sessions=5, turns=3, reuse=0.5))
    in_flight = peak = 0
    spans: dict[int, tuple[float, float]] = {}

    async def send(index: int, entry: TraceEntry) -> RequestResult:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        start = time.perf_counter()
        await asyncio.sleep(0.01 * (1 + index % 3))
        in_flight -= 1
        spans[index] = (start, time.perf_counter())
        return RequestResult(index=index, session_id=entry.session_id)

    results, wall = await replay(entries, 3, send)
    assert [r.index for r in results] == list(range(len(entries))) and wall > 0
    assert peak == 3
    for session in {e.session_id for e in entries}:
        turns = [i for i, e in enumerate(entries) if e.session_id == session]
        for before, after in itertools.pairwise(turns):
            assert spans[before][1] <= spans[after][0]


async def test_a_session_thinks_between_turns_without_holding_a_slot() -> None:
    entries = [TraceEntry(0, 10, 2, (), "a"), TraceEntry(1, 10, 2, (), "b"), TraceEntry(2, 10, 2, (), "a")]
    spans: dict[int, tuple[float, float]] = {}

    async def send(index: int, entry: TraceEntry) -> RequestResult:
        start = time.perf_counter()
        await asyncio.sleep(0.02)
        spans[index] = (start, time.perf_counter())
        return RequestResult(index=index, session_id=entry.session_id)

    await replay(entries, 1, send, think_s=0.2)
    assert spans[2][0] - spans[0][1] >= 0.2  # a's second turn waited its think time after its first answer
    assert spans[1][0] < spans[2][0]  # and b used the one slot meanwhile


async def test_a_failed_turn_does_not_stall_its_session() -> None:
    entries = [TraceEntry(0, 10, 2, (), "s"), TraceEntry(1, 10, 2, (), "s")]

    async def send(index: int, entry: TraceEntry) -> RequestResult:
        if index == 0:
            raise RuntimeError("boom")
        return RequestResult(index=index, session_id="s")

    with pytest.raises(RuntimeError):
        await asyncio.wait_for(replay(entries, 1, send), 5)


def test_sse_lines_from_the_gateway_are_timed() -> None:
    result = RequestResult(index=0, session_id=None, start_s=0.0)
    kwargs: dict[str, Any] = {"response_id": "chatcmpl-1", "created": 0, "model": "m", "index": 0, "logprobs": None,
              "with_usage_field": True}
    lines = [sse_event(responses.chat_chunk(delta={"role": "assistant", "content": ""}, finish_reason=None,
                                            **kwargs)),
             sse_event(responses.chat_chunk(delta={"content": "Hel"}, finish_reason=None, **kwargs)),
             sse_event(responses.chat_chunk(delta={"content": "lo"}, finish_reason=None, **kwargs)),
             sse_event(responses.chat_chunk(delta={"content": "!"}, finish_reason="stop", **kwargs)),
             sse_event(responses.usage_chunk(response_id="chatcmpl-1", created=0, model="m",
                                             object_name="chat.completion.chunk",
                                             usage=responses.usage_body(50, 3, 32))),
             SSE_DONE]
    for now, line in zip([0.1, 0.5, 0.7, 0.9, 0.95, 1.0], lines, strict=True):
        ChatStreamer._absorb(result, line.decode().strip(), now)
    assert result.ok and result.ttft_s == 0.5 and result.output_tokens == 3
    assert result.itl_s == pytest.approx(0.2) and result.chunk_gaps_s == pytest.approx([0.2, 0.2])
    assert (result.prompt_tokens, result.cached_tokens) == (50, 32)


def test_percentiles_and_summary() -> None:
    assert percentile([], 50) is None
    assert percentile([1, 2, 3, 4], 50) == 2.5 and percentile([1, 2, 3, 4], 100) == 4
    results = [RequestResult(index=i, session_id=None, start_s=0.0, first_token_s=0.5 + i * 0.1,
                             chunk_times=[0.5 + i * 0.1, 1.5 + i * 0.1], output_tokens=11, prompt_tokens=100,
                             cached_tokens=50, end_s=2.0) for i in range(3)]
    results.append(RequestResult(index=3, session_id=None, error="HTTP 500"))
    summary = summarize(2, results, wall_s=3.0, slo=Slo(tps_per_user=10.0, ttft_p90_s=0.65))
    assert summary.requests == 4 and summary.errors == 1
    assert summary.ttft_p50_ms == 600.0 and summary.itl_p50_ms == 100.0 and summary.tps_per_user_p50 == 10.0
    assert summary.ttft_p90_ms == 680.0
    assert summary.output_tok_s == 11.0 and summary.cache_hit_rate == 0.5
    # Requests 0 and 1 met the SLO (TTFT 0.5 and 0.6 s, 10 tok/s each), request 2 waited 0.7 s, 3 failed.
    assert summary.goodput_rps == pytest.approx(2 / 3.0, abs=1e-4)
    assert not summary.meets_slo  # an error, and the TTFT p90 (0.68 s) is over the bound


def timed(index: int, ttft_s: float, itl_s: float, tokens: int = 11) -> RequestResult:
    first = 1.0 + ttft_s
    return RequestResult(index=index, session_id=None, start_s=1.0, first_token_s=first,
                         chunk_times=[first, first + itl_s * (tokens - 1)], output_tokens=tokens, end_s=first + 1.0)


def test_a_request_meets_the_slo_only_with_both_its_speed_and_its_first_token_in_time() -> None:
    slo = Slo(tps_per_user=10.0, ttft_p90_s=2.0)
    assert slo.met_by(timed(0, ttft_s=2.0, itl_s=0.1))
    assert not slo.met_by(timed(0, ttft_s=2.01, itl_s=0.05))  # fast, but the first token came late
    assert not slo.met_by(timed(0, ttft_s=0.1, itl_s=0.11))  # on time, but 9.1 tokens/s
    assert not slo.met_by(RequestResult(index=0, session_id=None, error="HTTP 429"))
    assert not slo.met_by(timed(0, ttft_s=0.1, itl_s=0.1, tokens=1))  # one token: no speed to judge


def test_a_level_holds_the_slo_by_its_median_speed_and_its_ttft_p90() -> None:
    slo = Slo(tps_per_user=10.0, ttft_p90_s=2.0)
    # Nine quick first tokens and one slow: the p90 interpolates to 2.9 s and the level fails, though 9 of 10 met it.
    results = [timed(i, ttft_s=0.5, itl_s=0.05) for i in range(9)] + [timed(9, ttft_s=25.0, itl_s=0.05)]
    summary = summarize(4, results, wall_s=10.0, slo=slo)
    assert summary.ttft_p90_ms == pytest.approx(2950.0) and not summary.meets_slo
    assert summary.goodput_rps == pytest.approx(0.9)
    # Speed: the median user decides; a slow minority does not fail the level, but does not count as goodput.
    results = [timed(i, ttft_s=0.5, itl_s=0.05) for i in range(6)] + [timed(i, 0.5, 0.2) for i in range(6, 10)]
    summary = summarize(4, results, wall_s=10.0, slo=slo)
    assert summary.meets_slo and summary.tps_per_user_p50 == 20.0 and summary.goodput_rps == pytest.approx(0.6)


def level(concurrency: int, goodput: float, tps_user: float, tok_s: float = 1.0, *, holds: bool = True,
          errors: int = 0) -> LevelSummary:
    return LevelSummary(concurrency, 10, errors, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, tps_user, tok_s, goodput,
                        holds and errors == 0, 0, 0, 1.0)


def test_best_at_slo_and_pareto_front() -> None:
    levels = [level(1, 0.5, 10, 10), level(2, 0.9, 9, 18), level(4, 1.4, 7, 30), level(8, 1.6, 4, 29, holds=False),
              level(16, 2.0, 2, 40, errors=1)]
    assert best_at_slo(levels).concurrency == 4  # type: ignore[union-attr]  # c=8 and c=16 do not hold the SLO
    assert best_at_slo([lv for lv in levels if lv.concurrency > 4]) is None
    assert [lv.concurrency for lv in pareto_front(levels)] == [1, 2, 4, 16]


@pytest.fixture(scope="module")
def synthesizer() -> PromptSynthesizer:
    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    return PromptSynthesizer(Tokenizer.from_source(resolve_model("default", None)), block_size=64)


def test_prompts_have_the_trace_lengths_and_share_exactly_the_hashed_prefix(synthesizer: PromptSynthesizer) -> None:
    tokenizer = synthesizer.tokenizer
    first = TraceEntry(0, 700, 8, tuple(range(11)), "s")
    second = TraceEntry(1, 650, 8, (0, 1, 2, 3, 4, 5, 100, 101, 102, 103, 104), "s")
    ids = [tokenizer.encode(tokenizer.apply_chat_template(synthesizer.messages(e))) for e in (first, second)]
    assert [len(i) for i in ids] == [700, 650]
    shared = next(n for n, (a, b) in enumerate(zip(*ids, strict=False)) if a != b)
    template_head = ids[0].index(tokenizer.encode(" " + synthesizer.block(0, 0)[0])[0])
    assert shared == template_head + 6 * 64  # six equal hash ids: exactly six blocks of equal tokens
    other_salt = tokenizer.encode(tokenizer.apply_chat_template(synthesizer.messages(first, salt=1)))
    assert other_salt[template_head:template_head + 64] != ids[0][template_head:template_head + 64]
