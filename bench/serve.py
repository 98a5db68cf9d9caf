"""Serving benchmark: replay an agentic Mooncake trace against Warden's HTTPS endpoint (streaming chat
completions) and llama.cpp's server, sweep concurrency, and report per level TTFT and ITL percentiles, tokens/s
per user, output throughput and goodput at an SLO; the best goodput each arm reaches while holding the SLO; the
Pareto curve of each arm.

    python -m bench.serve                      # the small CPU agentic trace, concurrency 2,4, >= 48 requests a level
    python -m bench.serve --arms baseline,optimized,optimized_guardrails,llamacpp,optimized_nospec \
        --concurrency 2,4,8 --arm-levels baseline=2,4                              # the committed run
    python -m bench.serve --trace bench/traces/cpu_agentic.jsonl --concurrency 2,4,8   # 2.5K contexts, 128 out
    python -m bench.serve --quick              # a smoke run: concurrency 2, 16 requests, half-length answers

Arms (``ARMS``), all up at once; every concurrency level runs on each arm in turn, so a shared machine's drift
lands on all alike:

  baseline    a vanilla Warden: the ``exact`` profile (float32, eager), no prefix cache, no speculation, the
              default prefill budget.
  optimized   everything Warden has that pays on this trace: the ``fast`` profile (bfloat16, int4 decoder layers,
              compiled decoder, code cached in .warden/compile-cache), prefix caching, a chunked-prefill budget of 256
              tokens, and suffix speculation (``speculative_method="suffix"``: prompt lookup plus drafts from the
              tenant's own earlier answers, every request here being one tenant's whose answers repeat one another;
              the adaptive draft budget verifies only drafts expected to pay). Guardrails off.
  optimized_nospec  the same engine without speculation: the A/B that shows what suffix speculation earns here.
              ``optimized_ngram`` (not run by default) drafts by prompt lookup alone, and these answers do not quote
              their prompts, so its verification rows cost more than they save. ``optimized_int8kv`` (not run by
              default) is the optimized engine with an int8 KV cache, ``optimized_block8`` (not run by default)
              with 8-token KV blocks (prefix hits end at a finer boundary), ``optimized_int8in`` (not run by default)
              with every step's int4 layers on int8 inputs (faster prefill, outputs further from float32).
  optimized_guardrails  the same engine behind a gateway with guardrails on (the default tenant policy: PII masked
              in prompts and answers, injection flagged): what they cost a served request.
  llamacpp    ``llama-server`` on the shipped GGUF requantized to Q4_0 (``bench.serve_llamacpp``), the same threads,
              plain HTTP with no gateway in front (no TLS, keys, policy, audit or guardrails).

Each Warden's gateway serves from a thread of this process (``bench.serve_warden``), so it shares the load
generator's interpreter lock; llama-server runs in its own process. On a loaded 2-core machine that costs Warden's
arms latency the llama.cpp arm does not pay.

Each speculating arm's level also reports its drafts (``speculation``: proposed, verified, accepted, from the engine's
counters scraped around the level): accepted drafts per generated token, the share of verified drafts accepted and
the share of proposals the adaptive budget verified, so two runs' speculation can be compared level by level.

Requests are greedy and run through the end-of-sequence token (``ignore_eos``), so every arm writes exactly the
trace's output lengths. A level ``c`` replays whole sessions (at least ``c``, and enough for ``--requests``
requests), their turns in order with the trace's think time between a turn's answer and the next turn, at most
``c`` requests in flight; each level has its own prompt text so no level warms the next one's cache, and every arm
sees identical prompts.

The default trace, ``cpu_agentic_small`` (``bench.traces.generate``), is NIM's agentic shape (contexts growing
over turns, 76% prefix reuse, a shared system prompt, think time) at the size this 2-core VM replays on every arm
within an hour while other work shares it: contexts 192 -> 960 tokens over 8 turns, 32 output tokens. Under that
load the float32 baseline prefills about 60 tokens/s, so ``cpu_agentic`` (to 2.5K tokens, 128 out) takes hours
there; it is the shape for a quiet or larger machine.

The SLO (``--slo-tps-per-user``, ``--slo-ttft-p90-s``) is what an interactive agent user can live with and what
separates the arms on this CPU: 8 tokens/s of streamed output per user (an inter-token gap of 125 ms; faster than a
person reads, about 5 tokens/s) and the first token within 3 s at p90 for a turn that resends up to 1K tokens of
history. In the smoke run on this VM (load 6-9), the optimized Warden streamed 12 tokens/s per user at 2 sessions
and the float32 baseline 2.5. Goodput counts the requests that met both; a level counts only if its median user
gets the speed, its TTFT p90 is within the bound and nothing failed (``bench.serve_stats``). The headline ratios
compare the best goodput each arm reaches at a level that holds the SLO. Writes ``bench/results/serve.json`` and
``bench/results/serve_pareto.png``. ``python -m bench.aiperf`` replays the same trace and prompts with NVIDIA's AIPerf
beside this client and attaches the comparison to serve.json under ``aiperf``, which a rerun of this keeps.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import re
import shlex
import ssl
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import torch

from bench.provenance import write_results
from bench.serve_llamacpp import QUANT, context_per_slot, start_llamacpp
from bench.serve_prompts import PromptSynthesizer
from bench.serve_replay import ChatStreamer, RequestResult, replay
from bench.serve_stats import LevelSummary, Slo, best_at_slo, pareto_front, summarize
from bench.serve_warden import start_warden
from bench.traces.mooncake import TraceEntry, block_reuse, read_trace, sessions_subset
from engine.config import EngineConfig

HERE = Path(__file__).parent
REPO = HERE.parent
DEFAULT_TRACE = HERE / "traces" / "cpu_agentic_small.jsonl"
RESULTS = HERE / "results" / "serve.json"
PLOT = HERE / "results" / "serve_pareto.png"

# Every Warden gets the same KV memory: room for 8 concurrent 3K-token contexts in float32 without preemption.
COMMON = {"kv_cache_memory_mb": 1536, "show_progress": False}
ENGINES: dict[str, dict[str, Any]] = {
    "baseline": {"profile": "exact", "enable_prefix_caching": False, "speculative_method": None},
    # The benchmark measures the compiled engine from its first request: the start compiles before serving instead
    # of serving uncompiled while a child process compiles. The prefill budget barely matters on this trace: a
    # step's time grows by about the same per prefill token from 64 to 512 (the step is compute-bound on prefill),
    # so a smaller chunk only moves waiting from the first token to the gaps between tokens, and capping prefill
    # while decodes run adds steps and costs goodput. 128 to 1024 reach the same goodput within 3% at c=4 and c=8.
    # Suffix speculation with the adaptive draft budget: this trace's answers repeat the tenant's earlier ones, so
    # drafts from them are accepted often enough to pay for their verification rows (``optimized_nospec`` shows it).
    "optimized": {"profile": "fast", "enable_prefix_caching": True, "max_num_batched_tokens": 256,
                  "compile_cache_dir": str(REPO / ".warden" / "compile-cache"), "compile_in_background": False,
                  "speculative_method": "suffix"},
}
# More tokens than any step of these engines computes (prefill budget, decodes and drafts together).
ROWS_OF_ANY_STEP = 2048
# The optimized engine with one thing changed, each an A/B (``--arms optimized,<variant>``); a ``--set optimized.*``
# override applies to them too, so the A/B stays one change apart.
VARIANTS: dict[str, dict[str, Any]] = {
    # Without speculation (named so, whatever the engine's default): what suffix speculation earns on this trace.
    "optimized_nospec": {"speculative_method": None},
    # Prompt lookup alone with the adaptive draft budget: these answers do not quote their prompts, so it does not
    # pay here.
    "optimized_ngram": {"speculative_method": "ngram"},
    # The KV cache as int8 codes with a scale per row (``EngineConfig.kv_cache_dtype``): decode attention reads about
    # half the bytes of bf16 rows. Not the optimized arm's: bf16 decode attention, reading a context in L2-sized spans
    # from a cache on huge pages, takes about the int8 kernel's time (bench.cpu_attention --int8-kv: 8 x 3072 keys
    # 1.40 vs 1.39 ms a layer, 8 x 700 faster in bf16), so int8 rows would change outputs for no step time.
    "optimized_int8kv": {"kv_cache_dtype": "int8"},
    # 8-token KV blocks instead of 16: a prefix hit ends at a block boundary, so a turn recomputes on average half a
    # block of the prefix it shares; on this trace that is about 1% of the prompt tokens, 4% of those computed.
    "optimized_block8": {"block_size": 8},
    # Every step's int4 layers on int8 inputs (``EngineConfig.cpu_small_batch_rows`` past any step's tokens): the
    # one-level VNNI kernel makes 64 products per instruction where the bf16 GEMM makes 32, so prefill chunks, most of
    # this trace's engine time, run their linears ~1.4x faster (bench.cpu_linears, 256 rows); llama.cpp's Q4_0 dots
    # quantize their inputs to 8 bits the same way. Not the optimized arm's: int8 inputs change outputs more than
    # int4 weights do (bench.agreement's ``bf16+int4/int8-inputs``: mean KL at prefill 0.0017 -> 0.0043).
    "optimized_int8in": {"cpu_small_batch_rows": ROWS_OF_ANY_STEP},
}
ENGINES.update({name: {**ENGINES["optimized"], **change} for name, change in VARIANTS.items()})


@dataclass(frozen=True)
class Arm:
    kind: str  # "warden" or "llamacpp"
    engine: str | None = None  # a key of ENGINES
    guardrails: bool = False


ARMS = {"baseline": Arm("warden", "baseline"), "optimized": Arm("warden", "optimized"),
        "optimized_guardrails": Arm("warden", "optimized", guardrails=True), "llamacpp": Arm("llamacpp"),
        "optimized_nospec": Arm("warden", "optimized_nospec"), "optimized_ngram": Arm("warden", "optimized_ngram"),
        "optimized_int8kv": Arm("warden", "optimized_int8kv"), "optimized_block8": Arm("warden", "optimized_block8"),
        "optimized_int8in": Arm("warden", "optimized_int8in")}
DEFAULT_ARMS = ("baseline", "optimized", "optimized_guardrails", "llamacpp", "optimized_nospec")
DEFAULT_SLO = Slo(tps_per_user=8.0, ttft_p90_s=3.0)
QUICK = {"concurrency": "2", "requests": 16, "output_scale": 0.5}


@dataclass
class Target:
    """One arm, started: where to send its requests and what it is."""
    name: str
    endpoint: Any  # RunningWarden or RunningLlamaServer
    cert: Path | None
    description: dict[str, Any] = field(default_factory=dict)


def scale_output(entry: TraceEntry, factor: float) -> TraceEntry:
    """The same prompt, a shorter answer (a quick run's budget)."""
    if factor == 1.0:
        return entry
    return TraceEntry(timestamp=entry.timestamp, input_length=entry.input_length,
                      output_length=max(2, round(entry.output_length * factor)), hash_ids=entry.hash_ids,
                      session_id=entry.session_id)


def level_entries(entries: list[TraceEntry], concurrency: int, requests: int,
                  max_turns: int | None) -> list[TraceEntry]:
    """Whole sessions for a level: at least ``concurrency`` of them, and enough for ``requests`` requests."""
    sessions: dict[str, int] = {}
    for entry in entries:
        if entry.session_id is not None:
            sessions[entry.session_id] = sessions.get(entry.session_id, 0) + 1
    turns = min(max(sessions.values(), default=1), max_turns or 10**9)
    wanted = max(concurrency, math.ceil(requests / turns))
    chosen = sessions_subset(entries, wanted, max_turns)
    if len(chosen) < requests:
        raise SystemExit(f"the trace has too few sessions for {requests} requests at concurrency {concurrency}")
    return chosen


def think_time_s(entries: list[TraceEntry]) -> float:
    """The trace's gap between a session's consecutive turns (median), the agent's time between answer and
    next turn."""
    last: dict[str, int] = {}
    gaps: list[int] = []
    for entry in entries:
        if entry.session_id is None:
            continue
        if entry.session_id in last:
            gaps.append(entry.timestamp - last[entry.session_id])
        last[entry.session_id] = entry.timestamp
    return sorted(gaps)[len(gaps) // 2] / 1e3 if gaps else 0.0


def parse_overrides(items: list[str]) -> dict[str, dict[str, Any]]:
    """``--set optimized.quantization=int8`` → {"optimized": {"quantization": "int8"}} (JSON values, else str)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        match = re.fullmatch(r"(\w+)\.(\w+)=(.*)", item)
        if match is None:
            raise SystemExit(f"--set wants ENGINE.FIELD=VALUE, got {item!r}")
        name, key, raw = match.groups()
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out.setdefault(name, {})[key] = value
    return out


def engine_configs(overrides: dict[str, dict[str, Any]], threads: int) -> dict[str, dict[str, Any]]:
    """Each engine's EngineConfig fields: ``ENGINES`` with the ``--set`` overrides, an optimized one applied to the
    optimized engine's variants as well (their own change still wins: ``optimized_nospec`` never speculates)."""
    return {name: {**COMMON, "num_threads": threads, **config,
                   **(overrides.get("optimized", {}) if name in VARIANTS else {}), **VARIANTS.get(name, {}),
                   **overrides.get(name, {})}
            for name, config in ENGINES.items()}


def scrape_engine_counters(text: str) -> dict[str, float]:
    """The engine's counters and gauges from a /metrics page (summed over label sets)."""
    wanted = ("prefix_cache_queries_total", "prefix_cache_hits_total", "prompt_tokens_total",
              "generation_tokens_total", "num_preemptions_total", "spec_decode_num_draft_tokens_total",
              "spec_decode_num_accepted_tokens_total", "spec_decode_num_proposed_tokens_total")
    values: dict[str, float] = {}
    for line in text.splitlines():
        match = re.match(r"^warden:(\w+?)(?:\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if match and match.group(1) in wanted:
            values[match.group(1)] = values.get(match.group(1), 0.0) + float(match.group(2))
    return values


SPEC_COUNTERS = {"proposed": "spec_decode_num_proposed_tokens_total", "verified": "spec_decode_num_draft_tokens_total",
                 "accepted": "spec_decode_num_accepted_tokens_total", "generated": "generation_tokens_total"}


def speculation_of_level(before: dict[str, float], after: dict[str, float]) -> dict[str, int | float | None] | None:
    """What speculation did in one level, from the engine's counters scraped around it: drafts proposed, verified
    (the adaptive budget keeps the rest unverified) and accepted, and the ratios that make two runs comparable:
    accepted drafts per generated token (the tokens a step got for free), the share of verified drafts accepted
    (how good the drafts were) and the share of proposed drafts verified (how often the budget judged them worth
    a verification row). None for an engine that does not speculate."""
    delta = {key: after.get(name, 0.0) - before.get(name, 0.0) for key, name in SPEC_COUNTERS.items()}
    if not delta["proposed"] and not delta["verified"]:
        return None

    def share(part: float, whole: float) -> float | None:
        return round(part / whole, 3) if whole else None

    return {**{key: int(value) for key, value in delta.items()},
            "accepted_per_generated": share(delta["accepted"], delta["generated"]),
            "accepted_per_verified": share(delta["accepted"], delta["verified"]),
            "verified_per_proposed": share(delta["verified"], delta["proposed"])}


def rotated(names: list[str], offset: int) -> list[str]:
    shift = offset % len(names)
    return names[shift:] + names[:shift]


def per_request(results: list[RequestResult]) -> list[list[float | int | None]]:
    """Each answered request as [TTFT ms, ITL ms, output tokens, prompt tokens, cached tokens]: enough to judge the
    run at another SLO."""
    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1e3, 1)

    return [[ms(r.ttft_s), ms(r.itl_s), r.output_tokens, r.prompt_tokens, r.cached_tokens] for r in results if r.ok]


async def run_levels(targets: dict[str, Target], synth: PromptSynthesizer, levels: dict[int, list[TraceEntry]],
                     slo: Slo, think_s: float, seed: int,
                     on_level: Callable[[dict[str, list[dict[str, Any]]]], None] = lambda rows: None,
                     arm_levels: dict[str, set[int]] | None = None,
                     ) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, float]]]:
    """Each level runs on every arm back to back (an arm only at its ``arm_levels`` where given), the order rotating
    from level to level, so slow drift in what else the machine is doing lands on every arm alike. ``on_level``
    sees the rows after every arm's level (the results so far are written then, so a run cut short keeps them)."""
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in targets}
    scraped: dict[str, dict[str, float]] = {}
    async with contextlib.AsyncExitStack() as stack:
        streamers: dict[str, ChatStreamer] = {}
        clients: dict[str, httpx.AsyncClient] = {}
        for name, target in targets.items():
            # llama-server now and then drops a reused kept-alive connection without answering when a request
            # follows the previous one's end at once ("Server disconnected without sending a response", as
            # bench.llamacpp found): a new (loopback, plain TCP) connection per request there.
            keep = 0 if target.description.get("kind") == "llamacpp" else max(levels) + 4
            limits = httpx.Limits(max_connections=max(levels) + 4, max_keepalive_connections=keep)
            verify: ssl.SSLContext | bool = (ssl.create_default_context(cafile=str(target.cert))
                                             if target.cert is not None else True)
            client = await stack.enter_async_context(httpx.AsyncClient(verify=verify, limits=limits))
            clients[name] = client
            endpoint = target.endpoint
            streamers[name] = ChatStreamer(client, endpoint.base_url, endpoint.api_key, endpoint.model)
            warm = TraceEntry(timestamp=0, input_length=synth.overhead + 64, output_length=4, hash_ids=(10**9,))
            warmup = await streamers[name].send(-1, warm, synth.messages(warm, salt=10**6), seed=seed)
            if warmup.error:
                raise RuntimeError(f"{name}: warm-up request failed: {warmup.error}")

        async def counters(name: str) -> dict[str, float]:
            target = targets[name]
            if target.description.get("kind") != "warden":
                return {}
            metrics = await clients[name].get(target.endpoint.base_url.removesuffix("/v1") + "/metrics")
            return scrape_engine_counters(metrics.text) if metrics.status_code == 200 else {}

        for salt, (concurrency, entries) in enumerate(levels.items(), 1):
            for name in rotated(list(targets), salt - 1):
                if arm_levels and name in arm_levels and concurrency not in arm_levels[name]:
                    continue
                streamer = streamers[name]

                async def send(index: int, entry: TraceEntry, salt: int = salt,
                               streamer: ChatStreamer = streamer) -> RequestResult:
                    return await streamer.send(index, entry, synth.messages(entry, salt), seed=seed + index)

                before = await counters(name)
                results, wall = await replay(entries, concurrency, send, think_s=think_s)
                speculation = speculation_of_level(before, await counters(name)) if before else None
                summary = summarize(concurrency, results, wall, slo)
                for failed in [r for r in results if not r.ok][:5]:
                    print(f"    request {failed.index} failed: {failed.error}")
                load = [round(x, 2) for x in os.getloadavg()]
                print(f"  {name:<21} c={concurrency:<3} {len(entries):>3} req  {summary.output_tok_s:7.2f} tok/s  "
                      f"{summary.tps_per_user_p50 or 0:6.2f} tok/s/user  TTFT p50 {summary.ttft_p50_ms} "
                      f"p90 {summary.ttft_p90_ms} ms  ITL p50 {summary.itl_p50_ms} ms  goodput "
                      f"{summary.goodput_rps:.3f} req/s{' (SLO held)' if summary.meets_slo else ''}  "
                      f"cache hit {summary.cache_hit_rate:.0%}  ({summary.wall_s:.0f} s, load {load[0]})", flush=True)
                if speculation is not None:
                    print(f"    drafts: {speculation['accepted_per_generated']} accepted per token, "
                          f"{speculation['accepted_per_verified']} of verified accepted, "
                          f"{speculation['verified_per_proposed']} of proposed verified", flush=True)
                rows[name].append({"summary": summary, "load_average": load, "requests": per_request(results),
                                   "speculation": speculation})
                on_level(rows)
        for name, target in targets.items():
            if target.description.get("kind") == "warden":
                scraped[name] = await counters(name)
    return rows, scraped


