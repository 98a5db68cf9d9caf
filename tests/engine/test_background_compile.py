"""A first start that serves uncompiled while a child process compiles (``engine.worker.background_compile``): the
same greedy tokens before and after the graphs are swapped in, a failed compile leaves the engine serving
uncompiled, and the child never outlives the engine.

Each start runs in its own process: inductor and the C++ kernels take their cache directories from the environment
once per process, and the engine under test must be killable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch

from engine.config import cpu_flags, cxx_compiler_available, fastest_serving
from engine.layers.linear import int4_supported
from engine.worker.background_compile import LOG_FILE
from engine.worker.precompiled import PRECOMPILED_DIR
from kernels import cpu

pytestmark = [
    pytest.mark.slow,  # each start compiles the tiny model's four graphs in a child: about a minute on a busy CPU
    pytest.mark.skipif(not fastest_serving("cpu", cpu_flags(), cxx=cxx_compiler_available()).compile_model
                       or not int4_supported(128, 64, torch.bfloat16),
                       reason="the fast profile does not compile int4 layers on this machine"),
]

_ENGINE = """
import gc, json, sys, time
from engine.config import EngineConfig
from engine.llm import LLM
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.worker.compilation import CacheCounts
llm = LLM(EngineConfig(model=sys.argv[1], profile="fast", compile_cache_dir=sys.argv[2], num_kv_blocks=32,
                       block_size=4, max_num_seqs=4, max_num_batched_tokens=16, num_threads=1))
runner = llm.engine.runner
prompts = [[5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15], [16, 17]]
params = SamplingParams(max_tokens=8, temperature=0, ignore_eos=True)
report = {"background": runner.background is not None, "child": runner.background and runner.background.pid,
          "freezing": (runner.compiled or runner.background.compiled).freezing}
def generate():
    return [o.token_ids for o in llm.generate(prompts, params)]
if sys.argv[3] == "serve":
    report["before"] = generate()
    report["compiled_before"] = runner.compiled is not None
    # Requests in flight across the swap: their first steps uncompiled, the rest compiled.
    tokens = {f"x{i}": [] for i in range(len(prompts))}
    for i, prompt in enumerate(prompts):
        llm.engine.add_request(EngineRequest(f"x{i}", prompt, params))
    def step():
        for delta in llm.engine.step():
            tokens[delta.request_id] += delta.token_ids
    for _ in range(3):
        step()
    report["compiled_midway"] = runner.compiled is not None
    if runner.background is not None:
        assert runner.background.wait(900), "the background compile did not finish"
    while llm.engine.has_unfinished_requests():
        step()
    report["across"] = list(tokens.values())
    report["after"] = generate()
    report["compiled_after"] = runner.compiled is not None
    counts = CacheCounts.now()
    report["loaded"], report["saved"] = counts.loaded, counts.saved
elif sys.argv[3] == "drop":  # the engine let go of while its child compiles: the child is killed
    del llm, runner
    gc.collect()
elif sys.argv[3] == "hang":
    print(json.dumps(report), flush=True)
    time.sleep(3600)
print(json.dumps(report), flush=True)
"""


def _environment(cache: Path) -> None:
    cache.mkdir(exist_ok=True)
    # The C++ kernels from this process's extension cache (built once per machine): these tests are about the graphs.
    (cache / "extensions").symlink_to(cpu.build_directory().parent, target_is_directory=True)


def _start(model: Path, cache: Path, mode: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _ENGINE, str(model), str(cache), mode], capture_output=True,
                          text=True, timeout=1200)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("warden: compilation and warm-up: ")]
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "lines": lines, "stderr": done.stderr}


def _session_members(session: int) -> list[int]:
    """The processes of ``session`` (the child's own: it and its compile workers)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # Fields after the command's closing parenthesis: state, ppid, pgrp, session, ...
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def _gone(session: int, within_s: float = 60.0) -> bool:
    deadline = time.monotonic() + within_s
    while _session_members(session):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_a_first_start_serves_at_once_and_swaps_the_graphs_in(tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "compile-cache"
    _environment(cache)
    first = _start(tiny_llama_dir, cache, "serve")
    if first["freezing"]:
        pytest.skip("inductor lowers a GEMM here (AMX): frozen graphs cannot be handed over")
    assert first["background"] and not first["compiled_before"] and first["compiled_after"]
    assert "serving uncompiled while compiling in the background (est." in first["lines"][0]
    assert "4 graphs compiled in the background in" in first["lines"][1]
    assert "compiled graphs swapped in (4 graphs compiled in the background) in" in first["lines"][2]
    assert (first["loaded"], first["saved"]) == (4, 0)  # the child saved them, this process loaded them whole
    # Greedy: the uncompiled steps and the compiled ones give the same tokens, also to requests decoding across the
    # swap (their KV cache written uncompiled, read compiled).
    assert not first["compiled_midway"]
    assert first["after"] == first["across"] == first["before"]
    assert _gone(first["child"])

    # The next start of this configuration finds them saved and loads them before it serves.
    second = _start(tiny_llama_dir, cache, "serve")
    assert not second["background"] and second["compiled_before"]
    assert (second["loaded"], second["saved"]) == (4, 0)
    assert "4 graphs loaded whole from the compile cache (not traced) in" in second["lines"][-1]
    assert second["before"] == second["across"] == second["after"] == first["before"]


def test_a_failed_background_compile_keeps_serving_uncompiled(tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "compile-cache"
    _environment(cache)
    (cache / "inductor").mkdir()
    (cache / "inductor" / PRECOMPILED_DIR).write_text("")  # a file where the saved graphs would go: the child fails
    started = _start(tiny_llama_dir, cache, "serve")
    if started["freezing"]:
        pytest.skip("inductor lowers a GEMM here (AMX): frozen graphs cannot be handed over")
    assert started["background"] and not started["compiled_after"]
    assert started["after"] == started["across"] == started["before"]
    assert "compiling in the background failed (the compiler process exited with status 1)" in started["stderr"]
    assert f"failed in the background, serving uncompiled (see {cache / 'inductor' / LOG_FILE})" in \
        started["lines"][-1]


def test_an_engine_let_go_of_kills_its_compiler_process(tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "compile-cache"
    _environment(cache)
    report = _start(tiny_llama_dir, cache, "drop")
    if not report["background"]:
        pytest.skip("inductor lowers a GEMM here (AMX): frozen graphs cannot be handed over")
    assert _gone(report["child"])  # killed, with its compile workers, before the engine moved on
    assert not list((cache / "inductor").glob(f"{PRECOMPILED_DIR}/*/*.bin"))  # it saved nothing


def test_the_compiler_process_dies_with_the_engine(tiny_llama_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "compile-cache"
    _environment(cache)
    engine = subprocess.Popen([sys.executable, "-c", _ENGINE, str(tiny_llama_dir), str(cache), "hang"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert engine.stdout is not None
        report = json.loads(engine.stdout.readline())
        if not report["background"]:
            pytest.skip("inductor lowers a GEMM here (AMX): frozen graphs cannot be handed over")
        assert _session_members(report["child"])  # compiling
        os.kill(engine.pid, signal.SIGKILL)  # no shutdown, no atexit: the kernel's parent-death signal only
        engine.wait()
        assert _gone(report["child"])
    finally:
        engine.kill()
        engine.wait()
