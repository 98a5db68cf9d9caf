"""Start time of the ``fast`` profile's compiled engine, first and second start in one compile cache, and its
decode speed: ``background`` and ``foreground`` start from nothing at all (the C++ kernels built too, as on a new
machine), serving uncompiled at once while a child process compiles (``engine.worker.background_compile``), or
compiling before serving; ``installed`` is ``background`` after ``make install``'s kernel build (``python -m
kernels.cpu.build`` into an empty extension cache, timed as ``install_build``), so its first start copies the
kernels into its empty compile cache instead of building them; ``whole`` (graphs saved whole and loaded without
tracing, compiled in the foreground), ``traced`` (unfrozen but traced by dynamo at every start) and ``frozen``
start with this machine's C++ kernels copied in.

    python -m bench.start_time [--arms installed,background,foreground,whole,traced,frozen] [--threads 1]
                               [--out bench/results/start_time.json]

Each start is a new process, as ``warden serve`` would start: ``ready_s`` is from the process's start to the engine
ready for requests (imports, kernels, weights, and compilation and warm-up unless in the background). A background
start also times greedy decoding of one stream while the child compiles (``uncompiled_tok_s_1_stream``), then
waits for the graphs and reports when they were swapped in (``compiled_s``, from the process's start). After the
second start it times greedy decoding of 64 tokens for 1 and 8 streams (best of two rounds). The counters say how
the caches served the graphs (``engine.worker.compilation.CacheCounts``). Starts are CPU-bound: on a shared machine
the load average is recorded beside each figure, and only side-by-side ratios of one run compare. Arms not run
keep their results from the output file's earlier run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.provenance import write_results

ARMS = ("installed", "background", "foreground", "whole", "traced", "frozen")
FROM_NOTHING = ("background", "foreground")  # arms whose first start builds the C++ kernels too
INSTALLED = "installed"  # the arm whose kernels `make install` built into an empty extension cache first
BACKGROUND = ("background", INSTALLED)  # arms serving uncompiled while a child compiles
DECODE_TOKENS = 64


def _child(cache: str, arm: str, threads: int, decode: bool) -> None:
    """One start, reported as a JSON line on stdout."""
    started = time.perf_counter()
    from engine.worker import compilation

    if arm == "frozen":  # frozen weights whatever the linears run: traced at every start, code from the cache
        compilation.inductor_lowers_a_gemm = lambda model: True
    elif arm == "traced":  # unfrozen, never saved whole: dynamo traces, AOTAutograd's cache serves the graphs
        compilation.CompiledModel._prepare_whole = lambda self, graph, *tensors: None  # type: ignore[method-assign]
    from engine.config import EngineConfig
    from engine.llm import LLM
    from engine.sampling_params import SamplingParams

    llm = LLM(EngineConfig(profile="fast", compile_cache_dir=cache, num_threads=threads,
                           compile_in_background=arm in BACKGROUND))
    ready = time.perf_counter() - started
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    report: dict[str, Any] = {
        "ready_s": round(ready, 1), "load_1min_at_ready": os.getloadavg()[0],
        # CPU time to ready, which the machine's other load does not inflate: this process's, and its finished
        # children's (the C++ kernels' compilers, which run in parallel).
        "ready_cpu_s": round(own.ru_utime + own.ru_stime, 1),
        "ready_children_cpu_s": round(children.ru_utime + children.ru_stime, 1)}
    runner = llm.engine.runner
    if runner.background is not None:
        prompt, params = [[5, 6, 7, 8, 9, 10]], SamplingParams(max_tokens=32, temperature=0, ignore_eos=True)
        t = time.perf_counter()
        tokens = len(llm.generate(prompt, params)[0].token_ids)
        report["uncompiled_tok_s_1_stream"] = round(tokens / (time.perf_counter() - t), 1)
        assert runner.compiled is None, "swapped in before the uncompiled decode finished"
        assert runner.background.wait(1800), "the background compile did not finish"
        llm.generate(prompt, SamplingParams(max_tokens=1, temperature=0))  # the next step swaps the graphs in
        report["compiled_s"] = round(time.perf_counter() - started, 1)
    compiled = runner.compiled
    assert compiled is not None, "the fast profile did not compile on this machine"
    counts = compilation.CacheCounts.now()
    report |= {"compile_s": round(compiled.compile_seconds, 1), "freezing": compiled.freezing,
               "graphs": counts.graphs, "generated": counts.generated, "traced_from_cache": counts.traced_from_cache,
               "loaded": counts.loaded, "saved": counts.saved, "load_1min": os.getloadavg()[0]}
    if decode:
        params = SamplingParams(max_tokens=DECODE_TOKENS, temperature=0, ignore_eos=True)
        llm.generate([[5, 6, 7, 8]], SamplingParams(max_tokens=4, temperature=0, ignore_eos=True))
        for streams in (1, 8):
            prompts = [[5 + i, 6, 7, 8, 9, 10] for i in range(streams)]
            best = 0.0
            for _ in range(2):
                t = time.perf_counter()
                outputs = llm.generate(prompts, params)
                best = max(best, sum(len(o.token_ids) for o in outputs) / (time.perf_counter() - t))
            report[f"decode_tok_s_{streams}_streams"] = round(best, 1)
    print(json.dumps(report))


def _install_build(extensions: Path) -> dict[str, Any]:
    """``make install``'s kernel build into the empty extension cache ``extensions``: wall and compiler CPU time."""
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(extensions)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kernels.cpu.build"], capture_output=True, text=True, timeout=2400,
                          env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"kernel build failed:\n{done.stderr[-3000:]}")
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu_s, 1), "load_1min": os.getloadavg()[0],
            "lines": [line.removeprefix("warden: ") for line in done.stderr.splitlines()
                      if line.startswith("warden: ")]}


