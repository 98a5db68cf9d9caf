"""Gateway overhead over a stub engine, at a constant request rate, side by side with the floor and LiteLLM.

No model runs: Warden's gateways talk to ``bench.stub_engine`` (the engine host protocol, a fixed two-delta
completion sent at once), so each gateway's whole request path runs for real — key check, policy, rate limits in
Redis, tokenizer, engine client and pool, hash-chained audit fsync'd to the spool and drained to Postgres — and what
is left of the latency is the gateway's own plus one IPC hop. Targets, each over HTTPS with the same certificate,
from one uvicorn worker:

  floor           a bare ASGI app returning the same body (``bench.overhead_floor``): the server, TLS and client
  warden_core     Warden, guardrails off, one tenant whose policy sets limits
  warden_guarded  Warden with its guardrails on (PII masking in and out, injection screening), 2 KB prompts
  litellm         LiteLLM's proxy (master key, no database) in front of the floor's plain-HTTP port

Each target in turn gets an open-loop load (``bench.open_loop``): ``--rate`` requests/s for ``--duration`` s after a
warm-up, while the others sit idle. Reported per target: latency percentiles (from the request's write to its last
byte), their excess over the floor's and the ratio to it, Warden's own ``x-warden-overhead-ms`` and errors. Streams:
the time from the stub engine's first delta to the client's first byte of it, at ``--stream-rate``. Server
configurations (``--server-configs``): the floor and warden_core again under uvicorn with each event loop x HTTP
parser pair. Servers (``--compare-servers``): the floor and warden_core under uvicorn and under granian, at
``--server-rate``. Before and after (``--baseline-commit REV``): warden_core served from that commit too, side by
side, and with ``--ab-rounds`` the two in alternating rounds, whose median CPU per request is the figure a change is
judged by. The machine's load average is recorded with every phase: the cores are shared, so the ratios to the
floor measured in the same run carry more than the absolute figures.

    WARDEN_DATABASE_URL=postgresql+psycopg://... WARDEN_REDIS_URL=redis://... \
        python -m bench.gateway_overhead --stub-engine [--compare-servers] [--baseline-commit REV --ab-rounds 6]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
import os
import platform
import secrets
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import litellm_proxy
from bench.gateway_overhead import Stack, provision_tenant, ticket_prompts
from bench.open_loop import LoadResult, Target, run_open_loop
from bench.overhead_tail import TAIL_PROBE_ENV, collect_timelines, tail_breakdown
from bench.stub_engine import AUTHKEY_ENV
from gateway.background_server import free_port
from gateway.core.tls import ensure_certificate

MODEL = "smollm2-135m-instruct"
PROFILE_ENV = "WARDEN_BENCH_PROFILE"  # where profiled_app_from_env writes its stats
READY_TIMEOUT_S = 180.0
STALL_STACKS_PRINTED = 6  # of a tail-probed run's most frequent loop-stall stacks
STALL_STACK_CHARS = 240
SERVER_CONFIGS = [("uvloop", "httptools"), ("uvloop", "h11"), ("asyncio", "httptools"), ("asyncio", "h11")]
SERVERS = ("uvicorn", "granian")  # --compare-servers: warden serve's (uvicorn, uvloop + httptools) and granian's
GRANIAN_LOCK = Path(__file__).resolve().parent / "requirements-granian.lock"
FEATURES = {
    "floor": "bare ASGI app, same body, same server and TLS",
    "warden_core": "key check, policy, rate limits (Redis), tokenizer, engine client, hash-chained audit (fsync'd)",
    "warden_guarded": "warden_core + PII masking in and out + injection screening, 2 KB prompts",
    "litellm": "master key, no database, in front of the floor",
    "warden_core_tmpfs_spool": "warden_core with its audit spool on tmpfs (no disk fsync; durable in the database)",
    "warden_core_baseline": "warden_core served from another checkout (--baseline-tree), side by side",
    "warden_core_workers": "warden_core under uvicorn --workers N (--core-workers), as warden serve --workers N runs "
                           "it: CPU summed over the workers",
}


@dataclass
class Server:
    name: str
    port: int
    api_key: str
    bodies: list[bytes]
    pid: int | None = None  # the server's process, whose CPU time each measurement reads
    profiled: bool = False  # under profiled_app_from_env: profiled while measured
    workers: int = 1  # uvicorn workers under ``pid`` (their supervisor): CPU is then summed over its children
    tail_probe: Path | None = None  # under bench.overhead_tail's probe, which writes its timelines here

    def target(self, tls: ssl.SSLContext) -> Target:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return Target("127.0.0.1", self.port, "/v1/chat/completions", self.bodies, headers, tls)


@dataclass
class Phases:
    """Every load phase of a run in the order it ran, each arm's discarded warm-ups among them: the results record
    it, so which arm went first, and whether every arm was warm before any was measured, can be read."""

    started: float = field(default_factory=time.monotonic)
    entries: list[dict[str, Any]] = field(default_factory=list)

    def note(self, arm: str, kind: str, rate: float, duration_s: float, at: float, summary: dict[str, Any]) -> None:
        self.entries.append({"arm": arm, "kind": kind, "rate": rate, "duration_s": duration_s,
                             "started_s": round(at - self.started, 2), "sent": summary["sent"],
                             "errors": summary["errors"], "service_ms_p99": summary["service_ms"]["p99"]})


def chat_body(messages: list[dict[str, str]], *, stream: bool = False) -> bytes:
    body: dict[str, Any] = {"model": MODEL, "messages": messages, "max_tokens": 2, "temperature": 0}
    if stream:
        body["stream"] = True
    return json.dumps(body, separators=(",", ":")).encode()


def long_prompts(count: int, size: int = 2048, seed: int = 0) -> list[list[dict[str, str]]]:
    """Chat requests whose user message is ``size`` bytes of distinct support tickets (names, e-mail addresses and
    phone numbers among them), each prompt different, so no guardrail cache answers for another."""
    tickets = ticket_prompts(count * 40, seed=seed)
    prompts = []
    for i in range(count):
        text = ""
        for j in range(i * 40, (i + 1) * 40):
            text += tickets[j][1]["content"] + "\n"
            if len(text) >= size:
                break
        prompts.append([tickets[i][0], {"role": "user", "content": text[:size]}])
    return prompts


def process_cpu_s(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid`` so far, all its threads (0 without one)."""
    return 0.0 if pid is None else _cpu_s(Path(f"/proc/{pid}/stat"))


