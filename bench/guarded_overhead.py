"""The guarded path alone: Warden with its guardrails on, 2 KB prompts none of which was sent before, over the stub
engine, at a few constant rates; before and after in alternating rounds when given a baseline commit. No request is
streamed, so the stub's completion carries no clock stamp (``bench.stub_engine --no-stamp``): the output guardrails
screen "t done", not a 19-digit number.

``bench.overhead_stub`` measures the guarded gateway once per run beside the others. This bench isolates it, for
judging a change to the guardrails' execution path: every phase (warm-up included) sends prompts of its own seed,
so no guardrail cache answers for a prompt (a replayed prompt costs a hash lookup, not a scan), and with
``--baseline-commit`` the same set-up served from that commit runs in alternating rounds, so a drift in the shared
cores' load falls on both. Per phase: server CPU per answered request (the server's whole process tree: every thread,
the audit drain process and the analysis workers; and the event loop's thread alone),
Warden's own ``x-warden-overhead-ms``, latency percentiles, errors by status. ``--analysis-processes N`` adds the
same gateway with its input analysis in N worker processes (``GuardConfig.analysis_processes``), side by side (and,
with a baseline, that commit's gateway the same way); ``--unguarded`` the same gateway with its guardrails off on the
same prompts (what the guardrails add is the difference); ``--profile F`` runs the guarded gateway's event loop
under cProfile (its thread's CPU time) while measured.

    WARDEN_DATABASE_URL=postgresql+psycopg://... WARDEN_REDIS_URL=redis://... \
        python -m bench.guarded_overhead --rates 50 100 --duration 15 [--analysis-processes 1] \
            [--baseline-commit REV] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import ssl
import statistics
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.gateway_overhead import Stack, run_in_stack
from bench.overhead_stub import (
    Phases,
    Server,
    chat_body,
    long_prompts,
    measure,
    prepare_warden,
    start_stub_engine,
    start_warden,
    unpack_commit,
    wait_ready,
)
from gateway.background_server import free_port
from gateway.core.tls import ensure_certificate

if TYPE_CHECKING:
    from fastapi import FastAPI

RESULTS = Path(__file__).resolve().parent / "results" / "guarded_overhead.json"
PROCESSES_ENV = "WARDEN_BENCH_ANALYSIS_PROCESSES"


def app_with_analysis_processes() -> FastAPI:
    """``gateway.app.app_from_env``'s app, its guardrails' input analysis in worker processes (as many as
    ``$WARDEN_BENCH_ANALYSIS_PROCESSES``)."""
    from gateway.app import create_app
    from gateway.core.secrets import load_server_secrets
    from gateway.core.settings import Settings
    from gateway.guardrails import GuardConfig, InputGuard
    from gateway.openai.guardrails_adapter import GuardrailsInput, GuardrailsOutput

    settings = Settings()
    guard = InputGuard(load_server_secrets(settings).server_secret,
                       config=GuardConfig(analysis_processes=int(os.environ[PROCESSES_ENV])))
    return create_app(settings, input_guard=GuardrailsInput(guard), output_guard=GuardrailsOutput(guard),
                      tune_gc=True)


def fresh_bodies(count: int, seed: int) -> list[bytes]:
    """``count`` distinct 2 KB chat requests; a different ``seed`` gives prompts no other seed gives."""
    return [chat_body(messages) for messages in long_prompts(count, seed=seed)]


async def start_guarded(stack: Stack, name: str, args: argparse.Namespace, cert: Path, key: Path,
                        source: Path | None, processes: int = 0, guardrails: bool = True) -> Server:
    env, api_key, authkey = prepare_warden(stack, name, guardrails=guardrails, database_url=args.database_url or None,
                                           redis_url=args.redis_url or None, cert=cert, key=key)
    socket_path = stack.workdir / f"{name}.sock"
    start_stub_engine(stack, socket_path, authkey, stamp=False)  # no request here is streamed
    for _ in range(100):
        if socket_path.exists():
            break
        await asyncio.sleep(0.05)
    profile = None
    if processes:
        port = free_port()
        server_env = {**env, "WARDEN_ENGINE_SOCKETS": json.dumps([str(socket_path)]), PROCESSES_ENV: str(processes)}
        app_dir: list[str] = []
        if source is not None:  # the baseline commit's gateway (and its copy of this factory)
            server_env["PYTHONPATH"] = str(source)
            app_dir = ["--app-dir", str(source)]
        stack.spawn([sys.executable, "-m", "uvicorn", "bench.guarded_overhead:app_with_analysis_processes",
                     "--factory", *app_dir, "--host", "127.0.0.1", "--port", str(port), "--ssl-certfile", str(cert),
                     "--ssl-keyfile", str(key), "--log-level", "warning"], server_env, name)
    else:
        profile = args.profile if args.profile is not None and source is None and guardrails else None
        port = start_warden(stack, name, env, socket_path, cert, key, source=source, profile=profile)
    return Server(name, port, api_key, fresh_bodies(4, seed=10_000), pid=stack.processes[-1].pid,
                  profiled=profile is not None)


async def run(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    cert, key = ensure_certificate(stack.workdir / "tls", None, None)
    tls = ssl.create_default_context(cafile=str(cert))
    servers = [await start_guarded(stack, "guarded", args, cert, key, None)]
    if args.analysis_processes:
        servers.append(await start_guarded(stack, f"guarded_{args.analysis_processes}proc", args, cert, key, None,
                                           processes=args.analysis_processes))
    if args.unguarded:
        servers.append(await start_guarded(stack, "unguarded", args, cert, key, None, guardrails=False))
    baseline = None
    if args.baseline_commit is not None:
        baseline = unpack_commit(args.baseline_commit, stack.workdir / "baseline")
        servers.append(await start_guarded(stack, "guarded_baseline", args, cert, key, stack.workdir / "baseline"))
        if args.analysis_processes:
            servers.append(await start_guarded(stack, f"guarded_{args.analysis_processes}proc_baseline", args, cert,
                                               key, stack.workdir / "baseline", processes=args.analysis_processes))
    for server in servers:
        await wait_ready(server, tls, stack)
    seed = 1
    phases = Phases()
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {s.name: {str(r): [] for r in args.rates} for s in servers}
    for round_index in range(args.rounds):
        order = servers if round_index % 2 == 0 else servers[::-1]
        for rate in args.rates:
            for server in order:
                count = int(rate * max(args.warmup_s, args.duration)) + 1
                if args.warmup_s > 0:  # prompts of their own: the measured ones are all new to the server
                    await measure(server, tls, rate, args.warmup_s, 0.0, bodies=fresh_bodies(count, seed),
                                  phases=phases)
                    seed += 1
                row = await measure(server, tls, rate, args.duration, 0.0, bodies=fresh_bodies(count, seed),
                                    phases=phases)
                rows[server.name][str(rate)].append(row)
                seed += 1
                await asyncio.sleep(args.pause_s)  # let a backlog drain before the next phase
    summary = {name: {rate: _medians(phases) for rate, phases in by_rate.items()} for name, by_rate in rows.items()}
    return {"config": {"rates": args.rates, "duration_s": args.duration, "warmup_s": args.warmup_s,
                       "rounds": args.rounds, "prompt_bytes": 2048, "baseline": baseline,
                       "analysis_processes": args.analysis_processes,
                       "database": "postgres" if (args.database_url or "").startswith("postgresql") else "sqlite",
                       "rate_limit_store": "redis" if args.redis_url else "in-process"},
            "summary": summary, "phases": rows, "order": phases.entries}


def _medians(phases: list[dict[str, Any]]) -> dict[str, Any]:
    def median(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return statistics.median(present) if present else None

    return {"server_cpu_ms_per_request": median([p["server_cpu_ms_per_request"] for p in phases]),
            "loop_cpu_ms_per_request": median([p["loop_cpu_ms_per_request"] for p in phases]),
            "own_p50_ms": median([p["reported_overhead_ms"]["p50"] for p in phases]),
            "own_p99_ms": median([p["reported_overhead_ms"]["p99"] for p in phases]),
            "service_p50_ms": median([p["service_ms"]["p50"] for p in phases]),
            "achieved_rate": median([p["achieved_rate"] for p in phases]),
            "errors": sum(p["errors"] for p in phases),
            "load_before": [p["load_average"]["before"][0] for p in phases]}


def print_table(result: dict[str, Any]) -> None:
    print(f"\n{'server':<18}{'rate':>6}{'cpu/req':>9}{'loop':>7}{'own p50':>9}{'own p99':>9}{'p50':>9}"
          f"{'served/s':>9}{'errors':>7}  load")
    for name, by_rate in result["summary"].items():
        for rate, row in by_rate.items():
            print(f"{name:<18}{float(rate):>6.0f}{_f(row['server_cpu_ms_per_request']):>9}"
                  f"{_f(row['loop_cpu_ms_per_request']):>7}{_f(row['own_p50_ms']):>9}{_f(row['own_p99_ms']):>9}"
                  f"{_f(row['service_p50_ms']):>9}{_f(row['achieved_rate']):>9}{row['errors']:>7}  "
                  f"{row['load_before']}")


def _f(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rates", type=float, nargs="+", default=[50.0, 100.0], help="requests/s, each a phase")
    parser.add_argument("--duration", type=float, default=15.0, help="seconds measured per phase")
    parser.add_argument("--warmup-s", type=float, default=3.0, help="seconds at the rate before each phase")
    parser.add_argument("--pause-s", type=float, default=3.0, help="seconds idle between phases")
    parser.add_argument("--rounds", type=int, default=1, help="rounds (each server at each rate once per round)")
    parser.add_argument("--baseline-commit", default=None,
                        help="also the guarded gateway served from this commit, in alternating rounds")
    parser.add_argument("--analysis-processes", type=int, default=0,
                        help="also the guarded gateway with its input analysis in this many worker processes")
    parser.add_argument("--unguarded", action="store_true",
                        help="also the same gateway with its guardrails off, on the same prompts: what the "
                             "guardrails add to each request is the difference")
    parser.add_argument("--profile", type=Path, default=None,
                        help="the guarded gateway's event loop thread under cProfile (its CPU time) while measured, "
                             "its stats written here (the baseline and --analysis-processes arms are not profiled)")
    parser.add_argument("--database-url", default=os.environ.get("WARDEN_DATABASE_URL"))
    parser.add_argument("--redis-url", default=os.environ.get("WARDEN_REDIS_URL"))
    parser.add_argument("--out", type=Path, default=RESULTS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    return run_in_stack(run, parse_args(argv), print_table, prefix="warden-guarded-")


if __name__ == "__main__":
    sys.exit(main())

