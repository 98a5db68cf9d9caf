"""MCP overhead: the latency Warden adds in front of a tool call, against calling the upstream MCP server directly.

One upstream MCP server (the official SDK's ``MCPServer``, one tool that returns its text argument) and Warden
(engine not started: tool calls need none) each run under uvicorn on loopback in their own process; the official SDK
client, in this process, calls the tool with a kept session per target:

  direct           the client calls the upstream itself: the baseline
  warden_core      through Warden with result screening off: key check, tool policy, argument schema, the call on
                   the kept upstream session, the audit record
  warden_guarded   through Warden under the default tool policy: results PII-masked and screened for injection

Each round calls every target once with the same argument (the order rotates every round); added latency =
a target's latency - direct's in the same round. Half the arguments carry an e-mail address, so the guarded
target's masking does work. Beside latency, each target's calls are charged the CPU time (every thread) the Warden
and upstream processes used while they ran (``cpu_ms_per_call``): a measure of the work per call that, unlike
latency, waiting for a core on a busy machine does not inflate. Prints a table and writes JSON
(``bench/results/mcp_overhead.json``) naming the machine and its load.

    python -m bench.mcp_overhead [--rounds 300] [--warmup 20] [--profile warden.prof]

``--profile`` writes cProfile stats of the Warden process's event-loop thread over the measured rounds only.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx2
import uvicorn
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from pydantic import SecretStr

from bench.provenance import write_results
from bench.serve_stats import percentile
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.migrate import upgrade_database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import issue_key
from gateway.mcp.registry import register_server
from gateway.policystore.service import publish_policy
from gateway.tenants.service import create_tenant

RESULTS = Path(__file__).resolve().parent / "results" / "mcp_overhead.json"
TARGETS = ("direct", "warden_core", "warden_guarded")
FEATURES = {
    "direct": "SDK client -> upstream MCP server",
    "warden_core": "key check, tool policy, argument schema, kept upstream session, audit record",
    "warden_guarded": "warden_core + result PII masking and injection screening (default tool policy)",
}
ARGUMENT_SCHEMA = {"type": "object", "properties": {"text": {"type": "string", "maxLength": 2000}},
                   "required": ["text"]}


_TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _cpu_ms(pid: int) -> float:
    """CPU time (user + system, every thread) the process has used so far, in ms. The kernel counts it in clock ticks,
    so one call's share is coarse; summed over many calls it is an unbiased measure that scheduling delay on a busy
    machine does not inflate, unlike latency."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * _TICK_MS


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _spawn(role: str, settings_json: str = "", profile: Path | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """This module in a child process serving ``role`` on a free port, once it accepts connections."""
    port = _free_port()
    argv = [sys.executable, "-m", "bench.mcp_overhead", "--serve", role, "--port", str(port),
            "--settings-json", settings_json]
    if profile is not None:
        argv += ["--profile", str(profile)]
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return child, port
        except OSError:
            if child.poll() is not None or time.monotonic() > deadline:
                child.kill()
                raise RuntimeError(f"the {role} server did not start") from None
            time.sleep(0.1)


def _settings_json(settings: Settings) -> str:
    """The settings for the child, secrets included (a plain dump masks them)."""
    data = settings.model_dump(mode="json")
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, SecretStr):
            data[name] = value.get_secret_value()
    return json.dumps(data)


def _serve_child(role: str, port: int, settings_json: str, profile: Path | None) -> None:
    app = _upstream() if role == "upstream" else create_app(Settings.model_validate_json(settings_json),
                                                              start_engine=False)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    if profile is None:
        server.run()
        return
    # uvicorn re-raises the SIGTERM it caught once it has shut down: this handler turns it into an exit that still
    # writes the stats (the default one would kill the process first).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # The measured rounds only: the parent signals SIGUSR1 once the warm-up is over (start-up would dominate).
    profiler = cProfile.Profile()
    signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
    try:
        server.run()
    except SystemExit:
        pass
    finally:
        profiler.disable()
        profiler.dump_stats(profile)


def _upstream() -> Any:
    mcp = MCPServer("bench")

    @mcp.tool()
    def echo(text: str) -> str:
        """Return the text."""
        return text

    return mcp.streamable_http_app(transport_security=None, host="0.0.0.0")


def _arguments(index: int) -> dict[str, str]:
    if index % 2:
        return {"text": f"Ticket {index}: the customer (jane.doe{index}@example.com) cannot log in since Monday."}
    return {"text": f"Ticket {index}: the export job fails with a timeout after ten minutes on the EU cluster."}


def _tenants(settings: Settings, upstream_url: str) -> dict[str, str]:
    """Two tenants on the same upstream: one with result screening off, one on the default tool policy."""
    db = Database(settings.database_url)
    secrets = load_server_secrets(settings)
    keys: dict[str, str] = {}
    try:
        for target, tools in (("warden_core", {"result_injection": "off", "mask_result_pii": False}),
                              ("warden_guarded", {})):
            with db.transaction() as session:
                tenant = create_tenant(f"bench-mcp-{target}-{os.getpid()}-{time.time_ns()}", session=session)
                keys[target] = issue_key(tenant, pepper=secrets.key_pepper, session=session).api_key
                register_server(tenant.id, "bench", url=upstream_url, headers=None, timeout_s=10.0,
                                allow_private_network=True, created_by="bench", server_secret=secrets.server_secret,
                                session=session)
                publish_policy(tenant.id, {"tools": {**tools, "rules": {"bench__echo": {
                    "arguments_schema": ARGUMENT_SCHEMA}}}}, session=session)
    finally:
        db.dispose()
    return keys


