"""Serving benchmark: replay a Mooncake trace against Warden's HTTPS endpoint (streaming chat completions) for two
engine configurations, sweep concurrency, and report TTFT/ITL percentiles, tokens/s per user, output throughput,
the best throughput that meets a tokens/s-per-user SLO, and the Pareto curve of each configuration.

    python -m bench.serve --trace bench/traces/cpu_default.jsonl --concurrency 1,2,4,8,16 --slo-tps-per-user 4
    python -m bench.serve --quick        # the CPU trace at quarter length, concurrency 1,2,4, 3 turns a session

Each configuration starts a whole Warden (engine process + gateway over HTTPS + a tenant key issued through the
gateway's services); all are up at once and every concurrency level runs on each in turn, so a shared machine's
drift lands on both alike. ``baseline`` turns the prefix cache off and runs each prompt's prefill in one step (no
chunked-prefill budget); ``optimized`` turns the prefix cache on and chunks prefills into a small token budget
so decodes keep flowing. A concurrency level ``c`` replays the turns of ``c`` sessions (sessions' turns in order,
one at a time, as an agent sends them), with its own prompt text so no level warms the next one's cache; both
configurations see identical prompts. Writes ``bench/results/serve.json`` and ``bench/results/serve_pareto.png``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import ssl
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import torch

from bench.provenance import write_results
from bench.serve_prompts import PromptSynthesizer
from bench.serve_replay import ChatStreamer, RequestResult, replay
from bench.serve_stats import LevelSummary, best_at_slo, pareto_front, summarize
from bench.serve_warden import RunningWarden, start_warden
from bench.traces.mooncake import TraceEntry, block_reuse, read_trace, sessions_subset
from engine.config import EngineConfig

HERE = Path(__file__).parent
DEFAULT_TRACE = HERE / "traces" / "cpu_default.jsonl"
RESULTS = HERE / "results" / "serve.json"
PLOT = HERE / "results" / "serve_pareto.png"

# Both get the same KV memory (room for 16 concurrent 2K contexts without preemption) and the same model.
COMMON = {"kv_cache_memory_mb": 1536, "show_progress": False}
CONFIGS: dict[str, dict[str, Any]] = {
    "baseline": {"enable_prefix_caching": False, "max_num_batched_tokens": 8192},
    "optimized": {"enable_prefix_caching": True, "max_num_batched_tokens": 256},
}
QUICK = {"concurrency": "1,2,4", "scale": 0.25, "turns": 3}


def scale_entry(entry: TraceEntry, factor: float, block_size: int) -> TraceEntry:
    """Shorter context and output, the same block structure (the prompt keeps its first blocks)."""
    if factor == 1.0:
        return entry
    length = max(1, round(entry.input_length * factor))
    return TraceEntry(timestamp=entry.timestamp, input_length=length,
                      output_length=max(1, round(entry.output_length * factor)),
                      hash_ids=entry.hash_ids[: -(-length // block_size)], session_id=entry.session_id)


def parse_overrides(items: list[str]) -> dict[str, dict[str, Any]]:
    """``--set optimized.quantization=int8`` → {"optimized": {"quantization": "int8"}} (JSON values, else str)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        match = re.fullmatch(r"(\w+)\.(\w+)=(.*)", item)
        if match is None:
            raise SystemExit(f"--set wants CONFIG.FIELD=VALUE, got {item!r}")
        name, key, raw = match.groups()
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out.setdefault(name, {})[key] = value
    return out


def scrape_engine_counters(text: str) -> dict[str, float]:
    """The engine's counters and gauges from a /metrics page (summed over label sets)."""
    wanted = ("prefix_cache_queries_total", "prefix_cache_hits_total", "prompt_tokens_total",
              "generation_tokens_total", "num_preemptions_total")
    values: dict[str, float] = {}
    for line in text.splitlines():
        match = re.match(r"^warden:(\w+?)(?:\{[^}]*\})? ([0-9.eE+-]+)$", line)
        if match and match.group(1) in wanted:
            values[match.group(1)] = values.get(match.group(1), 0.0) + float(match.group(2))
    return values


