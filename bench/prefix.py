"""Prefix caching and fairness on a multi-turn agentic trace, replayed against the engine in this process.

    python -m bench.prefix [--quick] [--trace bench/traces/cpu_default.jsonl] [--sessions 4] [--turns 4]

1. Cache on vs off. The Mooncake trace (``bench.traces``; the shipped CPU trace is the seeds' agentic shape scaled
   to about 2K-token contexts, 64 output tokens, 76% block reuse) is replayed closed-loop: ``--concurrency``
   sessions at a time, each sending its next turn as soon as the previous one finishes (tool/think gaps compressed
   to zero, so the CPU is always busy). Sessions belong to ``--tenants`` tenants round-robin; each tenant has its
   own cache salt, and the trace's shared system prompt is published as a public prefix, so tenants share it and
   nothing else. Every hash id becomes the same ``block_size`` token ids wherever it appears, so prompts share
   exactly the prefixes the trace says. Reported: TTFT p50/p99 (engine arrival to first token) and output
   throughput (generated tokens / wall time), cache on and off.
2. Fairness. A victim tenant sends one request at a time (unique prompts) while a flooding tenant keeps
   ``--flood-depth`` requests queued. Victim TTFT p50 alone, under the flood with the fair scheduler, and under
   the flood with plain FIFO admission (``fair_scheduling=False``), for contrast.

Writes bench/results/prefix.json. Numbers from a shared, loaded 2-core box are noisy; the load average is
recorded beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch

from bench.machine import cpu_description
from bench.provenance import write_results
from bench.traces.mooncake import TraceEntry, block_reuse, read_trace, sessions_subset
from engine.config import EngineConfig
from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

RESULTS = Path(__file__).parent / "results" / "prefix.json"
DEFAULT_TRACE = Path(__file__).parent / "traces" / "cpu_default.jsonl"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


class TokenSynthesizer:
    """Hash id -> ``block_size`` token ids, the same wherever the id appears (token-id prompts, no template)."""

    def __init__(self, block_size: int, vocab_size: int, seed: int = 0) -> None:
        self.block_size = block_size
        self.low, self.high = 100, vocab_size - 100  # clear of the special tokens at the ends of the vocabulary
        self.seed = seed

    def block(self, hash_id: int) -> list[int]:
        rng = random.Random(hash_id * 1_000_003 + self.seed)
        return [rng.randrange(self.low, self.high) for _ in range(self.block_size)]

    def prompt(self, entry: TraceEntry) -> list[int]:
        tokens: list[int] = []
        for hash_id in entry.hash_ids:
            tokens += self.block(hash_id)
        return tokens[: entry.input_length]

    def unique(self, length: int, key: str) -> list[int]:
        rng = random.Random(key)
        return [rng.randrange(self.low, self.high) for _ in range(length)]


@dataclass
class Finished:
    tenant: str
    ttft_s: float
    output_tokens: int
    cached_tokens: int
    prompt_tokens: int


@dataclass
class Driver:
    """Runs the engine's step loop and records each request's TTFT (engine-stamped) as it finishes."""

    engine: LLMEngine
    finished: dict[str, Finished] = field(default_factory=dict)
    tenants: dict[str, str] = field(default_factory=dict)
    output_tokens: int = 0

    def submit(self, request: EngineRequest) -> None:
        self.tenants[request.request_id] = request.tenant or ""
        self.engine.add_request(request)

    def step(self) -> list[str]:
        done = []
        for out in self.engine.step():
            self.output_tokens += len(out.token_ids)
            if out.finished:
                timings = out.metrics
                assert timings is not None and out.usage is not None and out.finish_reason == "length", out
                self.finished[out.request_id] = Finished(
                    self.tenants.pop(out.request_id), (timings.first_token_ns - timings.arrival_ns) / 1e9,
                    out.usage.completion_tokens, out.usage.cached_tokens, out.usage.prompt_tokens)
                done.append(out.request_id)
        return done


def replay(engine: LLMEngine, entries: list[TraceEntry], synth: TokenSynthesizer, *, concurrency: int,
           tenants: int, public_prefix_len: int) -> dict[str, float]:
    """Closed-loop replay: ``concurrency`` sessions in flight, turns of a session in order, back to back."""
    sessions: dict[str, list[TraceEntry]] = {}
    for entry in entries:
        sessions.setdefault(entry.session_id or f"#{len(sessions)}", []).append(entry)
    queue = list(sessions.items())
    driver = Driver(engine)
    active: dict[str, tuple[str, list[TraceEntry]]] = {}  # request id -> (session, its remaining turns)
    number = 0

    def send(session: str, turns: list[TraceEntry]) -> None:
        nonlocal number
        entry, rest = turns[0], turns[1:]
        tenant = f"tenant-{int(session.lstrip('s#') or 0) % tenants}"
        rid = f"{session}-t{number}"
        number += 1
        driver.submit(EngineRequest(
            rid, synth.prompt(entry), SamplingParams(max_tokens=entry.output_length, temperature=0, ignore_eos=True),
            cache_salt=f"salt-{tenant}", tenant=tenant, public_prefix_len=public_prefix_len))
        active[rid] = (session, rest)

    started = time.perf_counter()
    while queue or active:
        while queue and len(active) < concurrency:
            send(*queue.pop(0))
        for rid in driver.step():
            session, rest = active.pop(rid)
            if rest:
                send(session, rest)
    wall = time.perf_counter() - started
    ttfts = [f.ttft_s for f in driver.finished.values()]
    prompt_tokens = sum(f.prompt_tokens for f in driver.finished.values())
    return {"requests": len(ttfts), "ttft_p50_s": round(statistics.median(ttfts), 3),
            "ttft_p99_s": round(percentile(ttfts, 99), 3),
            "output_tok_s": round(driver.output_tokens / wall, 2), "wall_s": round(wall, 1),
            "prompt_tokens": prompt_tokens,
            "cached_fraction": round(sum(f.cached_tokens for f in driver.finished.values()) / prompt_tokens, 3)}


FAIRNESS_MODES = ("alone", "flood_fair", "flood_fifo")


def victim_ttfts(engine: LLMEngine, synth: TokenSynthesizer, *, victims: int, victim_len: int, flood_depth: int,
                 flood_len: int, flood_output: int, think_steps: int = 12) -> dict[str, list[float]]:
    """Victim TTFTs per mode: alone; under a flood with the fair scheduler; under the same flood with FIFO
    admission (the scheduler's ``fair`` switch). The modes take turns, one victim request each round, on one
    engine, so drifting load on a shared machine hits them alike. The flooder keeps ``flood_depth`` requests in
    the engine (more than its sequence slots: a real queue) and runs alone for ``think_steps`` steps before each
    victim request (the victim's think time; a victim that sends back to back is itself a heavy tenant, and two
    heavy tenants of equal weight rightly split the engine in half)."""
    driver = Driver(engine)
    flood_ids = (f"flood-{i}" for i in range(10_000_000))
    outstanding: set[str] = set()
    ttfts: dict[str, list[float]] = {mode: [] for mode in FAIRNESS_MODES}

    def top_up(depth: int) -> None:
        while len(outstanding) < depth:
            rid = next(flood_ids)
            outstanding.add(rid)
            driver.submit(EngineRequest(rid, synth.unique(flood_len, rid), SamplingParams(
                max_tokens=flood_output, temperature=0, ignore_eos=True), cache_salt="flood", tenant="flood"))

    was_fair = engine.scheduler.fair
    for i in range(victims):
        for mode in FAIRNESS_MODES:
            engine.scheduler.fair = mode != "flood_fifo"
            depth = 0 if mode == "alone" else flood_depth
            top_up(depth)
            for _ in range(think_steps if depth else 0):
                outstanding.difference_update(driver.step())  # the flood is under way before the victim shows up
                top_up(depth)
            rid = f"victim-{mode}-{i}"
            driver.submit(EngineRequest(rid, synth.unique(victim_len, rid), SamplingParams(
                max_tokens=2, temperature=0, ignore_eos=True), cache_salt="victim", tenant="victim"))
            while rid not in driver.finished:
                outstanding.difference_update(driver.step())
                top_up(depth)
            ttfts[mode].append(driver.finished[rid].ttft_s)
            for flood_rid in sorted(outstanding):  # a clean engine for the next mode
                engine.abort_request(flood_rid)
            outstanding.clear()
            print(f"    round {i} {mode}: victim TTFT {ttfts[mode][-1]:.2f} s", flush=True)
    engine.scheduler.fair = was_fair
    return ttfts


def timed(label: str, fn: Callable[[], dict[str, float]]) -> dict[str, float]:
    print(f"  {label} ...", flush=True)
    result = fn()
    print(f"  {label}: {result}", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prefix", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--quick", action="store_true", help="3 sessions x 3 turns, 3 victim requests")
    parser.add_argument("--sessions", type=int, default=None, help="replay the first N sessions (default 4)")
    parser.add_argument("--turns", type=int, default=None, help="first N turns of each (default 4)")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--tenants", type=int, default=4)
    parser.add_argument("--victims", type=int, default=None, help="victim requests per fairness run (default 5)")
    parser.add_argument("--flood-depth", type=int, default=16,
                        help="flood requests kept in the engine (twice the fairness engine's sequence slots)")
    parser.add_argument("--victim-len", type=int, default=2048, help="victim prompt tokens (the trace's context)")
    parser.add_argument("--think-steps", type=int, default=12, help="flood-only steps before each victim request")
    parser.add_argument("--flood-len", type=int, default=512, help="flood prompt tokens")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--skip-fairness", action="store_true")
    parser.add_argument("--fairness-only", action="store_true",
                        help="rerun only the fairness scenario, keeping the replay results already in --out")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    sessions = args.sessions or (3 if args.quick else 4)
    turns = args.turns or (3 if args.quick else 4)
    victims = args.victims or (3 if args.quick else 5)
    if args.threads:
        torch.set_num_threads(args.threads)
    load_before = os.getloadavg()[0]

    entries, meta = read_trace(args.trace)
    subset = sessions_subset(entries, sessions, turns)
    trace_block = int(meta["block_size"])
    shape = meta.get("shape", {})
    system_blocks = round(shape.get("context", 0) * shape.get("system_fraction", 0.0) / trace_block)
    public_len = system_blocks * trace_block
    print(f"trace {args.trace.name}: {len(subset)} requests ({sessions} sessions x {turns} turns), mean input "
          f"{statistics.mean(e.input_length for e in subset):.0f}, block reuse {block_reuse(subset):.1%} "
          f"(whole trace {block_reuse(entries):.1%}), public system prompt {public_len} tokens")

    def config(**overrides: object) -> EngineConfig:
        base = dict(dtype=args.dtype, show_progress=False, kv_cache_memory_mb=1024, max_num_seqs=16,
                    max_num_batched_tokens=512, num_threads=args.threads)
        base.update(overrides)
        return EngineConfig(**base)  # type: ignore[arg-type]

    results: dict[str, object] = {}
    if args.fairness_only:
        results = json.loads(args.out.read_text())
        results.setdefault("replay_load_average_start_end", results.get("settings", {}).get("load_average_start_end"))
    else:
        runs = {}
        for name, caching in (("cache_on", True), ("cache_off", False)):
            engine = LLMEngine(config(enable_prefix_caching=caching))
            synth = TokenSynthesizer(trace_block, engine.vocab_size)
            runs[name] = timed(name, lambda engine=engine, synth=synth: replay(
                engine, subset, synth, concurrency=args.concurrency, tenants=args.tenants,
                public_prefix_len=public_len))
            del engine
        on, off = runs["cache_on"], runs["cache_off"]
        results["ttft_p50_ratio_off_on"] = round(off["ttft_p50_s"] / on["ttft_p50_s"], 2)
        results["ttft_p99_ratio_off_on"] = round(off["ttft_p99_s"] / on["ttft_p99_s"], 2)
        results["throughput_ratio_on_off"] = round(on["output_tok_s"] / off["output_tok_s"], 2)
        results["replay"] = runs
        results["replay_load_average_start_end"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]

    if not args.skip_fairness:
        engine = LLMEngine(config(max_num_seqs=args.flood_depth // 2))
        synth = TokenSynthesizer(trace_block, engine.vocab_size)
        print("  fairness (alone / flood with the fair scheduler / flood with FIFO, in turns) ...", flush=True)
        ttfts = victim_ttfts(engine, synth, victims=victims, victim_len=args.victim_len, flood_depth=args.flood_depth,
                             flood_len=args.flood_len, flood_output=32, think_steps=args.think_steps)
        del engine
        fairness = {mode: {"victim_ttft_s": [round(t, 3) for t in values],
                           "victim_ttft_p50_s": round(statistics.median(values), 3)} for mode, values in ttfts.items()}
        alone = statistics.median(ttfts["alone"])
        results["victim_ttft_ratio_under_flood"] = round(statistics.median(ttfts["flood_fair"]) / alone, 2)
        results["victim_ttft_ratio_under_flood_fifo"] = round(statistics.median(ttfts["flood_fifo"]) / alone, 2)
        results["fairness"] = fairness

    results["settings"] = {
        "trace": str(args.trace), "sessions": sessions, "turns": turns, "requests": len(subset),
        "block_reuse": round(block_reuse(subset), 3), "concurrency": args.concurrency, "tenants": args.tenants,
        "public_prefix_tokens": public_len, "engine": {"block_size": 16, "max_num_batched_tokens": 512,
                                                       "max_num_seqs": 16, "kv_cache_memory_mb": 1024,
                                                       "dtype": args.dtype},
        "fairness": {"victims": victims, "victim_prompt": args.victim_len, "victim_output": 2,
                     "think_steps": args.think_steps,
                     "flood_depth": args.flood_depth, "flood_prompt": args.flood_len, "flood_output": 32,
                     "max_num_seqs": args.flood_depth // 2},
        "threads": torch.get_num_threads(), "cpu": cpu_description(),
        "torch": torch.__version__,
        "load_average_start_end": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps({k: v for k, v in results.items() if not isinstance(v, dict)}, indent=2))
    write_results(args.out, results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
