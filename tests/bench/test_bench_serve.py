"""The serving benchmark's plumbing: which sessions a level replays, the trace's think time, the headline ratios,
and the llama.cpp arm (its slot size, its streamed answers, and, where ``bench.llamacpp_server`` has built it, a
real ``llama-server`` answering through the benchmark's client)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from bench.llamacpp_server import ROOT
from bench.serve import (
    ARMS,
    DEFAULT_ARMS,
    ENGINES,
    engine_configs,
    engine_label,
    level_entries,
    ratio,
    reproducing_command,
    scale_output,
    scrape_engine_counters,
    speculation_of_level,
    think_time_s,
)
from bench.serve_llamacpp import context_per_slot, start_llamacpp
from bench.serve_replay import ChatStreamer, RequestResult
from bench.traces.generate import PRESETS, generate
from bench.traces.mooncake import TraceEntry
from engine.config import EngineConfig

AGENTIC = generate(PRESETS["cpu_agentic"])


@pytest.mark.parametrize(("concurrency", "sessions"), [(2, 6), (4, 6), (8, 8)])
def test_a_level_replays_whole_sessions_enough_for_its_requests(concurrency: int, sessions: int) -> None:
    chosen = level_entries(AGENTIC, concurrency, requests=48, max_turns=None)
    by_session: dict[str | None, int] = {}
    for entry in chosen:
        by_session[entry.session_id] = by_session.get(entry.session_id, 0) + 1
    assert len(by_session) == sessions and set(by_session.values()) == {8}  # whole 8-turn sessions
    assert len(chosen) >= 48
    with pytest.raises(SystemExit, match="too few sessions"):
        level_entries(AGENTIC[:20], concurrency, requests=48, max_turns=None)


def test_think_time_is_the_median_gap_between_a_sessions_turns() -> None:
    assert think_time_s(AGENTIC) == 1.0
    assert think_time_s([TraceEntry(0, 10, 2, ()), TraceEntry(5, 10, 2, ())]) == 0.0  # no sessions: no thinking


def test_scaling_the_output_keeps_the_prompt() -> None:
    entry = AGENTIC[0]
    short = scale_output(entry, 0.25)
    assert (short.input_length, short.hash_ids) == (entry.input_length, entry.hash_ids)
    assert short.output_length == max(2, round(entry.output_length / 4))


def test_headline_ratio_compares_goodput_and_is_absent_without_a_level_at_the_slo() -> None:
    assert ratio({"goodput_rps": 0.9}, {"goodput_rps": 0.3}) == 3.0
    assert ratio(None, {"goodput_rps": 0.3}) is None and ratio({"goodput_rps": 0.9}, None) is None


def test_a_levels_speculation_is_the_difference_of_the_counters_scraped_around_it() -> None:
    page = """warden:spec_decode_num_proposed_tokens_total{model="m"} 150
