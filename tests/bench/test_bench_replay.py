"""The serving benchmark's replay and arithmetic: session order and the concurrency bound, SSE timing, statistics,
the SLO pick and the Pareto front; prompts synthesized to exact lengths with exactly the shared prefixes."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from bench.serve_prompts import PromptSynthesizer
from bench.serve_replay import ChatStreamer, RequestResult, replay
from bench.serve_stats import LevelSummary, best_at_slo, pareto_front, percentile, summarize
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
    kwargs = {"response_id": "chatcmpl-1", "created": 0, "model": "m", "index": 0, "logprobs": None,
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
    summary = summarize(2, results, wall_s=3.0)
    assert summary.requests == 4 and summary.errors == 1
    assert summary.ttft_p50_ms == 600.0 and summary.itl_p50_ms == 100.0 and summary.tps_per_user_p50 == 10.0
    assert summary.output_tok_s == 11.0 and summary.cache_hit_rate == 0.5


def level(concurrency: int, tok_s: float, tps_user: float, errors: int = 0) -> LevelSummary:
    return LevelSummary(concurrency, 10, errors, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, tps_user, tok_s, 0, 0, 1.0)


def test_best_at_slo_and_pareto_front() -> None:
    levels = [level(1, 10, 10), level(2, 18, 9), level(4, 30, 7), level(8, 29, 4), level(16, 40, 2, errors=1)]
    assert best_at_slo(levels, 7).concurrency == 4  # type: ignore[union-attr]
    assert best_at_slo(levels, 1).concurrency == 4  # c=16 had an error: it meets no SLO
    assert best_at_slo(levels, 11) is None
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