def loop_thread_cpu_s(pid: int | None) -> float:
    """User + system CPU seconds of process ``pid``'s main thread (where uvicorn runs the event loop) so far."""
    return 0.0 if pid is None else _cpu_s(Path(f"/proc/{pid}/task/{pid}/stat"))


def workers_cpu_s(pid: int | None) -> tuple[float, float]:
    """Total and event-loop-thread CPU seconds of the processes under supervisor ``pid`` (uvicorn --workers N), the
    supervisor's own and every worker's helpers (the audit drain process) included."""
    if pid is None:
        return 0.0, 0.0
    children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    loops = 0.0
    for child in children:
        try:
            loops += loop_thread_cpu_s(child)
        except FileNotFoundError:  # a helper process that just exited
            continue
    return tree_cpu_s(pid), loops


def tree_cpu_s(pid: int | None) -> float:
    """CPU seconds of process ``pid`` and of every process under it: a server's work done in its own children (the
    audit drain process, started from a thread: its parent is found through every thread's children) counts too."""
    if pid is None:
        return 0.0
    try:
        total = process_cpu_s(pid)
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:  # a helper process that just exited
        return 0.0
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:
            continue
        total += sum(tree_cpu_s(int(child)) for child in children)
    return total


def database_cpu_s() -> float:
    """CPU seconds so far of every Postgres server process on this machine (its backends, WAL writer, checkpointer):
    the database the gateway's stores and audit drain use shares the cores with it. Every client of that server
    counts, so the figure is only a gateway's on an otherwise quiet machine; a backend that exits takes its CPU
    with it (the gateways keep theirs pooled)."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / "comm").read_text().strip() == "postgres":
                total += _cpu_s(proc / "stat")
        except (FileNotFoundError, ProcessLookupError, PermissionError):  # gone meanwhile, or not ours to read
            continue
    return total


def _cpu_s(stat: Path) -> float:
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load_average() -> list[float]:
    return [round(v, 2) for v in os.getloadavg()]


def start_stub_engine(stack: Stack, socket_path: Path, authkey: bytes, *, stamp: bool = True) -> None:
    """The stub engine at ``socket_path``; without ``stamp``, its first delta carries no clock stamp (for a gateway
    whose requests are never streamed: ``bench.stub_engine --no-stamp``)."""
    env = {**os.environ, AUTHKEY_ENV: authkey.hex(), "PYTHONUNBUFFERED": "1"}
    stack.spawn([sys.executable, "-m", "bench.stub_engine", "--socket", str(socket_path), "--model", MODEL,
                 *([] if stamp else ["--no-stamp"])], env, "stub_engine")


def start_floor(stack: Stack, cert: Path, key: Path, *, loop: str = "auto", http: str = "auto",
                http_port: int | None = None, name: str = "floor", server: str = "uvicorn") -> int:
    port = free_port()
    if server == "granian":
        command = granian_command("bench.overhead_floor:build_app", port, cert, key)
    else:
        command = [sys.executable, "-m", "bench.overhead_floor", "--port", str(port), "--certfile", str(cert),
                   "--keyfile", str(key), "--loop", loop, "--http", http]
        if http_port is not None:
            command += ["--http-port", str(http_port)]
    stack.spawn(command, dict(os.environ), name)
    return port


def granian_command(factory: str, port: int, cert: Path, key: Path) -> list[str]:
    """granian serving the ASGI app ``factory`` builds over TLS, one worker on uvloop: the same shape as the
    uvicorn targets. Its worker is a child process of the one started (``worker_pid``)."""
    return [sys.executable, "-m", "granian", "--interface", "asgi", "--factory", factory, "--host", "127.0.0.1",
            "--port", str(port), "--ssl-certificate", str(cert), "--ssl-keyfile", str(key), "--loop", "uvloop",
            "--workers", "1", "--no-ws", "--log-level", "warning"]


def ensure_granian() -> str:
    """granian's version, installed into this virtualenv from its hash lock first if it is missing: a bench-only
    dependency, not one of ``warden serve``'s."""
    try:
        return importlib.metadata.version("granian")
    except importlib.metadata.PackageNotFoundError:
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--require-hashes", "-r",
                        str(GRANIAN_LOCK)], check=True)
        return importlib.metadata.version("granian")