warden:spec_decode_num_draft_tokens_total{model="m"} 60
warden:spec_decode_num_accepted_tokens_total{model="m"} 45
warden:generation_tokens_total{model="m"} 300
"""
    before = {"spec_decode_num_proposed_tokens_total": 50.0, "spec_decode_num_draft_tokens_total": 20.0,
              "spec_decode_num_accepted_tokens_total": 15.0, "generation_tokens_total": 100.0}
    level = speculation_of_level(before, scrape_engine_counters(page))
    assert level == {"proposed": 100, "verified": 40, "accepted": 30, "generated": 200,
                     "accepted_per_generated": 0.15, "accepted_per_verified": 0.75, "verified_per_proposed": 0.4}
    # An engine that does not speculate proposes nothing: no speculation entry for its level.
    assert speculation_of_level({"generation_tokens_total": 1.0}, {"generation_tokens_total": 9.0}) is None


def test_the_int8_kv_arm_is_the_optimized_engine_with_only_its_kv_cache_changed() -> None:
    int8kv, optimized = ENGINES["optimized_int8kv"], ENGINES["optimized"]
    assert {k: v for k, v in int8kv.items() if k != "kv_cache_dtype"} == optimized
    assert EngineConfig(**int8kv).kv_cache_dtype == "int8"
    assert ARMS["optimized_int8kv"].engine == "optimized_int8kv" and not ARMS["optimized_int8kv"].guardrails
    assert "int8 KV cache" in engine_label(int8kv, False) and "KV cache" not in engine_label(optimized, False)


def test_the_block8_arm_is_the_optimized_engine_with_only_its_kv_block_size_changed() -> None:
    block8, optimized = ENGINES["optimized_block8"], ENGINES["optimized"]
    assert {k: v for k, v in block8.items() if k != "block_size"} == optimized
    assert EngineConfig(**block8).block_size == 8 and "block_size" not in optimized
    assert ARMS["optimized_block8"].engine == "optimized_block8" and not ARMS["optimized_block8"].guardrails
    assert "8-token KV blocks" in engine_label(block8, False) and "KV blocks" not in engine_label(optimized, False)


def test_the_int8_input_arm_is_the_optimized_engine_with_every_step_on_int8_inputs() -> None:
    int8in, optimized = ENGINES["optimized_int8in"], ENGINES["optimized"]
    assert {k: v for k, v in int8in.items() if k != "cpu_small_batch_rows"} == optimized
    # Every step of the arm fits under its row bound: the prefill budget, with decodes and drafts beside it.
    assert EngineConfig(**int8in).cpu_small_batch_rows >= 4 * optimized["max_num_batched_tokens"]
    assert "cpu_small_batch_rows" not in optimized
    assert ARMS["optimized_int8in"].engine == "optimized_int8in" and not ARMS["optimized_int8in"].guardrails
    assert "int8 inputs" in engine_label(int8in, False) and "int8 inputs" not in engine_label(optimized, False)


def test_the_optimized_arms_speculate_by_suffix_and_the_nospec_arm_differs_only_there() -> None:
    optimized, nospec = ENGINES["optimized"], ENGINES["optimized_nospec"]
    assert EngineConfig(**optimized).speculative_method == "suffix"
    assert EngineConfig(**nospec).speculative_method is None
    assert EngineConfig(**ENGINES["baseline"]).speculative_method is None
    assert {k: v for k, v in nospec.items() if k != "speculative_method"} == {
        k: v for k, v in optimized.items() if k != "speculative_method"}
    # Guardrails on vs off is the only difference between these two arms.
    assert ARMS["optimized_guardrails"].engine == ARMS["optimized"].engine == "optimized"
    assert ARMS["optimized_guardrails"].guardrails and not ARMS["optimized"].guardrails
    assert "optimized_nospec" in DEFAULT_ARMS and "optimized_suffix" not in ARMS
    assert "suffix speculation" in engine_label(optimized, False)
    assert "no speculation" in engine_label(nospec, False)


def test_an_optimized_override_reaches_its_variants_but_not_their_own_change() -> None:
    engines = engine_configs({"optimized": {"profile": "exact", "speculative_method": "ngram"},
                              "optimized_nospec": {"max_num_batched_tokens": 128}}, threads=2)
    assert engines["optimized"]["profile"] == engines["optimized_nospec"]["profile"] == "exact"
    assert engines["optimized"]["speculative_method"] == "ngram"
    assert engines["optimized_nospec"]["speculative_method"] is None  # its one change wins
    assert engines["optimized_nospec"]["max_num_batched_tokens"] == 128
    assert engines["optimized"]["max_num_batched_tokens"] == 256
    assert engines["baseline"]["profile"] == "exact" and engines["baseline"]["num_threads"] == 2
    assert engines["optimized_int8kv"]["kv_cache_dtype"] == "int8"


def test_a_llama_slot_holds_the_longest_prompt_and_answer() -> None:
    assert context_per_slot(2816, 160) == 3072
    assert context_per_slot(2800, 100) % 256 == 0 and context_per_slot(2800, 100) >= 2964


def test_llama_servers_stream_is_timed_with_its_usage_and_cache_hits() -> None:
    """llama-server's chunks as its server-task.cpp writes them: a role chunk, one chunk per token, a finish
    chunk with an empty delta, then (include_usage) a chunk with no choices carrying usage and timings."""
    lines = ['data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],'
             '"object":"chat.completion.chunk"}',
             'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" Once"}}]}',
             'data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" upon"}}]}',
             'data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}]}',
             'data: {"choices":[],"usage":{"completion_tokens":2,"prompt_tokens":900,"total_tokens":902,'
             '"prompt_tokens_details":{"cached_tokens":640}},"timings":{"cache_n":640}}',
             "data: [DONE]"]
    result = RequestResult(index=0, session_id="s", start_s=0.0)
    for now, line in zip([0.1, 0.4, 0.5, 0.55, 0.56, 0.57], lines, strict=True):
        ChatStreamer._absorb(result, line, now)
    assert result.ok and result.ttft_s == 0.4 and result.itl_s == pytest.approx(0.1)
    assert (result.prompt_tokens, result.output_tokens, result.cached_tokens) == (900, 2, 640)


LLAMA_SERVER = ROOT / "build" / "bin" / "llama-server"


@pytest.mark.skipif(not LLAMA_SERVER.exists() or not (ROOT / "build" / "bin" / "llama-quantize").exists(),
                    reason="llama.cpp is built only by its benchmarks (python -m bench.llamacpp_server)")
def test_the_llamacpp_arm_answers_greedily_through_the_end_of_sequence(tmp_path: Path) -> None:
    server = start_llamacpp(tmp_path, threads=1, parallel=2, context=512)
    try:
        async def one() -> RequestResult:
            async with httpx.AsyncClient() as client:
                streamer = ChatStreamer(client, server.base_url, server.api_key, server.model)
                entry = TraceEntry(0, 40, 24, (), "s")
                return await streamer.send(0, entry, [{"role": "user", "content": "Say hi."}])

        result = asyncio.run(one())
    finally:
        server.stop()
    assert result.ok, result.error
    assert result.output_tokens == 24  # ignore_eos: exactly the trace's length, as Warden writes it
    assert server.process.returncode is not None


def test_the_recorded_command_reproduces_the_run_without_where_it_wrote() -> None:
    argv = ["--concurrency", "2,4,8", "--out", "/tmp/x.json", "--arm-levels", "baseline=2,4", "--plot=/tmp/p.png"]
    assert reproducing_command(argv) == "python -m bench.serve --concurrency 2,4,8 --arm-levels baseline=2,4"
