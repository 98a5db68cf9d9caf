"""The Warden-vs-llama.cpp serving benchmark: its accounting, its prompts and the llama-server command line (the
server itself is built only by the benchmark, ~12 minutes, so it is not part of the test run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.gateway_overhead import Sample, Target
from bench.llamacpp import PromptSource, compiled_in_use, requests_at, rotated, summarize
from bench.llamacpp_server import command, cpu_flags


def _sample(latency_s: float, ttft_s: float, tokens: int) -> Sample:
    return Sample(latency_s, ttft_s, tokens, None, content_chunks=tokens, prompt_tokens=40)


def test_throughput_is_tokens_over_wall_time_and_itl_excludes_the_first_token() -> None:
    # Two streams in parallel over 2 s: 2 x 11 tokens; the first token at 0.2 s and 0.5 s, the last at 1.2 and 2.0.
    row = summarize([_sample(1.2, 0.2, 11), _sample(2.0, 0.5, 11)], wall_s=2.0, max_tokens=11)
    assert row["output_tok_s"] == pytest.approx(11.0)
    assert row["ttft_p50_ms"] == pytest.approx(350.0)
    assert row["itl_p50_ms"] == pytest.approx((100.0 + 150.0) / 2)  # 10 gaps in 1.0 s and in 1.5 s
    assert row["prompt_tokens_mean"] == 40


def test_an_output_of_another_length_stops_the_run() -> None:
    """A server that stopped at EOS did less work than the other: comparing their tokens/s would flatter it."""
    with pytest.raises(RuntimeError, match="ignore_eos"):
        summarize([_sample(1.0, 0.1, 11), _sample(1.0, 0.1, 7)], wall_s=1.0, max_tokens=11)


def test_every_prompt_is_new_and_documents_differ_from_their_first_line() -> None:
    source = PromptSource()
    chats = [m[0]["content"] for m in source.take("chat", 40)]
    documents = [m[0]["content"] for m in source.take("document", 40)]
    assert len(set(chats + documents)) == 80
    # The running number leads a document prompt: after "Document " no two prompts share a prefix a prompt cache
    # could reuse, although the 60 documents repeat over a long run.
    first_lines = [d.split("\n", 1)[0] for d in documents]
    assert len(set(first_lines)) == 40 and all(line.startswith("Document ") for line in first_lines)
    assert all(len(d) > 1000 for d in documents)


def test_each_concurrency_sends_two_requests_per_stream_and_the_order_rotates() -> None:
    assert [requests_at(c) for c in (1, 8, 32)] == [3, 16, 64]
    a, b = Target("a", "", ""), Target("b", "", "")
    assert [t.name for t in rotated([a, b], 0)] == ["a", "b"]
    assert [t.name for t in rotated([a, b], 1)] == ["b", "a"]


def test_llama_server_gets_one_slot_per_stream_and_the_same_threads_for_prompts_and_decoding() -> None:
    argv = command(Path("/x/llama-server"), Path("/m.gguf"), port=8123, threads=1, parallel=32,
                   context_per_sequence=1024)
    options = dict(zip(argv[1::2], argv[2::2], strict=False))
    assert options["--parallel"] == "32" and options["--ctx-size"] == str(32 * 1024)
    assert options["--threads"] == options["--threads-batch"] == "1"
    assert options["--host"] == "127.0.0.1" and options["--model"] == "/m.gguf"


def test_llama_cpp_is_built_for_the_extensions_this_cpu_lists_and_never_native() -> None:
    options = dict(flag.removeprefix("-D").split("=") for flag in cpu_flags({"avx", "avx2", "fma", "avx512f",
                                                                              "avx512_vnni", "amx_tile"}))
    assert options["GGML_NATIVE"] == "OFF"  # -march=native would bring AMX tiles in on a Sapphire Rapids VM
    assert options["GGML_AVX512"] == options["GGML_AVX512_VNNI"] == options["GGML_AVX2"] == "ON"
    assert options["GGML_AVX_VNNI"] == options["GGML_AVX512_BF16"] == options["GGML_F16C"] == "OFF"
    assert not any("AMX" in option for option in options)


def test_warden_is_timed_only_once_its_serving_engine_runs_the_compiled_graphs() -> None:
    """A first start serves uncompiled while a child compiles; the standby engine's start-up lines (after the serving
    engine's "ready") say nothing about the engine being measured."""
    background = "warden: compilation and warm-up: serving uncompiled while compiling in the background (est. 70 s)\n"
    ready = "warden: ready: serving https://127.0.0.1:1/v1 (10.8 s after `warden serve` started)\n"
    loaded = "warden: compilation and warm-up: 4 graphs loaded whole from the compile cache (not traced) in 7.4 s\n"
    swapped = "warden: compilation and warm-up: compiled graphs swapped in (4 graphs) in 90 s\n"
    assert not compiled_in_use(background + ready)
    assert not compiled_in_use(background + ready + background)  # the standby's child waits its turn
    assert compiled_in_use(background + ready + swapped)
    assert compiled_in_use(loaded + ready + background)  # cached graphs: only the standby compiles
    with pytest.raises(RuntimeError, match="failed to compile"):
        compiled_in_use(background + ready + "warden: compilation and warm-up: failed in the background, serving "
                        "uncompiled (see x.log)\n")
