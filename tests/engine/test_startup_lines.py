"""An engine's start prints one line per phase with its time: the chosen configuration, the C++ kernels (built or
cached), the weights, and (compiled) the compilation with an estimate first, which a second start takes from the
recorded time of the first and loads every graph whole from the compile cache."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import torch

from engine.config import EngineConfig, cpu_flags, cxx_compiler_available, fastest_serving
from engine.core.startup import describe_serving
from engine.llm import LLM
from engine.worker.compilation import COMPILE_TIMES_FILE, CacheCounts, CompileTimes
from engine.worker.precompiled import PRECOMPILED_DIR
from kernels import cpu

SECONDS = r"in \d+\.\d s"


def test_an_eager_start_prints_each_phase_with_its_time(tiny_llama_dir: Path,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    LLM(EngineConfig(model=str(tiny_llama_dir), num_kv_blocks=8, block_size=4))
    lines = [line for line in capfd.readouterr().err.splitlines() if line.startswith("warden: ")]
    assert lines[0] == f"warden: engine: {tiny_llama_dir.name} on cpu, float32, unquantized, eager (profile exact)"
    # A first build announces itself and reports each source compiled before its closing line.
    kernels = [line for line in lines if line.startswith("warden: C++ kernels: ")]
    assert lines[1:1 + len(kernels)] == kernels
    assert re.fullmatch(rf"warden: C\+\+ kernels: (cache hit|built into|unavailable).* {SECONDS}", kernels[-1])
    assert all(re.fullmatch(r"warden: C\+\+ kernels: (building \d+ sources .*|\d+ of \d+ sources compiled \(\d+ s\))",
                            line) for line in kernels[:-1])
    assert re.fullmatch(rf"warden: weights: \d+ tensors of {tiny_llama_dir.name} loaded \(\d+ MB as float32\) "
                        rf"{SECONDS}", lines[1 + len(kernels)])
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


def test_the_compile_line_says_how_the_caches_served_the_graphs() -> None:
    assert CacheCounts(graphs=4, generated=4).describe() == "4 of 4 graphs compiled and cached for the next start"
    assert CacheCounts(graphs=4, generated=1, traced_from_cache=3).describe() == \
        "1 of 4 graphs compiled and cached for the next start"
    assert CacheCounts(graphs=4, traced_from_cache=4).describe() == "4 graphs from the compile cache"
    assert CacheCounts(graphs=4).describe() == "4 graphs' code from the compile cache (traced again: frozen weights)"
    later = CacheCounts(graphs=9, generated=3, traced_from_cache=5)
    assert later.since(CacheCounts(graphs=5, generated=3, traced_from_cache=1)) == CacheCounts(4, 0, 4)
    # Graphs saved whole and loaded whole (engine.worker.precompiled) are what an unfrozen start reports.
    assert CacheCounts(graphs=4, saved=4).describe() == "4 of 4 graphs compiled and cached for the next start"
    assert CacheCounts(loaded=4).describe() == "4 graphs loaded whole from the compile cache (not traced)"
    assert CacheCounts(graphs=1, loaded=3, saved=1).describe() == \
        "1 of 4 graphs compiled and cached for the next start (3 loaded whole from the compile cache)"
    assert CacheCounts(9, 3, 5, 6, 4).since(CacheCounts(5, 3, 1, 2, 4)) == CacheCounts(4, 0, 4, 4, 0)


_START = """
import json, sys
from engine.worker.compilation import CacheCounts
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
llm = LLM(EngineConfig(model=sys.argv[1], profile="fast", compile_cache_dir=sys.argv[2], quantization=sys.argv[3],
                       compile_in_background=False,
                       num_kv_blocks=16, block_size=4, max_num_seqs=4, max_num_batched_tokens=16, num_threads=1))
out = llm.generate([[5, 6, 7, 8]], SamplingParams(max_tokens=4, temperature=0, ignore_eos=True))[0]
counts = CacheCounts.now()
print(json.dumps({"tokens": out.token_ids, "freezing": llm.engine.runner.compiled.freezing, "graphs": counts.graphs,
                  "generated": counts.generated, "traced_from_cache": counts.traced_from_cache,
                  "loaded": counts.loaded, "saved": counts.saved}))