COLORS = {"baseline": "tab:gray", "optimized": "tab:blue", "optimized_guardrails": "tab:cyan",
          "llamacpp": "tab:orange", "optimized_nospec": "tab:brown", "optimized_ngram": "tab:purple",
          "optimized_int8kv": "tab:olive", "optimized_int8in": "tab:pink"}


def plot(path: Path, arms: dict[str, dict[str, Any]], slo: Slo) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 7))
    for name, arm in arms.items():
        levels = arm["levels"]
        xs = [lv["tps_per_user_p50"] or 0 for lv in levels]
        ys = [lv["output_tok_s"] for lv in levels]
        ax.plot(xs, ys, "o-", color=COLORS.get(name, "tab:green"), label=f"{name}: {arm['label']}")
        for lv, x, y in zip(levels, xs, ys, strict=True):
            marker = "*" if lv["meets_slo"] else ""
            ax.annotate(f"c={lv['concurrency']}{marker}", (x, y), textcoords="offset points", xytext=(4, 4),
                        fontsize=8)
    ax.axvline(slo.tps_per_user, color="tab:red", linestyle="--", linewidth=1,
               label=f"SLO: >= {slo.tps_per_user:g} tok/s per user and TTFT p90 <= {slo.ttft_p90_s:g} s "
                     "(* = level holds it)")
    ax.set_xlabel("tokens/s per user (p50)")
    ax.set_ylabel("output throughput (tokens/s per replica)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=1)  # below: the points fill the axes
    ax.set_title("Agentic trace replay, streaming: throughput vs per-user speed", fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def engine_label(config: dict[str, Any], guardrails: bool) -> str:
    profile = config.get("profile", "exact")
    form = "bf16 + int4, compiled" if profile == "fast" else "float32 eager"
    cache = "prefix cache" if config.get("enable_prefix_caching", True) else "no prefix cache"
    spec = f", {config['speculative_method'] or 'no'} speculation" if "speculative_method" in config else ""
    kv = f", {config['kv_cache_dtype']} KV cache" if config.get("kv_cache_dtype", "auto") != "auto" else ""
    kv += f", {config['block_size']}-token KV blocks" if config.get("block_size") is not None else ""
    kv += ", int8 inputs at every step" if config.get("cpu_small_batch_rows", 0) >= ROWS_OF_ANY_STEP else ""
    budget = config.get("max_num_batched_tokens", EngineConfig().max_num_batched_tokens)
    return f"{form}, {cache}{kv}, prefill budget {budget}{spec}, guardrails {'on' if guardrails else 'off'}"


def start_targets(stack: contextlib.ExitStack, names: list[str], engines: dict[str, dict[str, Any]],
                  threads: int, levels: dict[int, list[TraceEntry]]) -> dict[str, Target]:
    targets: dict[str, Target] = {}
    for name in names:
        arm = ARMS[name]
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"warden-bench-{name}-")))
        started = time.perf_counter()
        if arm.kind == "llamacpp":
            every = [e for entries in levels.values() for e in entries]
            context = context_per_slot(max(e.input_length for e in every), max(e.output_length for e in every))
            server = start_llamacpp(workdir, threads=threads, parallel=max(levels), context=context)
            stack.callback(server.stop)
            targets[name] = Target(name, server, None, {
                "kind": "llamacpp", "label": f"llama-server {QUANT}, {max(levels)} slots, no TLS/guardrails",
                "quant": QUANT, "threads": threads, "parallel": max(levels), "context_per_slot": context,
                "command": [Path(part).name if part.startswith("/") else part for part in server.command]})
        else:
            assert arm.engine is not None
            config = engines[arm.engine]
            print(f"[{name}] {config} guardrails={arm.guardrails}", flush=True)
            warden = start_warden(workdir, EngineConfig(**config), guardrails=arm.guardrails)
            stack.callback(warden.stop)
            targets[name] = Target(name, warden, warden.cert, {
                "kind": "warden", "label": engine_label(config, arm.guardrails), "engine": config,
                "guardrails": arm.guardrails})
        targets[name].description["start_s"] = round(time.perf_counter() - started, 1)
        print(f"[{name}] up in {targets[name].description['start_s']} s", flush=True)
    return targets


