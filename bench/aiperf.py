"""NVIDIA's AIPerf against Warden, beside bench.serve: the same agentic trace, prompts, arm and concurrency levels,
measured by both load generators in one session, and whether their TTFT p50/p90, ITL p50 and output tokens/s agree
within 10%.

    python -m bench.aiperf                          # optimized arm, concurrency 2,4,8, >= 48 requests, 3 rounds
    python -m bench.aiperf --concurrency 2 --requests 16 --rounds 1      # a smoke run (~3 min)

AIPerf runs from its own virtualenv (``bench/.venv-aiperf``, installed from ``bench/requirements-aiperf.lock`` on
first use; its dependencies never meet Warden's), against the gateway bench.serve starts (``bench.serve``'s
``start_targets``: HTTPS with the development certificate, a tenant's API key):

- TLS: AIPerf's HTTP client (aiohttp) verifies against OpenSSL's default trust store, so ``SSL_CERT_FILE`` names
  the gateway's certificate; nothing is left unverified.
- Tokenizer, offline: the engine's own tokenizer (the GGUF's vocabulary and chat template) saved as a Hugging Face
  tokenizer into a local hub-cache layout, and AIPerf started with ``HF_HUB_OFFLINE=1`` and that cache: in offline
  mode AIPerf 0.13 resolves tokenizers only through the hub cache, not a plain directory. With server token counts
  (``--use-server-token-count``) it counts tokens as bench.serve does, from the response's usage.
- The trace: a Mooncake JSONL (``--custom-dataset-type mooncake_trace``) whose rows carry bench.serve's own
  synthesized prompt for each entry (``messages``; a fresh salt per run so no run warms another's prefix cache), the
  entry's output length, ``ignore_eos``, greedy sampling and the per-request seed, the session id and, on every turn
  after a session's first, the think time as its ``delay``. The request bodies are bench.serve's, byte for byte in
  content.
- Concurrency: AIPerf's ``--concurrency`` counts sessions, each holding its slot from its first turn to its last
  (think time included), so bench.serve's side of the comparison replays with ``session_slots`` (the same rule);
  both then keep the same number of requests in flight.

Each round runs every level with every client back to back, who goes first moving from level to level, so a shared
machine's drift lands on all alike; the comparison takes each figure's median over rounds. AIPerf runs with one
worker and one record processor and no server-metrics scraping. Its processes share the machine with the server it
measures, so every run records its load generator's CPU seconds: where the cores are few, what the client burns the
server does not get. ``--serve-clients both`` adds bench.serve's client in a process of its own, which separates the
tools from where they run (bench.serve's in-process client shares the gateway thread's interpreter).

Writes ``bench/results/serve_aiperf.json`` and a summary under ``aiperf`` in ``bench/results/serve.json``
(everything else there kept).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import resource
import ssl
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import httpx

from bench import serve as bench_serve
from bench.aiperf_results import AGREEMENT, compare, median_of, read_export
from bench.provenance import write_results
from bench.serve import DEFAULT_TRACE, Target, level_entries, start_targets, think_time_s
from bench.serve_prompts import PromptSynthesizer
from bench.serve_replay import ChatStreamer, RequestResult, replay
from bench.serve_stats import summarize
from bench.tool_venv import ensure_tool
from bench.traces.mooncake import TraceEntry, block_reuse, read_trace

HERE = Path(__file__).parent
REPO = HERE.parent
VENV = HERE / ".venv-aiperf"
LOCK = HERE / "requirements-aiperf.lock"
RESULTS = HERE / "results" / "serve_aiperf.json"
SERVE_RESULTS = HERE / "results" / "serve.json"
ARM = "optimized"
WARMUP_SALT = 10**6


def ensure_installed(venv: Path = VENV) -> Path:
    """The ``aiperf`` executable, installing the locked AIPerf first if the virtualenv lacks it (~2 min)."""
    return ensure_tool(venv, LOCK, "aiperf", label="AIPerf")


def export_tokenizer(tokenizer: Any, hub_cache: Path, repo_id: str) -> str:
    """Save the engine's tokenizer (``engine.tokenization.tokenizer.Tokenizer``) as a Hugging Face tokenizer
    (``tokenizer.json`` + ``tokenizer_config.json`` with the chat template and special tokens) into ``hub_cache`` in
    the hub's cache layout under ``repo_id``, so an offline ``AutoTokenizer.from_pretrained(repo_id)`` finds it.
    Returns the snapshot's revision (the digest of its files)."""
    fast = tokenizer.backend

    def name(token_id: int | None) -> str | None:
        return None if token_id is None else fast.id_to_token(token_id)

    files = {
        "tokenizer.json": fast.to_str(),
        "tokenizer_config.json": json.dumps({
            "tokenizer_class": "PreTrainedTokenizerFast", "chat_template": tokenizer.chat_template,
            "bos_token": name(tokenizer.bos_token_id),
            "eos_token": name(tokenizer.eos_token_ids[0] if tokenizer.eos_token_ids else None),
            "pad_token": name(tokenizer.pad_token_id), "add_bos_token": tokenizer.add_bos_token,
            "clean_up_tokenization_spaces": False}, indent=2),
    }
    revision = hashlib.sha1("".join(files[k] for k in sorted(files)).encode()).hexdigest()
    root = hub_cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = root / "snapshots" / revision
    snapshot.mkdir(parents=True, exist_ok=True)
    for filename, text in files.items():
        (snapshot / filename).write_text(text, encoding="utf-8")
    (root / "refs").mkdir(exist_ok=True)
    (root / "refs" / "main").write_text(revision, encoding="utf-8")
    return revision