def _start(cache: Path, arm: str, threads: int, decode: bool, extensions: Path | None = None) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.start_time", "--child", str(cache), "--arms", arm, "--threads",
               str(threads)] + (["--decode"] if decode else [])
    env = dict(os.environ)
    if arm in FROM_NOTHING:  # no build of the kernels to copy in: the extension root is the (empty) cache's own
        env["TORCH_EXTENSIONS_DIR"] = str(cache / "extensions")
    elif extensions is not None:  # the build `make install` left: the start copies it into its compile cache
        env["TORCH_EXTENSIONS_DIR"] = str(extensions)
    done = subprocess.run(command, capture_output=True, text=True, timeout=2400, env=env)
    if done.returncode != 0:
        raise SystemExit(f"start failed ({arm}):\n{done.stderr[-3000:]}")
    phases = [line.removeprefix("warden: ") for line in done.stderr.splitlines() if line.startswith("warden: ")]
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "phases": phases}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arms", default=",".join(ARMS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="bench/results/start_time.json")
    parser.add_argument("--child", metavar="CACHE_DIR", help=argparse.SUPPRESS)
    parser.add_argument("--decode", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.arms, args.threads, args.decode)
        return
    arms = [arm for arm in args.arms.split(",") if arm]
    unknown = set(arms) - set(ARMS)
    if unknown:
        parser.error(f"unknown arms {sorted(unknown)}; choose from {', '.join(ARMS)}")
    from kernels import cpu

    if set(arms) - set(FROM_NOTHING) - {INSTALLED}:
        cpu.load()  # this machine's C++ kernels, built now if they are not: those arms' first starts copy them
    out = Path(args.out)
    try:
        earlier: dict[str, Any] = json.loads(out.read_text())
    except (OSError, ValueError):
        earlier = {}
    results: dict[str, Any] = earlier.get("arms", {})
    # Notes and reruns added beside the arms (as "background_rerun") stay; provenance is this run's.
    kept = {key: value for key, value in earlier.items() if key not in ("arms", "provenance")}
    with tempfile.TemporaryDirectory(prefix="warden-start-time-") as root:
        for arm in arms:
            cache = Path(root) / arm
            installed = Path(root) / "installed-extensions" if arm == INSTALLED else None
            build = _install_build(installed) if installed is not None else None
            first = _start(cache, arm, args.threads, decode=False, extensions=installed)
            second = _start(cache, arm, args.threads, decode=True, extensions=installed)
            results[arm] = {"first_start": first, "second_start": second}
            if build is not None:
                results[arm]["install_build"] = build
                print(f"{arm:9s} install build {build['wall_s']} s ({build['cpu_s']} CPU s), load "
                      f"{build['load_1min']:.1f}", flush=True)
            results[arm]["command"] = f"python -m bench.start_time --arms {arm} --threads {args.threads}"
            print(f"{arm:9s} first start {first['ready_s']:6.1f} s (compile {first['compile_s']:.1f} s, compiled "
                  f"at {first.get('compiled_s', first['ready_s'])} s), second "
                  f"{second['ready_s']:6.1f} s (compile {second['compile_s']:.1f} s, {second['loaded']} graphs "
                  f"loaded whole, {second['traced_from_cache']}/{second['graphs']} traced from AOTAutograd's cache), "
                  f"decode "
                  f"{second['decode_tok_s_1_streams']} / {second['decode_tok_s_8_streams']} tok/s at 1 / 8 streams, "
                  f"load {first['load_1min']:.1f} -> {second['load_1min']:.1f}", flush=True)
            write_results(out, {**kept,  # after each arm: a long run interrupted keeps what it measured
                "threads": args.threads, "decode_tokens": DECODE_TOKENS, "arms": results,
                "model": "SmolLM2-135M-Instruct (the default), profile fast (bf16, int4 layers, int8 head, compiled)",
                "from_nothing": list(FROM_NOTHING), "installed": INSTALLED})


if __name__ == "__main__":
    main()