def worker_pid(pid: int) -> int:
    """The process that runs the app: ``pid`` itself (uvicorn, one worker), or its only child (granian's worker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return int(children[0]) if len(children) == 1 else pid


def prepare_warden(stack: Stack, name: str, *, guardrails: bool, database_url: str | None,
                   redis_url: str | None, cert: Path, key: Path,
                   warden_env: dict[str, str] | None = None) -> tuple[dict[str, str], str, bytes]:
    """A Warden data directory with its schema, a tenant under the bench policy and a key: the server's
    environment, the key, and the engine authkey the stub engine must accept. The caller's own ``WARDEN_*``
    variables are dropped (a run measures the defaults), except the ones named in ``warden_env`` (``--warden-env``),
    which are set last."""
    data_dir = stack.workdir / name
    data_dir.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_")}
    env.update({"WARDEN_DATA_DIR": str(data_dir), "WARDEN_GUARDRAILS": str(guardrails).lower(),
                "WARDEN_DATABASE_URL": database_url or f"sqlite:///{data_dir / 'warden.db'}",
                "WARDEN_AUDIT_MAINTENANCE_INTERVAL_S": "0", "WARDEN_TLS_CERT": str(cert),
                "WARDEN_TLS_KEY": str(key), "WARDEN_METRICS": "true", "PYTHONUNBUFFERED": "1"})
    if redis_url:
        env["WARDEN_REDIS_URL"] = redis_url
    env.update(warden_env or {})
    api_key = provision_tenant(env, data_dir, name)
    from gateway.core.secrets import load_server_secrets
    from gateway.core.settings import Settings

    authkey = load_server_secrets(Settings(data_dir=data_dir)).engine_authkey
    return env, api_key, authkey


def start_warden(stack: Stack, name: str, env: dict[str, str], socket_path: Path, cert: Path, key: Path, *,
                 loop: str = "auto", http: str = "auto", profile: Path | None = None, tail_probe: Path | None = None,
                 source: Path | None = None, server: str = "uvicorn", workers: int = 1) -> int:
    """``warden serve``'s app under uvicorn with ``loop`` and ``http`` chosen (``warden serve`` itself runs
    ``uvicorn.run`` with both "auto": uvloop and httptools where installed), its engine the stub at
    ``socket_path``. With ``profile``, profiled (``profiled_app_from_env``). With ``source``, the gateway's code is
    imported from that checkout instead of this one (a baseline commit, measured side by side)."""
    port = free_port()
    server_env = {**env, "WARDEN_ENGINE_SOCKETS": json.dumps([str(socket_path)])}
    factory = "gateway.app:app_from_env"
    if profile is not None:
        server_env[PROFILE_ENV] = str(profile)
        factory = "bench.overhead_stub:profiled_app_from_env"
    elif tail_probe is not None:
        server_env[TAIL_PROBE_ENV] = str(tail_probe)
        factory = "bench.overhead_tail:tail_probed_app_from_env"
    app_dir: list[str] = []
    if source is not None:
        server_env["PYTHONPATH"] = str(source)
        app_dir = ["--app-dir", str(source)]
    if server == "granian":
        stack.spawn(granian_command(factory, port, cert, key), server_env, name)
        return port
    stack.spawn([sys.executable, "-m", "uvicorn", factory, "--factory", *app_dir, "--host",
                 "127.0.0.1", "--port", str(port), "--ssl-certfile", str(cert), "--ssl-keyfile", str(key),
                 "--log-level",
                 "warning", "--loop", loop, "--http", http, *(["--workers", str(workers)] if workers > 1 else [])],
                server_env, name)
    return port


def profiled_app_from_env() -> Any:
    """``gateway.app.app_from_env`` whose event loop's thread (what serves requests) is profiled with cProfile, in
    that thread's CPU time, between a SIGUSR1 and a SIGUSR2, which writes the stats to ``$WARDEN_BENCH_PROFILE``: the
    bench sends them around a measured phase, so start-up and warm-up stay out of the profile."""
    import cProfile

    from gateway.app import app_from_env

    profiler = cProfile.Profile(time.thread_time)  # CPU time of the loop thread: no preemption or GIL waits

    def dump() -> None:
        profiler.disable()
        profiler.dump_stats(os.environ[PROFILE_ENV])

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, profiler.enable)  # handlers run in the loop's thread: a profiler's
    loop.add_signal_handler(signal.SIGUSR2, dump)  # thread
    return app_from_env()


async def wait_ready(server: Server, tls: ssl.SSLContext, stack: Stack) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    last: object = None
    while time.monotonic() < deadline:
        dead = [p for p in stack.processes if p.poll() is not None]
        if dead:
            raise RuntimeError(f"a benchmark process exited ({str(dead[0].args)[:200]}); logs in {stack.workdir}")
        target = server.target(tls)
        try:
            reply = await target.send(0)
            if reply.status == 200:
                return
            last = f"{reply.status} {reply.body[:200]!r}"
        except OSError as exc:
            last = exc
        finally:
            target.close()
        await asyncio.sleep(0.5)
    raise RuntimeError(f"{server.name} not ready after {READY_TIMEOUT_S:.0f} s: {last}")


async def warm_up(servers: Sequence[Server], tls: ssl.SSLContext, rates: dict[str, float], seconds: float, *,
                  phases: Phases, bodies: dict[str, list[bytes]] | None = None) -> None:
    """Each of ``servers`` in turn at the rate it is measured at (``rates``, by name) for ``seconds``, discarded, before
    any of them is measured. A fresh server's first seconds of load are slower than its later ones (its heap grows,
    with a page fault or two per request; the audit drain's fork server and process start on the first request; the
    database's caches fill), and without this the arm measured first carries them. ``bodies`` (by name) replaces a
    server's own: the guarded arm's, whose scans are cached by text, must not warm the cache for its measured
    prompts."""
    if seconds <= 0:
        return
    for server in servers:
        own = (bodies or {}).get(server.name)
        target = (server if own is None else Server(server.name, server.port, server.api_key, own)).target(tls)
        at = time.monotonic()
        try:
            result = await run_open_loop(target, rates[server.name], seconds)
        finally:
            target.close()
        summary = result.summary()
        phases.note(server.name, "warm-up", rates[server.name], seconds, at, summary)
        print(f"  {server.name:<16} warmed: {seconds:.0f} s at {rates[server.name]:.0f}/s, p99 "
              f"{_f(summary['service_ms']['p99'])} ms, errors {summary['errors']}", file=sys.stderr)


async def measure(server: Server, tls: ssl.SSLContext, rate: float, duration_s: float, warmup_s: float,
                  bodies: list[bytes] | None = None, *, phases: Phases) -> dict[str, Any]:
    """``server`` at ``rate`` for ``duration_s`` after ``warmup_s`` at it (the client's connections opened, the rate
    settled), with ``bodies`` instead of its own if given. The warm-up's bodies come first and the measured phase's
    after them, so no body is sent twice where there are enough."""
    target = server.target(tls)
    if bodies is not None:
        target = Server(server.name, server.port, server.api_key, bodies).target(tls)
    warmup_count = round(rate * warmup_s) if warmup_s > 0 else 0
    try:
        if warmup_count:
            await run_open_loop(target, rate, warmup_s)
        before = load_average()
        if (server.profiled or server.tail_probe) and server.pid is not None:
            os.kill(server.pid, signal.SIGUSR1)  # the profile, or the probe's timelines, start here
        cpu_before, loop_before = server_cpu_s(server)
        database_before = database_cpu_s()
        at = time.monotonic()
        result: LoadResult = await run_open_loop(target, rate, duration_s, first_body=warmup_count)
        cpu_after, loop_after = server_cpu_s(server)
        database_used = database_cpu_s() - database_before
        cpu_used, loop_used = cpu_after - cpu_before, loop_after - loop_before
        if server.profiled and server.pid is not None:
            os.kill(server.pid, signal.SIGUSR2)
        timelines = collect_timelines(server.pid, server.tail_probe) \
            if server.tail_probe is not None and server.pid is not None else None
    finally:
        target.close()
    summary = result.summary()
    phases.note(server.name, "measured", rate, duration_s, at, summary)
    if timelines is not None:
        summary["tail"] = tail_breakdown(result.timeline, timelines)
        _print_tail(summary["tail"])
    summary["load_average"] = {"before": before, "after": load_average()}
    # CPU time the server process spent per request it answered (all its threads): what contention for the cores
    # does not change, unlike latency.
    summary["server_cpu_s"] = cpu_used if server.pid else None
    answered = summary["answered"]
    summary["server_cpu_ms_per_request"] = cpu_used * 1e3 / answered if server.pid and answered else None
    # Of which the event loop's thread; the rest is the audit writer's and worker threads' (sharing its GIL).
    summary["loop_cpu_ms_per_request"] = loop_used * 1e3 / answered if server.pid and answered else None
    # The local Postgres server's, beside it (the audit records a request leaves, its key and policy reads).
    summary["database_cpu_ms_per_request"] = database_used * 1e3 / answered if answered else None
    print(f"  {server.name:<16} {rate:>5.0f}/s: p50 {summary['service_ms']['p50']:.2f} ms, "
          f"p99 {summary['service_ms']['p99']:.2f} ms, own p50 {_f(summary['reported_overhead_ms']['p50'])}, "
          f"cpu/req {_f(summary['server_cpu_ms_per_request'])} ms (loop {_f(summary['loop_cpu_ms_per_request'])}, "
          f"database {_f(summary['database_cpu_ms_per_request'])}), errors {summary['errors']}, load {before}",
          file=sys.stderr)
    return summary


def server_cpu_s(server: Server) -> tuple[float, float]:
    """The server's CPU seconds so far, total and its event loops' threads (summed over workers where several)."""
    if server.workers > 1:
        return workers_cpu_s(server.pid)
    return tree_cpu_s(server.pid), loop_thread_cpu_s(server.pid)


def _print_tail(tail: dict[str, Any]) -> None:
    if not tail:
        return
    print(f"    tail: p90 {tail['thresholds_ms']['p90']:.2f} ms, p99 {tail['thresholds_ms']['p99']:.2f} ms; share "
          "overlapping (above p99 / above p90 / below p50):", file=sys.stderr)
    for kind in ("gc", "drain", "record", "loop_lag"):
        row = tail[kind]
        shares = " / ".join("-" if v is None else f"{v:.0%}" for v in row["overlapped_share"].values())
        cpu = f", CPU p50 {_f(row['cpu_ms']['p50'])} ms" if "cpu_ms" in row else ""
        print(f"      {kind:<9} {shares:<17} ({row['count']} events, wall p50 {_f(row['wall_ms']['p50'])} ms, "
              f"max {_f(row['wall_ms']['max'])}{cpu})", file=sys.stderr)
    slow = tail["record"].get("slow_syncs")
    if slow and slow["count"]:
        print(f"      record batches of {slow['threshold_ms']:.0f} ms or more: {slow['count']}, "
              f"{slow['overlapping_drain_share']:.0%} of them overlapping a drain batch (drains took "
              f"{slow['drain_time_share']:.0%} of the time)", file=sys.stderr)
    served = tail.get("app_requests")
    if served:
        print(f"    in the app: p50 {served['thresholds_ms']['p50']:.2f} ms, p99 {served['thresholds_ms']['p99']:.2f} "
              "ms; medians (ms) of the requests at or above its p99 / p90, at or below its p50:", file=sys.stderr)
        for key in ("app_ms", "audit_wait", "limit_wait", "rest_ms"):
            values = " / ".join(_f(served[group][key]) for group in ("above_p99", "above_p90", "below_p50"))
            print(f"      {key:<11} {values}", file=sys.stderr)
    stalls = tail.get("stall_stacks")
    if stalls and stalls["count"]:
        print(f"    loop stalls sampled: {stalls['count']}; most frequent stacks (innermost frame first):",
              file=sys.stderr)
        for stack, count in stalls["top"][:STALL_STACKS_PRINTED]:
            print(f"      {count:>5}  {stack[:STALL_STACK_CHARS]}", file=sys.stderr)


def versus_floor(results: dict[str, dict[str, Any]], floor: str = "floor") -> None:
    """Adds each target's excess over the floor's latency percentiles, and the ratio to them."""
    base = results[floor]["service_ms"]
    for row in results.values():
        own = row["service_ms"]
        row["over_floor_ms"] = {k: (own[k] - base[k]) if own[k] is not None and base[k] is not None else None
                                for k in ("p50", "p90", "p99")}
        row["ratio_to_floor"] = {k: (own[k] / base[k]) if own[k] and base[k] else None for k in ("p50", "p99")}


def unpack_commit(revision: str, into: Path) -> str:
    """``revision``'s tree of this repository unpacked into ``into`` (``git archive``); its full commit id.
    ``revision`` is anything git resolves to a commit; ``:/TEXT`` (the newest commit whose message matches TEXT) names
    one in a command line without its hash, which results pages must not show (``docs/gen_benchmarks.py``)."""
    repo = Path(__file__).resolve().parent.parent
    spec = revision if revision.startswith(":/") else f"{revision}^{{commit}}"  # ":/" takes the rest as its pattern
    commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "--verify", spec], check=True,
                            capture_output=True, text=True).stdout.strip()
    into.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(repo), "archive", commit], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError(f"git archive {commit} failed")
    return commit


async def run(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    if args.baseline_commit is not None:
        args.baseline_label = unpack_commit(args.baseline_commit, stack.workdir / "baseline")
        args.baseline_tree = stack.workdir / "baseline"
    cert, key = ensure_certificate(stack.workdir / "tls", None, None)
    tls = ssl.create_default_context(cafile=str(cert))
    database_url, redis_url = args.database_url or None, args.redis_url or None
    short = [chat_body(m) for m in ticket_prompts(256, seed=args.seed)]
    # Distinct 2 KB prompts, one per guarded request: every one is scanned in full.
    long = [chat_body(m) for m in long_prompts(int(args.guarded_rate * (args.duration + args.warmup_s)) + 1,
                                               seed=args.seed)]

    floor_http = free_port()
    servers = {"floor": Server("floor", start_floor(stack, cert, key, http_port=floor_http), "", short,
                               pid=stack.processes[-1].pid)}
    wardens: dict[str, tuple[dict[str, str], Path]] = {}
    for name, guardrails in (("warden_core", False), ("warden_guarded", True))[:1 if args.only_core else 2]:
        env, api_key, authkey = prepare_warden(stack, name, guardrails=guardrails, database_url=database_url,
                                               redis_url=redis_url, cert=cert, key=key,
                                               warden_env=dict(args.warden_env))
        socket_path = stack.workdir / f"{name}.sock"
        start_stub_engine(stack, socket_path, authkey, stamp=not guardrails)  # the guarded arm is never streamed
        for _ in range(100):  # the stub listens in well under a second
            if socket_path.exists():
                break
            await asyncio.sleep(0.05)
        wardens[name] = (env, socket_path)
        profile = args.profile if name == "warden_core" else None
        tail_probe = args.tail_probe if name == "warden_core" else None
        servers[name] = Server(name, start_warden(stack, name, env, socket_path, cert, key, profile=profile,
                                                  tail_probe=tail_probe),
                               api_key, long if guardrails else short, pid=stack.processes[-1].pid,
                               profiled=profile is not None, tail_probe=tail_probe)
    if not args.only_core:
        # warden_core with its audit spool in memory (tmpfs): the same path less the disk's fsync, which is a
        # property of the machine's disk, not of the gateway (durability is then only the database's).
        env, socket_path = wardens["warden_core"]
        spool = Path(tempfile.mkdtemp(prefix="warden-bench-spool-", dir="/dev/shm"))
        stack.cleanup.append(spool)
        servers["warden_core_tmpfs_spool"] = Server(
            "warden_core_tmpfs_spool", start_warden(stack, "warden_core_tmpfs_spool",
                                                    {**env, "WARDEN_AUDIT_SPOOL_DIR": str(spool)}, socket_path,
                                                    cert, key),
            servers["warden_core"].api_key, short, pid=stack.processes[-1].pid)
    if args.baseline_tree is not None:  # the same gateway set-up, served from another checkout
        env, socket_path = wardens["warden_core"]
        servers["warden_core_baseline"] = Server(
            "warden_core_baseline", start_warden(stack, "warden_core_baseline", env, socket_path, cert, key,
                                                 source=args.baseline_tree),
            servers["warden_core"].api_key, short, pid=stack.processes[-1].pid)
    if args.core_workers > 1:  # the same gateway set-up under several uvicorn workers
        env, socket_path = wardens["warden_core"]
        servers["warden_core_workers"] = Server(
            "warden_core_workers", start_warden(stack, "warden_core_workers", env, socket_path, cert, key,
                                                workers=args.core_workers),
            servers["warden_core"].api_key, short, pid=stack.processes[-1].pid, workers=args.core_workers)
    if not args.no_litellm and not args.only_core:
        executable = litellm_proxy.ensure_installed()
        master_key = f"sk-{secrets.token_hex(16)}"
        config = litellm_proxy.write_config(stack.workdir / "litellm.yaml", model=MODEL,
                                            upstream_base=f"http://127.0.0.1:{floor_http}/v1",
                                            master_key=master_key, presidio_base=None)
        port = free_port()
        stack.processes.append(litellm_proxy.start(executable, config, port=port, cert=cert, key=key,
                                                   log=stack.workdir / "litellm.log"))
        servers["litellm"] = Server("litellm", port, master_key, short, pid=stack.processes[-1].pid)
    for server in servers.values():
        await wait_ready(server, tls, stack)
    print(f"ready: {', '.join(servers)} (logs in {stack.workdir})", file=sys.stderr)

    phases = Phases()
    rates = {name: args.guarded_rate if name == "warden_guarded" else args.rate for name in servers}
    # The guarded arm warms on prompts of its own (another seed): its scan cache must not answer measured ones.
    warm_bodies = {"warden_guarded": [chat_body(m) for m in long_prompts(
        int(args.guarded_rate * args.arm_warmup_s) + 1, seed=args.seed + 4)]} if "warden_guarded" in servers else {}
    await warm_up(list(servers.values()), tls, rates, args.arm_warmup_s, phases=phases, bodies=warm_bodies)
    load: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        load[name] = await measure(server, tls, rates[name], args.duration, args.warmup_s, phases=phases)
    versus_floor(load)
    alternated = await alternate_with_baseline(servers, tls, args, phases) if args.ab_rounds and \
        "warden_core_baseline" in servers else None
    compared: dict[str, Any] | None = None
    if args.compare_servers:
        env, socket_path = wardens["warden_core"]
        compared = await compare_servers(args, stack, tls, cert, key, env, socket_path,
                                         servers["warden_core"].api_key, short, phases)
    extra = {**({"servers": compared} if compared else {}), **({"ab_rounds": alternated} if alternated else {})}
    order = {"arm_order": list(servers), "arm_warmup_s": args.arm_warmup_s, "phases": phases.entries}
    if args.only_core:
        return {"load": load, **extra, **order}
    # The same targets at a rate every one of them keeps up with: latency without queueing.
    # The guarded gateway caches scans by text: each of its phases sends prompts it has not seen (other seeds), so
    # every guarded request in every phase is scanned in full rather than answered from the cache.
    light_count = int(args.light_rate * (args.light_duration + 2.0)) + 1
    light: dict[str, dict[str, Any]] = {}
    for name, server in servers.items():
        fresh = [chat_body(m) for m in long_prompts(light_count, seed=args.seed + 2)] \
            if name == "warden_guarded" else None
        light[name] = await measure(server, tls, args.light_rate, args.light_duration, 2.0, bodies=fresh,
                                    phases=phases)
    versus_floor(light)

    # Guarded with short prompts too (a scan's cost grows with the text), at the light rate.
    guarded_short = await measure(servers["warden_guarded"], tls, args.light_rate, args.light_duration, 2.0,
                                  bodies=[chat_body(m) for m in ticket_prompts(light_count, seed=args.seed + 3)],
                                  phases=phases)

    streams: dict[str, dict[str, Any]] = {}
    stream_bodies = [chat_body(m, stream=True) for m in ticket_prompts(64, seed=args.seed + 1)]
    for name in ("floor", "warden_core", "warden_core_baseline"):  # the baseline when served: before and after
        if name not in servers:
            continue
        streams[name] = await measure(servers[name], tls, args.stream_rate, args.stream_duration, 1.0,
                                      bodies=stream_bodies, phases=phases)

    server_configs: list[dict[str, Any]] = []
    if args.server_configs:
        env, socket_path = wardens["warden_core"]
        for loop, http in SERVER_CONFIGS:
            floor = Server("floor", start_floor(stack, cert, key, loop=loop, http=http, name=f"floor-{loop}-{http}"),
                           "", short, pid=stack.processes[-1].pid)
            core = Server("warden_core", start_warden(stack, f"core-{loop}-{http}", env, socket_path, cert, key,
                                                      loop=loop, http=http), servers["warden_core"].api_key, short,
                          pid=stack.processes[-1].pid)
            for server in (floor, core):
                await wait_ready(server, tls, stack)
            # At the light rate: a server choice is only told apart where the gateway keeps up.
            await warm_up((floor, core), tls, {"floor": args.light_rate, "warden_core": args.light_rate},
                          args.arm_warmup_s, phases=phases)
            rows = {"floor": await measure(floor, tls, args.light_rate, args.config_duration, args.warmup_s,
                                           phases=phases),
                    "warden_core": await measure(core, tls, args.light_rate, args.config_duration, args.warmup_s,
                                                 phases=phases)}
            versus_floor(rows)
            server_configs.append({"loop": loop, "http": http, **rows})
            stack.stop_last(2)

    return {"config": {"rate": args.rate, "guarded_rate": args.guarded_rate, "duration_s": args.duration,
                       "warmup_s": args.warmup_s, "light_rate": args.light_rate,
                       "light_duration_s": args.light_duration, "stream_rate": args.stream_rate,
                       "stream_duration_s": args.stream_duration, "guarded_prompt_bytes": 2048,
                       "baseline": args.baseline_label if args.baseline_tree is not None else None,
                       "warden_env": dict(args.warden_env),
                       "database": "postgres" if database_url and database_url.startswith("postgresql") else "sqlite",
                       "rate_limit_store": "redis" if redis_url else "in-process",
                       "litellm": None if args.no_litellm else "1.108.7",
                       "server": server_note(compared),
                       "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                   "load_average_at_end": load_average()}},
            "features": {name: FEATURES[name] for name in servers},
            "load": load, "light_load": light, "guarded_short_prompts": guarded_short, "streams": streams,
            "server_configs": server_configs, **extra,
            "targets": targets_met(load, streams), **order}


async def alternate_with_baseline(servers: dict[str, Server], tls: ssl.SSLContext, args: argparse.Namespace,
                                  phases: Phases) -> dict[str, Any]:
    """warden_core and warden_core_baseline in ``--ab-rounds`` alternating rounds at ``--rate`` (which goes first
    swaps every round), so a drift in the machine's load falls on both: each one's CPU per request per round, the
    medians, and this checkout's median over the baseline's. One measurement of each, minutes apart on shared cores,
    differs by more than a change of a tenth of a millisecond."""
    names = ("warden_core", "warden_core_baseline")
    rounds: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for index in range(args.ab_rounds):
        for name in names if index % 2 == 0 else names[::-1]:
            rounds[name].append(await measure(servers[name], tls, args.rate, args.ab_duration, 2.0, phases=phases))
    result: dict[str, Any] = {"rounds": args.ab_rounds, "rate": args.rate, "duration_s": args.ab_duration}
    for name, rows in rounds.items():
        cpu = [row["server_cpu_ms_per_request"] for row in rows]
        loop = [row["loop_cpu_ms_per_request"] for row in rows]
        result[name] = {"server_cpu_ms_per_request": cpu, "loop_cpu_ms_per_request": loop,
                        "server_cpu_ms_per_request_median": statistics.median(cpu),
                        "loop_cpu_ms_per_request_median": statistics.median(loop),
                        "service_ms_p50": [row["service_ms"]["p50"] for row in rows],
                        "service_ms_p99": [row["service_ms"]["p99"] for row in rows],
                        "own_ms_p50": [row["reported_overhead_ms"]["p50"] for row in rows],
                        "own_ms_p99": [row["reported_overhead_ms"]["p99"] for row in rows],
                        "errors": sum(row["errors"] for row in rows),
                        "load_average_before": [row["load_average"]["before"][0] for row in rows]}
    core, base = result["warden_core"], result["warden_core_baseline"]
    result["cpu_ratio_to_baseline"] = core["server_cpu_ms_per_request_median"] / \
        base["server_cpu_ms_per_request_median"]
    result["loop_cpu_ratio_to_baseline"] = core["loop_cpu_ms_per_request_median"] / \
        base["loop_cpu_ms_per_request_median"]
    return result


async def compare_servers(args: argparse.Namespace, stack: Stack, tls: ssl.SSLContext, cert: Path, key: Path,
                          env: dict[str, str], socket_path: Path, api_key: str, bodies: list[bytes],
                          phases: Phases) -> dict[str, Any]:
    """The floor and warden_core under each of ``SERVERS``, at ``--server-rate`` (one both keep up with, so CPU per
    request and latency compare without queueing), each server's pair measured back to back: what choosing the
    server is decided by. Per server: both rows, and warden_core's excess over that server's own floor."""
    version = ensure_granian()
    started: dict[str, tuple[Server, Server]] = {}
    for kind in SERVERS:
        floor = Server(f"floor_{kind}", start_floor(stack, cert, key, name=f"floor-{kind}", server=kind), "", bodies,
                       pid=stack.processes[-1].pid)
        core = Server(f"warden_core_{kind}", start_warden(stack, f"core-{kind}", env, socket_path, cert, key,
                                                          server=kind), api_key, bodies, pid=stack.processes[-1].pid)
        started[kind] = (floor, core)
    rows: dict[str, dict[str, Any]] = {}
    for pair in started.values():
        for server in pair:
            await wait_ready(server, tls, stack)
            server.pid = worker_pid(server.pid) if server.pid is not None else None
    fresh = [server for pair in started.values() for server in pair]
    await warm_up(fresh, tls, {server.name: args.server_rate for server in fresh}, args.arm_warmup_s, phases=phases)
    for kind, pair in started.items():
        rows[kind] = {"floor": await measure(pair[0], tls, args.server_rate, args.config_duration, args.warmup_s,
                                             phases=phases),
                      "warden_core": await measure(pair[1], tls, args.server_rate, args.config_duration,
                                                   args.warmup_s, phases=phases)}
        versus_floor(rows[kind])
    stack.stop_last(2 * len(SERVERS))
    cpu = {kind: row["warden_core"]["server_cpu_ms_per_request"] for kind, row in rows.items()}
    return {"rate": args.server_rate, "duration_s": args.config_duration,
            "servers": {"uvicorn": "uvicorn, uvloop + httptools, one worker (warden serve's)",
                        "granian": f"granian {version}, ASGI interface, uvloop, one worker (bench-only)"},
            "warden_core_cpu_ms_per_request": cpu,
            "lower_cpu": min(cpu, key=lambda kind: cpu[kind] if cpu[kind] is not None else float("inf")),
            **rows}


def server_note(compared: dict[str, Any] | None) -> str:
    base = "uvicorn, uvloop + httptools (warden serve's default), one worker"
    if compared is None:
        return f"{base}; granian not compared in this run (--compare-servers)"
    return f"{base}; granian compared in 'servers' (warden_core's CPU per request under each, same run)"


def targets_met(load: dict[str, dict[str, Any]], streams: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Issue #34's targets against this run: Warden's own overhead header (what the gateway spent on the request,
    the engine's time excluded) and the excess over the floor's latency."""
    core, guarded = load["warden_core"], load["warden_guarded"]
    stream_core, stream_floor = streams["warden_core"]["stamp_lag_ms"], streams["floor"]["stamp_lag_ms"]
    return {
        "core_reported_overhead_p50_ms": core["reported_overhead_ms"]["p50"],
        "core_reported_overhead_p99_ms": core["reported_overhead_ms"]["p99"],
        "core_over_floor_p50_ms": core["over_floor_ms"]["p50"],
        "core_over_floor_p99_ms": core["over_floor_ms"]["p99"],
        "core_errors": core["errors"],
        "guarded_reported_overhead_p50_ms": guarded["reported_overhead_ms"]["p50"],
        "guarded_over_floor_p50_ms": guarded["over_floor_ms"]["p50"],
        "stream_first_token_to_first_byte_p50_ms": stream_core["p50"],
        "stream_first_token_to_first_byte_floor_p50_ms": stream_floor["p50"],
        "met": {"core_p50_le_1ms": (core["reported_overhead_ms"]["p50"] or 1e9) <= 1.0,
                "core_p99_le_5ms": (core["reported_overhead_ms"]["p99"] or 1e9) <= 5.0,
                "core_zero_errors": core["errors"] == 0,
                "guarded_p50_le_2ms": (guarded["reported_overhead_ms"]["p50"] or 1e9) <= 2.0,
                "stream_p50_le_1ms": (stream_core["p50"] or 1e9) <= 1.0},
    }