async def _client(stack: AsyncExitStack, url: str, api_key: str | None) -> Client:
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=30.0))
    return await stack.enter_async_context(Client(streamable_http_client(url, http_client=http), cache=None))


async def _measure(urls: dict[str, str], keys: dict[str, str], rounds: int, warmup: int, pids: dict[str, int],
                   on_measuring: Any = None) -> tuple[dict[str, list[float]], dict[str, dict[str, float]]]:
    """Each target's latencies, and the CPU each server process spent on each target's calls (ms, summed)."""
    latencies: dict[str, list[float]] = {target: [] for target in TARGETS}
    cpu = {target: dict.fromkeys(pids, 0.0) for target in TARGETS}
    async with AsyncExitStack() as stack:
        clients = {target: await _client(stack, urls[target], keys.get(target)) for target in TARGETS}
        for index in range(warmup + rounds):
            if index == warmup and on_measuring is not None:
                on_measuring()
            order = TARGETS[index % 3:] + TARGETS[:index % 3]
            arguments = _arguments(index)
            for target in order:
                cpu_before = {process: _cpu_ms(pid) for process, pid in pids.items()}
                started = time.perf_counter()
                result = await clients[target].call_tool("echo" if target == "direct" else "bench__echo", arguments)
                elapsed_ms = (time.perf_counter() - started) * 1000
                if result.is_error:
                    raise RuntimeError(f"{target}: the call failed: {result.content}")
                if index >= warmup:
                    latencies[target].append(elapsed_ms)
                    for process, pid in pids.items():
                        cpu[target][process] += _cpu_ms(pid) - cpu_before[process]
    return latencies, cpu


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered), 3), "p90_ms": round(percentile(ordered, 90) or 0.0, 3),
            "p99_ms": round(percentile(ordered, 99) or 0.0, 3), "mean_ms": round(statistics.fmean(ordered), 3)}


def run(rounds: int, warmup: int, profile: Path | None = None) -> dict[str, Any]:
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="warden-mcp-bench-") as tmp:
        database_url = os.environ.get("WARDEN_DATABASE_URL") or f"sqlite:///{tmp}/bench.db"
        upgrade_database(database_url)
        settings = Settings(database_url=database_url, data_dir=Path(tmp) / "data", redis_url=None,
                            server_secret=SecretStr("bench-mcp-secret"), audit_checkpoint_interval_s=0,
                            audit_maintenance_interval_s=0, metrics=False)
        children: list[subprocess.Popen[bytes]] = []
        try:
            upstream, upstream_port = _spawn("upstream")
            children.append(upstream)
            upstream_url = f"http://127.0.0.1:{upstream_port}/mcp"
            keys = _tenants(settings, upstream_url)
            warden, warden_port = _spawn("warden", _settings_json(settings), profile)
            children.append(warden)
            urls = {"direct": upstream_url, "warden_core": f"http://127.0.0.1:{warden_port}/mcp",
                    "warden_guarded": f"http://127.0.0.1:{warden_port}/mcp"}
            latencies, cpu = asyncio.run(_measure(
                urls, keys, rounds, warmup, {"warden": warden.pid, "upstream": upstream.pid},
                on_measuring=(lambda: warden.send_signal(signal.SIGUSR1)) if profile is not None else None))
        finally:
            for child in children:
                child.terminate()
                child.wait(timeout=30)
    direct = latencies["direct"]
    report: dict[str, Any] = {
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(), "python": platform.python_version(),
                    # Other work on the machine inflates every figure here (each is Python on a shared core).
                    "load_average_1m": {"before": round(load_before[0], 2), "after": round(os.getloadavg()[0], 2)}},
        "database": "postgres" if database_url.startswith("postgres") else "sqlite",
        "rounds": rounds, "warmup": warmup, "features": FEATURES, "targets": {},
    }
    for target in TARGETS:
        entry: dict[str, Any] = {"latency": _summary(latencies[target]),
                                 "cpu_ms_per_call": {process: round(total / rounds, 3)
                                                     for process, total in cpu[target].items()}}
        if target != "direct":
            entry["added"] = _summary([a - b for a, b in zip(latencies[target], direct, strict=True)])
        report["targets"][target] = entry
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--profile", type=Path, help="write cProfile stats of the Warden process to this file")
    parser.add_argument("--serve", choices=("upstream", "warden"), help=argparse.SUPPRESS)  # a child process
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--settings-json", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        _serve_child(args.serve, args.port, args.settings_json, args.profile)
        return
    if args.rounds < 1 or args.warmup < 0:
        parser.error("--rounds must be at least 1 and --warmup at least 0")
    report = run(args.rounds, args.warmup, args.profile)
    print(f"{'target':<16}{'p50 ms':>10}{'p99 ms':>10}{'added p50':>12}{'added p99':>12}"
          f"{'warden cpu':>12}{'upstream cpu':>14}")
    for target, entry in report["targets"].items():
        added = entry.get("added", {})
        cpu = entry["cpu_ms_per_call"]
        print(f"{target:<16}{entry['latency']['p50_ms']:>10.2f}{entry['latency']['p99_ms']:>10.2f}"
              f"{added.get('p50_ms', 0.0):>12.2f}{added.get('p99_ms', 0.0):>12.2f}"
              f"{cpu['warden']:>12.2f}{cpu['upstream']:>14.2f}")
    write_results(args.out, report)


if __name__ == "__main__":
    main()