def aiperf_rows(entries: list[TraceEntry], synth: PromptSynthesizer, *, salt: int, seed: int,
                think_s: float) -> list[dict[str, Any]]:
    """The level as AIPerf's Mooncake rows: bench.serve's prompt and request options for each entry, in trace order;
    a session's later turns wait ``think_s`` after the previous answer. No timestamps: they would switch AIPerf to
    its fixed schedule instead of the concurrency it is given."""
    rows: list[dict[str, Any]] = []
    started: set[str] = set()
    for index, entry in enumerate(entries):
        row: dict[str, Any] = {"messages": synth.messages(entry, salt), "output_length": entry.output_length,
                               "extra": {"ignore_eos": True, "temperature": 0.0, "seed": seed + index}}
        if entry.session_id is not None:
            row["session_id"] = entry.session_id
            if entry.session_id in started:
                row["delay"] = round(think_s * 1e3, 3)
            started.add(entry.session_id)
        rows.append(row)
    return rows


def aiperf_command(executable: Path, target: Target, *, tokenizer: str, input_file: Path, concurrency: int,
                   sessions: int, artifacts: Path, seed: int) -> list[str]:
    """``--num-sessions``, not ``--request-count``: a request count stops mid-session and lets AIPerf wrap the
    dataset, starting a session again in a slot the last wave leaves free; a session count starts each session
    once and finishes them all."""
    endpoint = target.endpoint
    return [str(executable), "profile", "--model", endpoint.model, "--url", endpoint.base_url.removesuffix("/v1"),
            "--api-key", endpoint.api_key, "--endpoint-type", "chat", "--streaming", "--use-legacy-max-tokens",
            "--use-server-token-count", "--tokenizer", tokenizer, "--input-file", str(input_file),
            "--custom-dataset-type", "mooncake_trace", "--concurrency", str(concurrency), "--num-sessions",
            str(sessions), "--random-seed", str(seed), "--workers-max", "1", "--record-processors", "1",
            "--no-server-metrics", "--ui", "none", "--artifact-dir", str(artifacts)]