def print_table(result: dict[str, Any]) -> None:
    for phase in ("load", "light_load"):
        if phase not in result:
            continue
        print(f"\n{phase}: open loop (ms; service time = write to last byte; own = x-warden-overhead-ms; cpu = server "
              "CPU ms per request, loop = of which its event loop's thread)")
        print(f"{'target':<24}{'rate':>6}{'p50':>9}{'p99':>9}{'+floor p50':>11}{'x floor':>8}{'own p50':>8}"
              f"{'own p99':>8}{'cpu':>7}{'loop':>7}{'errors':>7}")
        for name, row in result[phase].items():
            own = row["reported_overhead_ms"]
            print(f"{name:<24}{row['target_rate']:>6.0f}{_f(row['service_ms']['p50']):>9}"
                  f"{_f(row['service_ms']['p99']):>9}{_f(row['over_floor_ms']['p50']):>11}"
                  f"{_f(row['ratio_to_floor']['p50']):>8}{_f(own['p50']):>8}{_f(own['p99']):>8}"
                  f"{_f(row['server_cpu_ms_per_request']):>7}{_f(row.get('loop_cpu_ms_per_request')):>7}"
                  f"{row['errors']:>7}")
    if "ab_rounds" in result:
        ab = result["ab_rounds"]
        print(f"alternating rounds ({ab['rounds']} x {ab['duration_s']:.0f} s at {ab['rate']:.0f}/s), CPU ms/request "
              f"median: this checkout {ab['warden_core']['server_cpu_ms_per_request_median']:.2f} (loop "
              f"{ab['warden_core']['loop_cpu_ms_per_request_median']:.2f}), baseline "
              f"{ab['warden_core_baseline']['server_cpu_ms_per_request_median']:.2f} (loop "
              f"{ab['warden_core_baseline']['loop_cpu_ms_per_request_median']:.2f}): "
              f"x{ab['cpu_ratio_to_baseline']:.3f}")
        for name in ("warden_core", "warden_core_baseline"):
            rounds = zip(ab[name]["service_ms_p50"], ab[name]["service_ms_p99"], ab[name]["own_ms_p99"], strict=True)
            print(f"  {name:<21} per round, p50 / p99 / own p99 ms: "
                  + ", ".join(f"{_f(p50)} / {_f(p99)} / {_f(own)}" for p50, p99, own in rounds))
    if "streams" not in result:  # --only-core
        return
    for name, row in result["streams"].items():
        lag = row["stamp_lag_ms"]
        print(f"stream {name}: engine first delta -> client first byte p50 {_f(lag['p50'])} ms, p99 {_f(lag['p99'])}")
    for row in result["server_configs"]:
        print(f"{row['loop']:>8} + {row['http']:<10} floor p50 {_f(row['floor']['service_ms']['p50'])} ms, "
              f"warden_core p50 {_f(row['warden_core']['service_ms']['p50'])} ms "
              f"(own {_f(row['warden_core']['reported_overhead_ms']['p50'])}, "
              f"cpu {_f(row['warden_core']['server_cpu_ms_per_request'])})")
    print(f"targets: {result['targets']['met']}")


