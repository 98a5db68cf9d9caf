"""An engine's start prints one line per phase with its time: the chosen configuration, the C++ kernels (built or
cached), the weights, and (compiled) the compilation with an estimate first, which a second start takes from the
recorded time of the first and takes every graph from inductor's cache."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.compilation import COMPILE_TIMES_FILE, CompileTimes
from engine.config import EngineConfig, cpu_flags, cxx_compiler_available, fastest_serving
from engine.llm import LLM
from engine.startup import describe_serving
from kernels import cpu

SECONDS = r"in \d+\.\d s"


def test_an_eager_start_prints_each_phase_with_its_time(tiny_llama_dir: Path,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    LLM(EngineConfig(model=str(tiny_llama_dir), num_kv_blocks=8, block_size=4))
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("warden: ")]
    assert lines[0] == f"warden: engine: {tiny_llama_dir.name} on cpu, float32, unquantized, eager (profile exact)"
    assert re.fullmatch(rf"warden: C\+\+ kernels: (cache hit|built into|unavailable).* {SECONDS}", lines[1])
    assert re.fullmatch(rf"warden: weights: \d+ tensors of {tiny_llama_dir.name} loaded \(\d+ MB as float32\) "
                        rf"{SECONDS}", lines[2])
    assert not any("compilation" in line for line in lines)  # eager: nothing compiles


def test_without_show_progress_the_start_is_silent(tiny_llama_dir: Path, capfd: pytest.CaptureFixture[str]) -> None:
    LLM(EngineConfig(model=str(tiny_llama_dir), num_kv_blocks=8, block_size=4, show_progress=False))
    assert "warden: " not in capfd.readouterr().err


def test_describe_serving_names_the_resolved_choice() -> None:
    config = EngineConfig(profile="fast", dtype="bfloat16", quantization="int4", compile_model=True)
    assert describe_serving(config) == "bfloat16, int4 weights, compiled decoder (profile fast)"


def test_compile_times_survive_a_bad_file(tmp_path: Path) -> None:
    times = CompileTimes(tmp_path)
    assert times.get("k") is None
    (tmp_path / COMPILE_TIMES_FILE).write_text("not json")
    assert times.get("k") is None
    times.record("k", 12.345)
    times.record("other", 1.0)
    assert (times.get("k"), times.get("other")) == (12.3, 1.0)


_START = """
import sys, time
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
llm = LLM(EngineConfig(model=sys.argv[1], profile="fast", compile_cache_dir=sys.argv[2], num_kv_blocks=16,
                       block_size=4, max_num_seqs=4, max_num_batched_tokens=16, num_threads=1))
out = llm.generate([[5, 6, 7, 8]], SamplingParams(max_tokens=4, temperature=0, ignore_eos=True))[0]
print(out.token_ids)
from torch._dynamo.utils import counters
print(counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"])
"""


def _start(model: Path, cache: Path) -> tuple[str, list[int], int, int]:
    """One engine start in its own process (inductor reads its cache directory from the environment once): the
    compile phase's announcement, the tokens of a greedy request, and inductor's graph-cache hits and misses."""
    done = subprocess.run([sys.executable, "-c", _START, str(model), str(cache)], capture_output=True, text=True,
                          timeout=600, check=True)
    lines = [line for line in done.stderr.splitlines() if line.startswith("warden: compilation and warm-up: ")]
    finished = re.fullmatch(r"warden: compilation and warm-up: done in \d+\.\d s", lines[-1])
    assert len(lines) == 2 and finished is not None, done.stderr[-2000:]
    *_, tokens, cache_counts = done.stdout.strip().splitlines()
    hits, misses = (int(count) for count in cache_counts.split())
    return lines[0], ast.literal_eval(tokens), hits, misses


@pytest.mark.slow
@pytest.mark.skipif(not fastest_serving("cpu", cpu_flags(), cxx=cxx_compiler_available()).compile_model,
                    reason="the fast profile does not compile on this machine (no AVX2/FMA/F16C or no C++ compiler)")
def test_a_second_compiled_start_hits_the_cache(tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "compile-cache"
    cache.mkdir()
    # The C++ kernels from this process's extension cache (built once per machine): this test is about inductor's.
    (cache / "extensions").symlink_to(cpu.build_directory().parent, target_is_directory=True)
    first_line, first_tokens, first_hits, first_misses = _start(tiny_llama_dir, cache)
    assert "first compile of this configuration: about" in first_line
    assert (first_hits, first_misses > 0) == (0, True)
    assert list((cache / "inductor").iterdir())  # inductor's generated code is under the configured directory
    second_line, second_tokens, second_hits, second_misses = _start(tiny_llama_dir, cache)
    assert re.search(r"about \d+ s \(this configuration's last start here", second_line)
    assert second_tokens == first_tokens
    # Every graph the second start needs comes from the first one's cache: none is generated again.
    assert (second_hits, second_misses) == (first_misses, 0)