def run_aiperf(command: list[str], *, cert: Path, hub_cache: Path, log: Path) -> tuple[Path, float]:
    """Run one ``aiperf profile``; returns its summary export and the CPU seconds its processes used (what the load
    generator takes from the server on a small machine). The key is on the command line, so the command is never
    printed; AIPerf's own log redacts it."""
    env = {**os.environ, "SSL_CERT_FILE": str(cert), "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(hub_cache),
           "TOKENIZERS_PARALLELISM": "false"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with log.open("ab") as out:
        finished = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    export = Path(command[command.index("--artifact-dir") + 1]) / "profile_export_aiperf.json"
    if finished.returncode != 0 or not export.exists():
        raise RuntimeError(f"aiperf profile failed (exit {finished.returncode}); see {log}")
    return export, cpu_s


@dataclass(frozen=True)
class Endpoint:
    """Where bench.serve's client sends a level (picklable: the client may run in a child process)."""
    base_url: str
    cert: str
    api_key: str
    model: str


async def replay_level(endpoint: Endpoint, entries: list[TraceEntry], messages: list[list[dict[str, str]]],
                       concurrency: int, seed: int, think_s: float) -> tuple[list[RequestResult], float]:
    """bench.serve's client and timing over one level, with AIPerf's session-holding concurrency."""
    verify = ssl.create_default_context(cafile=endpoint.cert)
    limits = httpx.Limits(max_connections=concurrency + 4, max_keepalive_connections=concurrency + 4)
    async with httpx.AsyncClient(verify=verify, limits=limits) as client:
        streamer = ChatStreamer(client, endpoint.base_url, endpoint.api_key, endpoint.model)

        async def send(index: int, entry: TraceEntry) -> RequestResult:
            return await streamer.send(index, entry, messages[index], seed=seed + index)

        return await replay(entries, concurrency, send, think_s=think_s, session_slots=True)


def replay_level_blocking(*args: Any) -> tuple[list[RequestResult], float, float]:
    """The level's results, wall time and the client thread's CPU seconds."""
    cpu = time.thread_time()
    results, wall = asyncio.run(replay_level(*args))
    return results, wall, time.thread_time() - cpu


def serve_level(endpoint: Endpoint, synth: PromptSynthesizer, entries: list[TraceEntry], concurrency: int, *,
                salt: int, seed: int, think_s: float, child: ProcessPoolExecutor | None) -> dict[str, Any]:
    """bench.serve's measurement of one level: in this process, beside the gateway's thread, as bench.serve runs
    (``child`` None), or in ``child``, a process of its own as AIPerf's client is."""
    messages = [synth.messages(entry, salt) for entry in entries]
    args = (endpoint, entries, messages, concurrency, seed, think_s)
    results, wall, cpu_s = child.submit(replay_level_blocking, *args).result() if child \
        else replay_level_blocking(*args)
    return {**summarize(concurrency, results, wall, bench_serve.DEFAULT_SLO).to_json(),
            "client_cpu_s": round(cpu_s, 2)}


def summary_for_serve_json(report: dict[str, Any], results: Path) -> dict[str, Any]:
    """What serve.json carries of the comparison: where the whole of it is, and per level each comparison's
    figures and each load generator's median CPU seconds per run."""
    where = results.resolve()

    def level(lv: dict[str, Any]) -> dict[str, Any]:
        tools = sorted({run["tool"] for run in lv["runs"]})
        return {"vs_bench_serve": lv["comparison"]["figures"],
                **({"vs_bench_serve_own_process": lv["comparison_process_client"]["figures"]}
                   if "comparison_process_client" in lv else {}),
                "client_cpu_s": {tool: median_of([r["figures"] for r in lv["runs"] if r["tool"] == tool],
                                                 "client_cpu_s") for tool in tools}}

    return {"results": str(where.relative_to(REPO)) if where.is_relative_to(REPO) else str(where),
            "arm": report["arm"], "tolerance": report["tolerance"],
            "agree": report["agree"], "max_abs_relative_difference": report["max_abs_relative_difference"],
            "levels": {str(lv["concurrency"]): level(lv) for lv in report["levels"]}, "command": report["command"]}


def attach_to_serve_json(path: Path, summary: dict[str, Any]) -> None:
    """Put the summary under ``aiperf`` in serve.json, everything else in it as it was."""
    report = json.loads(path.read_text(encoding="utf-8"))
    report["aiperf"] = summary
    path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


SERVE_TOOLS = {"thread": "bench_serve", "process": "bench_serve_process"}


def build_report(rows: dict[int, list[dict[str, Any]]], levels: dict[int, list[TraceEntry]], *, target: Target,
                 complete: bool, settings: dict[str, Any], trace: dict[str, Any], command: str) -> dict[str, Any]:
    """serve_aiperf.json: per level every run's figures and the comparison of the medians (AIPerf against
    bench.serve as it runs; where measured, also against bench.serve's client in a process of its own)."""
    report_levels: list[dict[str, Any]] = []
    for concurrency, level in levels.items():
        by_tool: dict[str, list[dict[str, Any]]] = {}
        for row in rows[concurrency]:
            by_tool.setdefault(row["tool"], []).append(row["figures"])
        entry: dict[str, Any] = {
            "concurrency": concurrency, "requests": len(level), "sessions": len({e.session_id for e in level}),
            "block_reuse": round(block_reuse(level), 3),
            "comparison": compare(by_tool.get("bench_serve", []), by_tool.get("aiperf", []))}
        if "bench_serve_process" in by_tool:
            entry["comparison_process_client"] = compare(by_tool["bench_serve_process"], by_tool.get("aiperf", []))
        report_levels.append({**entry, "runs": rows[concurrency]})
    worst = [lv["comparison"]["max_abs_relative_difference"] for lv in report_levels]
    return {
        "complete": complete, "arm": ARM, "label": target.description["label"],
        "engine": target.description["engine"], "tolerance": AGREEMENT,
        "agree": all(lv["comparison"]["within_tolerance"] for lv in report_levels),
        "max_abs_relative_difference": max((w for w in worst if w is not None), default=None),
        "levels": report_levels, "command": command, "trace": trace,
        "settings": {**settings, "load_average_now": [round(x, 2) for x in os.getloadavg()]},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.aiperf", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE, help="Mooncake JSONL trace")
    parser.add_argument("--concurrency", default="2,4,8", help="comma-separated levels")
    parser.add_argument("--requests", type=int, default=48, help="at least this many requests per level")
    parser.add_argument("--rounds", type=int, default=3, help="runs of every level with each tool (medians)")
    parser.add_argument("--serve-clients", default="thread",
                        help="where bench.serve's client runs: thread (beside the gateway's thread in this process, "
                             "as bench.serve runs it), process (a process of its own, as AIPerf's), or both")
    parser.add_argument("--engine-threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--serve-json", type=Path, default=SERVE_RESULTS,
                        help="the serving results to attach the summary to (nothing attached if missing)")
    args = parser.parse_args(argv)
    command = " ".join(["python -m bench.aiperf", *(sys.argv[1:] if argv is None else argv)])
    placements = ["thread", "process"] if args.serve_clients == "both" else [args.serve_clients]
    if any(p not in SERVE_TOOLS for p in placements):
        raise SystemExit(f"--serve-clients: thread, process or both, not {args.serve_clients!r}")
    started = time.perf_counter()
    load_at_start = [round(x, 2) for x in os.getloadavg()]
    executable = ensure_installed()
    version = subprocess.run([str(executable), "--version"], capture_output=True, text=True, check=True).stdout.strip()

    entries, meta = read_trace(args.trace, None)
    concurrencies = sorted({int(c) for c in args.concurrency.split(",") if c.strip()})
    levels = {c: level_entries(entries, c, args.requests, None) for c in concurrencies}
    think_s = think_time_s(entries)
    trace = {"path": str(args.trace.resolve().relative_to(REPO)) if args.trace.resolve().is_relative_to(REPO)
             else str(args.trace), "block_size": meta["block_size"], "think_time_s": think_s}
    settings: dict[str, Any] = {
        "rounds": args.rounds, "requests_per_level": args.requests, "engine_threads": args.engine_threads,
        "seed": args.seed, "aiperf": version, "aiperf_workers": 1, "aiperf_record_processors": 1,
        "bench_serve_clients": placements,
        "concurrency_rule": "a session holds its slot from its first turn to its last (both tools)",
        "token_counts": "server usage (both tools)", "tls": "verified against the gateway's certificate",
        "load_average_at_start": load_at_start}

    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    source = resolve_model("default", None)
    tokenizer = Tokenizer.from_source(source)
    synth = PromptSynthesizer(tokenizer, meta["block_size"])
    engines = {name: {**bench_serve.COMMON, "num_threads": args.engine_threads, **config}
               for name, config in bench_serve.ENGINES.items()}
    tools = [SERVE_TOOLS[p] for p in placements] + ["aiperf"]

    rows: dict[int, list[dict[str, Any]]] = {c: [] for c in concurrencies}
    with contextlib.ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="warden-aiperf-")))
        hub_cache = scratch / "hub"
        repo_id = f"warden/{source.served_name}"
        export_tokenizer(tokenizer, hub_cache, repo_id)
        target = start_targets(stack, [ARM], engines, args.engine_threads, levels)[ARM]
        assert target.cert is not None
        endpoint = Endpoint(target.endpoint.base_url, str(target.cert), target.endpoint.api_key,
                            target.endpoint.model)
        child = (stack.enter_context(ProcessPoolExecutor(1, mp_context=get_context("spawn")))
                 if "process" in placements else None)
        # The first request of each client pays for its start (imports, TLS); not a level's.
        warm = [TraceEntry(timestamp=0, input_length=synth.overhead + 64, output_length=4, hash_ids=(10**9,))]
        for placement in placements:
            serve_level(endpoint, synth, warm, 1, salt=WARMUP_SALT, seed=args.seed, think_s=0.0,
                        child=child if placement == "process" else None)
        runs = 0
        for level_run, (round_index, (concurrency, level)) in enumerate(
                (r, item) for r in range(args.rounds) for item in levels.items()):
            for tool in bench_serve.rotated(tools, level_run):  # who goes first moves from level to level
                runs += 1  # the run's salt: its own prompts, so no run finds another's in the prefix cache
                if tool == "aiperf":
                    run_dir = scratch / f"c{concurrency}-r{round_index}"
                    run_dir.mkdir()
                    input_file = run_dir / "trace.jsonl"
                    input_file.write_text("".join(json.dumps(row) + "\n" for row in aiperf_rows(
                        level, synth, salt=runs, seed=args.seed, think_s=think_s)), encoding="utf-8")
                    export, cpu_s = run_aiperf(aiperf_command(
                        executable, target, tokenizer=repo_id, input_file=input_file, concurrency=concurrency,
                        sessions=len({e.session_id for e in level}), artifacts=run_dir / "artifacts", seed=args.seed),
                        cert=target.cert, hub_cache=hub_cache, log=run_dir / "aiperf.log")
                    figures = {**read_export(export).to_json(), "client_cpu_s": round(cpu_s, 2)}
                else:
                    figures = serve_level(endpoint, synth, level, concurrency, salt=runs, seed=args.seed,
                                          think_s=think_s, child=child if tool == "bench_serve_process" else None)
                load = [round(x, 2) for x in os.getloadavg()]
                rows[concurrency].append({"round": round_index, "tool": tool, "salt": runs,
                                          "figures": figures, "load_average": load})
                print(f"  round {round_index} c={concurrency:<2} {tool:<19} TTFT p50 {figures['ttft_p50_ms']} "
                      f"p90 {figures['ttft_p90_ms']} ms  ITL p50 {figures['itl_p50_ms']} ms  "
                      f"{figures['output_tok_s']} tok/s  client CPU {figures['client_cpu_s']} s  (load {load[0]})",
                      flush=True)
                write_results(args.out, build_report(rows, levels, target=target, complete=False,
                                                     settings=settings, trace=trace, command=command),
                              command=command)

    settings["elapsed_s"] = round(time.perf_counter() - started, 1)
    report = build_report(rows, levels, target=target, complete=True, settings=settings, trace=trace,
                          command=command)
    write_results(args.out, report, command=command)
    if args.serve_json.exists():
        attach_to_serve_json(args.serve_json, summary_for_serve_json(report, args.out))
    for level_report in report["levels"]:
        print(json.dumps({k: v for k, v in level_report.items() if k.startswith("comparison")}))
    print(f"agree within {AGREEMENT:.0%}: {report['agree']}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