def ratio(numerator: dict[str, Any] | None, denominator: dict[str, Any] | None) -> float | None:
    if numerator is None or denominator is None or not denominator["goodput_rps"]:
        return None
    return round(numerator["goodput_rps"] / denominator["goodput_rps"], 2)


def reproducing_command(argv: list[str]) -> str:
    """The command line without where it wrote (``--out``/``--plot``): what reproduces the results."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--out", "--plot"):
            skip = True
        elif not arg.startswith(("--out=", "--plot=")):
            kept.append(arg)
    return " ".join(["python -m bench.serve", *(shlex.quote(arg) for arg in kept)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE, help="Mooncake JSONL trace")
    parser.add_argument("--block-size", type=int, default=None, help="the trace's block size (default: its sidecar, "
                        "else 512)")
    parser.add_argument("--concurrency", default=None, help="comma-separated levels (default 2,4)")
    parser.add_argument("--arm-levels", action="append", default=[], metavar="ARM=LEVELS",
                        help="run ARM only at these of the levels, e.g. baseline=2,4 (repeatable)")
    parser.add_argument("--requests", type=int, default=None, help="at least this many requests per level "
                        "(default 48)")
    parser.add_argument("--slo-tps-per-user", type=float, default=DEFAULT_SLO.tps_per_user,
                        help="output tokens/s each user must get (per request; a level: its median)")
    parser.add_argument("--slo-ttft-p90-s", type=float, default=DEFAULT_SLO.ttft_p90_s,
                        help="time to first token (per request; a level: its 90th percentile)")
    parser.add_argument("--quick", action="store_true", help=f"smoke size: {QUICK}")
    parser.add_argument("--output-scale", type=float, default=None, help="multiply every output length "
                        "(default 1)")
    parser.add_argument("--turns", type=int, default=None, help="use at most this many turns of each session")
    parser.add_argument("--think-time", type=float, default=None,
                        help="seconds between a turn's answer and the session's next turn (default: the trace's)")
    parser.add_argument("--arms", default=",".join(DEFAULT_ARMS), help=f"some of {', '.join(ARMS)}")
    parser.add_argument("--set", action="append", default=[], metavar="ENGINE.FIELD=VALUE",
                        help="override an EngineConfig field of an engine (repeatable; an optimized override "
                        "applies to its variants too)")
    parser.add_argument("--engine-threads", type=int, default=1, help="CPU threads of each server (Warden's engine "
                        "and llama-server alike; default 1: the gateway and the load generator share the machine, "
                        "and an oversubscribed OpenMP pool is many times slower)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--plot", type=Path, default=PLOT)
    args = parser.parse_args(argv)
    command = reproducing_command(sys.argv[1:] if argv is None else argv)
    defaults = QUICK if args.quick else {"concurrency": "2,4", "requests": 48, "output_scale": 1.0}
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    arm_levels: dict[str, set[int]] = {}
    for item in args.arm_levels:
        arm, _, wanted = item.partition("=")
        arm_levels[arm] = {int(c) for c in wanted.split(",") if c.strip()}
    names = [n.strip() for n in args.arms.split(",") if n.strip()]
    unknown = [n for n in names if n not in ARMS]
    if unknown or not names:
        raise SystemExit(f"unknown arms {unknown}: choose from {', '.join(ARMS)}")
    slo = Slo(tps_per_user=args.slo_tps_per_user, ttft_p90_s=args.slo_ttft_p90_s)
    levels_wanted = sorted({int(c) for c in args.concurrency.split(",") if c.strip()})
    overrides = parse_overrides(args.set)
    engines = engine_configs(overrides, args.engine_threads)
    started = time.perf_counter()
    load_at_start = [round(x, 2) for x in os.getloadavg()]  # a shared machine skews every figure: say so

    entries, meta = read_trace(args.trace, args.block_size)
    block_size = meta["block_size"]
    entries = [scale_output(e, args.output_scale) for e in entries]
    levels = {c: level_entries(entries, c, args.requests, args.turns) for c in levels_wanted}
    think_s = think_time_s(entries) if args.think_time is None else args.think_time

    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    synth = PromptSynthesizer(Tokenizer.from_source(resolve_model("default", None)), block_size)
    print(f"trace {args.trace} (block {block_size}, output x{args.output_scale}, think {think_s:g} s); levels: "
          + ", ".join(f"c={c}: {len(v)} req, reuse {block_reuse(v):.0%}" for c, v in levels.items()), flush=True)

    kept = kept_sections(args.out)

    def report_of(targets: dict[str, Target], rows: dict[str, list[dict[str, Any]]],
                  scraped: dict[str, dict[str, float]], complete: bool) -> dict[str, Any]:
        return {**build_report(args, targets, rows, scraped, slo=slo, complete=complete, levels=levels, meta=meta,
                               think_s=think_s, load_at_start=load_at_start,
                               elapsed_s=time.perf_counter() - started), **kept}

    with contextlib.ExitStack() as stack:
        targets = start_targets(stack, names, engines, args.engine_threads, levels)
        rows, scraped = asyncio.run(run_levels(
            targets, synth, levels, slo, think_s, args.seed,
            on_level=lambda rows: write_results(args.out, report_of(targets, rows, {}, complete=False),
                                                command=command),
            arm_levels=arm_levels))

    report = report_of(targets, rows, scraped, complete=True)
    write_results(args.out, report, command=command)
    plot(args.plot, report["arms"], slo)
    print(json.dumps({k: report[k] for k in ("optimized_over_baseline_at_slo", "optimized_over_llamacpp_at_slo",
                                             "guardrails_on_over_off_at_slo", "speculation_on_over_off_at_slo",
                                             "at_slo")}))
    print(f"wrote {args.out} and {args.plot} in {report['settings']['elapsed_s']:.0f} s")
    return 0


KEPT = ("aiperf",)  # what other benchmarks attach to the results file (bench.aiperf's comparison): a rerun keeps it


def kept_sections(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    previous = json.loads(path.read_text(encoding="utf-8"))
    return {key: previous[key] for key in KEPT if key in previous}


def build_report(args: argparse.Namespace, targets: dict[str, Target], rows: dict[str, list[dict[str, Any]]],
                 scraped: dict[str, dict[str, float]], *, slo: Slo, complete: bool,
                 levels: dict[int, list[TraceEntry]], meta: dict[str, Any], think_s: float,
                 load_at_start: list[float], elapsed_s: float) -> dict[str, Any]:
    """serve.json: the headline ratios, the SLO, each arm's levels and best level at the SLO, the trace, the
    settings and the machine's load."""
    arms: dict[str, Any] = {}
    for name, target in targets.items():
        summaries: list[LevelSummary] = [row["summary"] for row in rows[name]]
        best = best_at_slo(summaries)
        arms[name] = {
            **target.description,
            "levels": [{**row["summary"].to_json(), "load_average": row["load_average"],
                        **({"speculation": row["speculation"]} if row.get("speculation") else {}),
                        "per_request": row["requests"]} for row in rows[name]],
            "best_at_slo": best.to_json() if best is not None else None,
            "pareto_concurrency": [s.concurrency for s in pareto_front(summaries)],
            **({"metrics_scrape": scraped[name]} if name in scraped else {}),
        }
    best_of = {name: arm["best_at_slo"] for name, arm in arms.items()}
    return {
        "complete": complete,
        "optimized_over_baseline_at_slo": ratio(best_of.get("optimized"), best_of.get("baseline")),
        "optimized_over_llamacpp_at_slo": ratio(best_of.get("optimized"), best_of.get("llamacpp")),
        "guardrails_on_over_off_at_slo": ratio(best_of.get("optimized_guardrails"), best_of.get("optimized")),
        "speculation_on_over_off_at_slo": ratio(best_of.get("optimized"), best_of.get("optimized_nospec")),
        "slo": slo.to_json(),
        "at_slo": {name: None if b is None else {"concurrency": b["concurrency"], "goodput_rps": b["goodput_rps"],
                                                 "output_tok_s": b["output_tok_s"]}
                   for name, b in best_of.items()},
        "arms": arms,
        "trace": {"path": str(args.trace.resolve().relative_to(REPO)) if args.trace.resolve().is_relative_to(REPO)
                  else str(args.trace), "block_size": meta["block_size"], "output_scale": args.output_scale,
                  "turns": args.turns, "think_time_s": think_s, "generator": meta.get("shape"),
                  "levels": {str(c): {"requests": len(v), "sessions": len({e.session_id for e in v}),
                                      "block_reuse": round(block_reuse(v), 3),
                                      "mean_input_tokens": round(sum(e.input_length for e in v) / len(v)),
                                      "max_input_tokens": max(e.input_length for e in v),
                                      "mean_output_tokens": round(sum(e.output_length for e in v) / len(v), 1)}
                             for c, v in levels.items()}},
        "settings": {"quick": args.quick, "concurrency": sorted(levels), "requests_per_level": args.requests,
                     "arm_levels": args.arm_levels,
                     "engine_threads": args.engine_threads, "greedy": True, "ignore_eos": True,
                     "load_average_at_start": load_at_start,
                     "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
                     "seed": args.seed, "cpu_count": os.cpu_count(), "torch": torch.__version__,
                     "device": "cuda" if torch.cuda.is_available() else "cpu", "machine": platform.machine(),
                     "elapsed_s": round(elapsed_s, 1)},
        "per_request_columns": ["ttft_ms", "itl_ms", "output_tokens", "prompt_tokens", "cached_tokens"],
    }


if __name__ == "__main__":
    raise SystemExit(main())