async def run_levels(wardens: dict[str, RunningWarden], synth: PromptSynthesizer,
                     levels: dict[int, list[TraceEntry]], seed: int,
                     ) -> tuple[dict[str, list[LevelSummary]], dict[str, dict[str, float]]]:
    """Each level runs on every configuration back to back (baseline c=1, optimized c=1, baseline c=2, ...), so
    slow drift in what else the machine is doing lands on both configurations alike."""
    summaries: dict[str, list[LevelSummary]] = {name: [] for name in wardens}
    scraped: dict[str, dict[str, float]] = {}
    async with contextlib.AsyncExitStack() as stack:
        streamers: dict[str, ChatStreamer] = {}
        clients: dict[str, httpx.AsyncClient] = {}
        for name, warden in wardens.items():
            limits = httpx.Limits(max_connections=max(levels) + 4, max_keepalive_connections=max(levels) + 4)
            client = await stack.enter_async_context(httpx.AsyncClient(
                verify=ssl.create_default_context(cafile=str(warden.cert)), limits=limits))
            clients[name] = client
            streamers[name] = ChatStreamer(client, warden.base_url, warden.api_key, warden.model)
            warm = TraceEntry(timestamp=0, input_length=synth.overhead + 64, output_length=4, hash_ids=(10**9,))
            warmup = await streamers[name].send(-1, warm, synth.messages(warm, salt=10**6), seed=seed)
            if warmup.error:
                raise RuntimeError(f"{name}: warm-up request failed: {warmup.error}")
        for salt, (concurrency, entries) in enumerate(levels.items(), 1):
            for name, streamer in streamers.items():
                async def send(index: int, entry: TraceEntry, salt: int = salt,
                               streamer: ChatStreamer = streamer) -> RequestResult:
                    return await streamer.send(index, entry, synth.messages(entry, salt), seed=seed + index)

                results, wall = await replay(entries, concurrency, send)
                summary = summarize(concurrency, results, wall)
                for failed in (r for r in results if not r.ok):
                    print(f"    request {failed.index} failed: {failed.error}")
                print(f"  {name:<10} c={concurrency:<3} {len(entries):>3} req  {summary.output_tok_s:7.2f} tok/s  "
                      f"{summary.tps_per_user_p50 or 0:6.2f} tok/s/user  TTFT p50 {summary.ttft_p50_ms} ms  "
                      f"p99 {summary.ttft_p99_ms} ms  ITL p50 {summary.itl_p50_ms} ms  p99 {summary.itl_p99_ms} ms  "
                      f"cache hit {summary.cache_hit_rate:.0%}  ({summary.wall_s:.0f} s)", flush=True)
                summaries[name].append(summary)
        for name, warden in wardens.items():
            metrics = await clients[name].get(warden.base_url.removesuffix("/v1") + "/metrics")
            scraped[name] = scrape_engine_counters(metrics.text) if metrics.status_code == 200 else {}
    return summaries, scraped