"""


def _start(model: Path, cache: Path, quantization: str = "auto") -> tuple[str, str, dict[str, Any]]:
    """One engine start in its own process (inductor reads its cache directory from the environment once): the
    compile phase's announcement and closing line, and what the start reports (``_START``): the tokens of a greedy
    request, whether the graphs were frozen, how many graphs the compile caches served, and the start's stderr."""
    done = subprocess.run([sys.executable, "-c", _START, str(model), str(cache), quantization], capture_output=True,
                          text=True, timeout=600, check=True)
    lines = [line for line in done.stderr.splitlines() if line.startswith("warden: compilation and warm-up: ")]
    assert len(lines) == 2 and re.search(rf" {SECONDS}$", lines[1]), done.stderr[-2000:]
    return lines[0], lines[1], {**json.loads(done.stdout.strip().splitlines()[-1]), "stderr": done.stderr}


@pytest.mark.slow
@pytest.mark.skipif(not fastest_serving("cpu", cpu_flags(), cxx=cxx_compiler_available()).compile_model,
                    reason="the fast profile does not compile on this machine (no AVX2/FMA/F16C or no C++ compiler)")
def test_a_second_compiled_start_hits_the_cache(tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "compile-cache"
    cache.mkdir()
    # The C++ kernels from this process's extension cache (built once per machine): this test is about inductor's.
    (cache / "extensions").symlink_to(cpu.build_directory().parent, target_is_directory=True)
    first_line, first_end, first = _start(tiny_llama_dir, cache)
    assert "first compile of this configuration: about" in first_line
    assert first["graphs"] == 4 and first["traced_from_cache"] == first["loaded"] == 0
    assert first["saved"] == (0 if first["freezing"] else 4)  # unfrozen graphs are saved whole
    assert "4 of 4 graphs compiled and cached for the next start in" in first_end
    assert list((cache / "inductor").iterdir())  # inductor's generated code is under the configured directory
    second_line, second_end, second = _start(tiny_llama_dir, cache)
    assert re.search(r"about \d+ s \(this configuration's last start here", second_line)
    assert second["tokens"] == first["tokens"] and second["freezing"] == first["freezing"]
    # Every graph the second start needs comes from the first one's cache: none is generated again. Unfrozen,
    # all four are loaded whole, not even traced by dynamo; frozen, traced again over inductor's cached code.
    assert second["generated"] == second["saved"] == 0
    if first["freezing"]:
        assert second["graphs"] == 4 and second["loaded"] == 0
        assert "4 graphs' code from the compile cache (traced again: frozen weights) in" in second_end
        return
    assert second["graphs"] == 0 and second["loaded"] == 4
    assert "4 graphs loaded whole from the compile cache (not traced) in" in second_end
    # A corrupt saved graph is compiled again, said in the log, and the outputs are the same.
    saved = sorted((cache / "inductor" / PRECOMPILED_DIR).glob("*/*.bin"))
    assert len(saved) == 4
    saved[0].write_bytes(saved[0].read_bytes()[:100])
    _, third_end, third = _start(tiny_llama_dir, cache)
    assert third["tokens"] == first["tokens"] and (third["loaded"], third["saved"]) == (3, 1)
    assert f"precompiled graph {saved[0]} unreadable" in third["stderr"]
    assert "1 of 4 graphs compiled and cached for the next start (3 loaded whole from the compile cache)" in third_end
    # Another configuration in the same cache (int8 layers: other ops in the graphs) is compiled, never served
    # the int4 graphs.
    _, _, other = _start(tiny_llama_dir, cache, "int8")
    assert other["graphs"] == 4 and other["loaded"] == 0 and other["saved"] == 4
    assert len(list((cache / "inductor" / PRECOMPILED_DIR).glob("*/*.bin"))) == 8


def test_the_fast_profile_compiles_in_the_background_unless_told_not_to() -> None:
    cpu_device = torch.device("cpu")
    assert EngineConfig(profile="fast").resolved_for(cpu_device).compile_in_background is True
    assert EngineConfig().resolved_for(cpu_device).compile_in_background is False
    assert EngineConfig(profile="fast", compile_in_background=False).resolved_for(cpu_device).compile_in_background \
        is False