def _f(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def add_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--rate", type=float, default=500.0, help="requests/s per target")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds measured per target")
    parser.add_argument("--warmup-s", type=float, default=5.0, help="seconds at the rate before each measurement")
    parser.add_argument("--arm-warmup-s", type=float, default=15.0,
                        help="seconds each arm (server) is loaded at its measured rate, discarded, after every arm "
                             "has started and before any is measured: a fresh server's first seconds are slower")
    parser.add_argument("--guarded-rate", type=float, default=100.0,
                        help="requests/s for warden_guarded's 2 KB prompts (each scanned in full)")
    parser.add_argument("--light-rate", type=float, default=50.0, help="requests/s of the second, light phase")
    parser.add_argument("--light-duration", type=float, default=20.0)
    parser.add_argument("--stream-rate", type=float, default=50.0)
    parser.add_argument("--stream-duration", type=float, default=10.0)
    parser.add_argument("--server-configs", action="store_true",
                        help="also the floor and warden_core under each uvicorn loop x HTTP parser pair (--light-rate)")
    parser.add_argument("--config-duration", type=float, default=20.0)
    parser.add_argument("--compare-servers", action="store_true",
                        help="also the floor and warden_core under uvicorn and under granian (installed from "
                             "bench/requirements-granian.lock if missing), at --server-rate for --config-duration")
    parser.add_argument("--server-rate", type=float, default=200.0)
    parser.add_argument("--ab-rounds", type=int, default=0,
                        help="with a baseline: also warden_core and the baseline in this many alternating rounds "
                             "(CPU per request, medians)")
    parser.add_argument("--ab-duration", type=float, default=15.0, help="seconds measured per --ab-rounds round")
    parser.add_argument("--warden-env", type=warden_setting, action="append", default=[], metavar="WARDEN_K=V",
                        help="a setting every Warden server of the run gets (repeatable): runs that A/B a setting, "
                             "such as WARDEN_AUDIT_DRAIN=thread or WARDEN_SWITCH_INTERVAL_MS=1")
    parser.add_argument("--core-workers", type=int, default=1,
                        help="above 1: also warden_core under uvicorn --workers N (warden serve --workers N's "
                             "set-up), measured like the others, CPU summed over its workers")
    probes = parser.add_mutually_exclusive_group()
    probes.add_argument("--profile", type=Path, help="run warden_core under cProfile, its stats written here")
    probes.add_argument("--tail-probe", type=Path,
                        help="run warden_core under bench.overhead_tail's probe (its timelines written here): each of "
                             "its rows gets 'tail', what its slowest requests overlapped (GC, audit batches, loop "
                             "stalls)")
    parser.add_argument("--only-core", action="store_true", help="the floor and warden_core only (profiling)")
    parser.add_argument("--baseline-commit", default=None,
                        help="also warden_core served from this commit of the repository (unpacked by the bench into "
                             "its work directory): before and after, side by side in one run; the results name it. "
                             "':/TEXT' names the newest commit whose message matches TEXT, without a hash")
    parser.add_argument("--baseline-tree", type=Path,
                        help="the same from a checkout already on disk (then --baseline-label says what it is)")
    parser.add_argument("--baseline-label", default=None, help="what --baseline-tree is (its commit), recorded")


def warden_setting(text: str) -> tuple[str, str]:
    """``WARDEN_K=V`` from the command line, as a (name, value) pair."""
    name, sep, value = text.partition("=")
    if not sep or not name.startswith("WARDEN_") or name != name.strip():
        raise argparse.ArgumentTypeError(f"expected WARDEN_NAME=VALUE, got {text!r}")
    return name, value


def merge_into(path: Path, stub_result: dict[str, Any]) -> None:
    """The stub-engine run is one key (``stub_engine``) of the results file the real-engine run also writes."""
    data = json.loads(path.read_text()) if path.exists() else {}
    data["stub_engine"] = stub_result  # with its own provenance: the two runs' commands differ
    if "provenance" in stub_result:  # the file's own, until a real-engine run writes its
        data.setdefault("provenance", stub_result["provenance"])
    path.write_text(json.dumps(data, indent=2) + "\n")