def plot(path: Path, configs: dict[str, dict[str, Any]], slo: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(configs)
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4.8), sharex=True, sharey=True)
    axes = list(axes) if len(names) > 1 else [axes]
    colors = {"baseline": "tab:gray", "optimized": "tab:blue"}
    for ax, name in zip(axes, names, strict=True):
        for other in names:  # each panel shows the other configuration faintly, for comparison
            levels = configs[other]["levels"]
            xs = [lv["tps_per_user_p50"] or 0 for lv in levels]
            ys = [lv["output_tok_s"] for lv in levels]
            faint = other != name
            ax.plot(xs, ys, "o-", color=colors.get(other, "tab:orange"), alpha=0.25 if faint else 1.0,
                    label=None if faint else f"{other}")
            if not faint:
                for lv, x, y in zip(levels, xs, ys, strict=True):
                    ax.annotate(f"c={lv['concurrency']}", (x, y), textcoords="offset points", xytext=(4, 4),
                                fontsize=8)
        ax.axvline(slo, color="tab:red", linestyle="--", linewidth=1, label=f"SLO {slo:g} tok/s/user")
        best = configs[name]["best_at_slo"]
        if best is not None:
            ax.plot([best["tps_per_user_p50"]], [best["output_tok_s"]], "*", markersize=16, color="tab:red",
                    label=f"best at SLO: {best['output_tok_s']:.1f} tok/s")
        ax.set_title(f"{name}: {configs[name]['engine_label']}", fontsize=10)
        ax.set_xlabel("tokens/s per user (p50)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="upper right")
    axes[0].set_ylabel("output throughput (tokens/s)")
    fig.suptitle("Warden serving Pareto curves (Mooncake trace replay over HTTPS, streaming)", fontsize=11)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def engine_label(config: dict[str, Any]) -> str:
    cache = "prefix cache on" if config.get("enable_prefix_caching", True) else "prefix cache off"
    return f"{cache}, prefill budget {config.get('max_num_batched_tokens')} tok/step"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE, help="Mooncake JSONL trace")
    parser.add_argument("--block-size", type=int, default=None, help="the trace's block size (default: its sidecar, "
                        "else 512)")
    parser.add_argument("--concurrency", default="1,2,4,8,16", help="comma-separated levels")
    parser.add_argument("--slo-tps-per-user", type=float, default=4.0, help="tokens/s each user must get (p50)")
    parser.add_argument("--quick", action="store_true", help=f"CPU smoke size: {QUICK}")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every context and output length")
    parser.add_argument("--turns", type=int, default=None, help="use at most this many turns of each session")
    parser.add_argument("--configs", default="baseline,optimized")
    parser.add_argument("--set", action="append", default=[], metavar="CONFIG.FIELD=VALUE",
                        help="override an EngineConfig field of one configuration (repeatable)")
    parser.add_argument("--guardrails", action="store_true", help="run input/output guardrails (off by default: "
                        "the benchmark measures serving; bench.guardrails measures the guardrails)")
    parser.add_argument("--engine-threads", type=int, default=1, help="torch intra-op threads in the engine "
                        "process (default 1: the gateway and the load generator share the machine, and an "
                        "oversubscribed OpenMP pool is many times slower; 0 = torch's default)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--plot", type=Path, default=PLOT)
    args = parser.parse_args(argv)
    if args.quick:
        args.concurrency = QUICK["concurrency"] if args.concurrency == parser.get_default("concurrency") \
            else args.concurrency
        args.scale = QUICK["scale"] if args.scale == 1.0 else args.scale
        args.turns = args.turns or QUICK["turns"]
    levels_wanted = sorted({int(c) for c in args.concurrency.split(",") if c.strip()})
    overrides = parse_overrides(args.set)
    started = time.perf_counter()
    load_at_start = [round(x, 2) for x in os.getloadavg()]  # a shared machine skews every figure: say so

    entries, meta = read_trace(args.trace, args.block_size)
    block_size = meta["block_size"]
    entries = [scale_entry(e, args.scale, block_size) for e in entries]
    levels = {c: sessions_subset(entries, c, args.turns) for c in levels_wanted}

    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    synth = PromptSynthesizer(Tokenizer.from_source(resolve_model("default", None)), block_size)
    print(f"trace {args.trace} (block {block_size}, scale {args.scale}); levels: "
          + ", ".join(f"c={c}: {len(v)} req, reuse {block_reuse(v):.0%}" for c, v in levels.items()), flush=True)

    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    configs = {name: {**COMMON, "num_threads": args.engine_threads or None, **CONFIGS[name],
                      **overrides.get(name, {})} for name in names}
    with contextlib.ExitStack() as stack:
        wardens: dict[str, RunningWarden] = {}
        for name, config in configs.items():
            print(f"[{name}] {config}", flush=True)
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"warden-bench-{name}-")))
            wardens[name] = start_warden(workdir, EngineConfig(**config), guardrails=args.guardrails)
            stack.callback(wardens[name].stop)
        summaries, scraped = asyncio.run(run_levels(wardens, synth, levels, args.seed))

    results: dict[str, Any] = {}
    for name, config in configs.items():
        best = best_at_slo(summaries[name], args.slo_tps_per_user)
        results[name] = {
            "engine": config, "engine_label": engine_label(config),
            "levels": [s.to_json() for s in summaries[name]],
            "best_at_slo": best.to_json() if best is not None else None,
            "pareto_concurrency": [s.concurrency for s in pareto_front(summaries[name])],
            "metrics_scrape": scraped.get(name, {}),
        }

    def at_slo(name: str) -> float | None:
        best = results.get(name, {}).get("best_at_slo")
        return None if best is None else best["output_tok_s"]

    report = {
        "baseline_tok_s_at_slo": at_slo("baseline"),
        "optimized_tok_s_at_slo": at_slo("optimized"),
        "slo_tps_per_user": args.slo_tps_per_user,
        "configs": results,
        "trace": {"path": str(args.trace), "block_size": block_size, "scale": args.scale, "turns": args.turns,
                  "generator": meta.get("shape"), "levels": {str(c): {"requests": len(v), "block_reuse":
                                                                      round(block_reuse(v), 3)}
                                                             for c, v in levels.items()}},
        "settings": {"quick": args.quick, "concurrency": levels_wanted, "guardrails": args.guardrails,
                     "load_average_at_start": load_at_start,
                     "seed": args.seed, "cpu_count": os.cpu_count(), "torch": torch.__version__,
                     "device": "cuda" if torch.cuda.is_available() else "cpu", "machine": platform.machine(),
                     "elapsed_s": round(time.perf_counter() - started, 1)},
    }
    base, opt = report["baseline_tok_s_at_slo"], report["optimized_tok_s_at_slo"]
    if base and opt:
        report["optimized_over_baseline_at_slo"] = round(opt / base, 2)
    write_results(args.out, report)
    if len(results) >= 1:
        plot(args.plot, results, args.slo_tps_per_user)
    print(json.dumps({k: report[k] for k in ("baseline_tok_s_at_slo", "optimized_tok_s_at_slo")}))
    print(f"wrote {args.out} and {args.plot} in {report['settings']['elapsed_s']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
