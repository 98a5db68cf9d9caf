"""Setting the suite up (the processes, the tenants, the capacity measurement), running the chosen scenarios in
order and tearing everything down; the results file is rewritten after every scenario, so an aborted run still
leaves what it measured."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.chaos.load import measure_capacity
from bench.chaos.processes import PostgresServer, RedisServer
from bench.chaos.proxy import BlackholeProxy
from bench.chaos.report import print_scenario, write_results
from bench.chaos.scenarios import SCENARIOS, SPOOL_FS_BYTES, Suite, Timing
from bench.chaos.warden import WardenServer

RESULTS = Path(__file__).resolve().parents[1] / "results" / "chaos.json"
CAPACITY_CONCURRENCY = 4
MIN_RATE_PER_S = 0.2


def _scenario_names(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown scenario(s) {', '.join(unknown)}; known: {', '.join(SCENARIOS)}")
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="5 s outages and shorter windows (< ~10 min in all)")
    parser.add_argument("--only", type=_scenario_names, default=list(SCENARIOS),
                        help=f"comma-separated scenarios, in this order (default all: {','.join(SCENARIOS)})")
    parser.add_argument("--rate", type=float, default=None,
                        help="the steady load, requests/s (default: half the measured capacity)")
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--stream-tokens", type=int, default=32,
                        help="max_tokens of each of the 20 streams SIGTERM finds in flight")
    parser.add_argument("--timeout", type=float, default=30.0, help="the client's timeout per request, seconds")
    parser.add_argument("--output", type=Path, default=RESULTS)
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs) after the run")
    parser.add_argument("--merge", action="store_true",
                        help="keep the other scenarios' entries of the existing output file (each marked with the "
                             "commit it was measured at), replacing only the scenarios run now")
    return parser


def _mount_spool(spool: Path) -> bool:
    """A size-limited tmpfs of its own for the spool, so a scenario can fill it or make it read-only."""
    spool.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SPOOL_FS_BYTES},mode=0700", "tmpfs", str(spool)],
                            capture_output=True)
    return result.returncode == 0


def _git_commit() -> str | None:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[2])
    return result.stdout.strip() or None


async def run_scenarios(suite: Suite, names: Sequence[str], document: dict[str, Any],
                        save: Callable[[dict[str, Any]], None]) -> None:
    generator = suite.generator("capacity")
    window = 8.0 if suite.timing == Timing.quick() else 15.0
    suite.capacity_per_s = await measure_capacity(generator, CAPACITY_CONCURRENCY, window)
    await generator.close()
    document["capacity_per_s"] = round(suite.capacity_per_s, 2)
    if suite.rate_per_s <= 0:  # no --rate: half the capacity, so the steady load alone never queues
        suite.rate_per_s = max(MIN_RATE_PER_S, suite.capacity_per_s / 2)
    document["rate_per_s"] = round(suite.rate_per_s, 2)
    print(f"capacity: {suite.capacity_per_s:.2f} req/s at {CAPACITY_CONCURRENCY} in flight "
          f"(max_tokens {suite.max_tokens}); steady load {suite.rate_per_s:.2f} req/s", file=sys.stderr)
    for name in names:
        started = time.monotonic()
        load_before = _load_average()
        print(f"\n-- {name} ...", file=sys.stderr)
        try:
            entry = await SCENARIOS[name](suite)
        except Exception as exc:
            entry = {"scenario": name, "error": f"{type(exc).__name__}: {exc}"[:2000], "passed": False}
        entry["wall_s"] = round(time.monotonic() - started, 1)
        # Each scenario's own: a run of one scenario (--only) measures its capacity afresh, and on a shared machine
        # the load the figures were taken under says how far they carry.
        entry["capacity_per_s"] = document["capacity_per_s"]
        entry["rate_per_s"] = document["rate_per_s"]
        entry["load_average_1_5_15"] = {"before": load_before, "after": _load_average()}
        document["scenarios"].append(entry)
        if "skipped" in entry or "error" in entry:
            print(f"\n== {name}: {entry.get('skipped') or 'ERROR ' + entry['error']}")
        else:
            print_scenario(entry)
        _summarise(document)
        save(document)


def _load_average() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


def _cpu_model() -> str | None:
    """The processor's name as the kernel reports it (``model name`` in /proc/cpuinfo), where it does."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return None
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), None)


def _previous_results(output: Path) -> dict[str, Any] | None:
    """The results file as it was before this run (read once: the run rewrites it after every scenario)."""
    try:
        return json.loads(output.read_text())
    except (OSError, ValueError):
        return None


def merged(document: dict[str, Any], previous: dict[str, Any]) -> dict[str, Any]:
    """``document`` with the scenarios of ``previous`` that this run did not measure, in the suite's order, each
    entry marked with the commit it was measured at (``measured_at``)."""
    ran = {entry["scenario"] for entry in document["scenarios"]}
    fresh = [{**entry, "measured_at": entry.get("measured_at", document["commit"])} for entry in document["scenarios"]]
    carried = [{**entry, "measured_at": entry.get("measured_at", previous.get("commit"))}
               for entry in previous.get("scenarios", []) if entry.get("scenario") not in ran]
    order = {name: i for i, name in enumerate(SCENARIOS)}
    result = {**document, "scenarios": sorted(fresh + carried, key=lambda e: order.get(e["scenario"], len(order)))}
    _summarise(result)
    return result


def _summarise(document: dict[str, Any]) -> None:
    failed = {entry["scenario"]: [k for k, ok in entry.get("targets", {}).items() if not ok] or ["error"]
              for entry in document["scenarios"] if not entry.get("passed") and "skipped" not in entry}
    document["failed_targets"] = failed


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    timing = Timing.quick() if args.quick else Timing.full()
    workdir = Path(tempfile.mkdtemp(prefix="warden-chaos-"))
    os.chmod(workdir, 0o755)  # the postgres user must reach its cluster inside
    document: dict[str, Any] = {
        "bench": "chaos", "quick": args.quick, "commit": _git_commit(), "machine": platform.machine(),
        "cpu_model": _cpu_model(), "cpus": os.cpu_count(), "rate_per_s": args.rate, "max_tokens": args.max_tokens,
        "stream_tokens": args.stream_tokens,
        "timing": timing.__dict__, "scenarios": [],
    }
    postgres = PostgresServer(workdir / "postgres")
    redis = RedisServer(workdir / "redis")
    proxy = BlackholeProxy(0)
    spool = workdir / "spool"
    spool_mounted = False
    warden: WardenServer | None = None
    previous = _previous_results(args.output) if args.merge else None

    def save(document: dict[str, Any]) -> None:
        write_results(args.output, document if previous is None else merged(document, previous))
    begun = time.monotonic()
    try:
        postgres.init()
        redis.start()
        proxy = BlackholeProxy(postgres.port)
        proxy.start()
        spool_mounted = _mount_spool(spool)
        warden = WardenServer(workdir, postgres.url_on(proxy.port), postgres.url, redis.url, spool)
        warden.prepare()
        good, bad = warden.create_tenant("chaos-good"), warden.create_tenant("chaos-bad")
        warden.start()
        ready_s = warden.wait_ready(good.api_key)
        document["startup_s"] = round(ready_s, 1)
        print(f"warden ready in {ready_s:.0f} s (work directory {workdir})", file=sys.stderr)
        suite = Suite(workdir, postgres, redis, proxy, warden, good, bad, timing, args.rate or 0.0, args.max_tokens,
                      args.timeout, spool_mounted, stream_tokens=args.stream_tokens)
        asyncio.run(run_scenarios(suite, args.only, document, save))
        document["notes"] = suite.notes
    finally:
        document["wall_s"] = round(time.monotonic() - begun, 1)
        if document["scenarios"]:
            save(document)
        if warden is not None:
            warden.stop()
        proxy.stop()
        if spool_mounted:
            subprocess.run(["umount", "-l", str(spool)], capture_output=True)
        redis.stop()
        postgres.stop()
        if args.keep:
            print(f"work directory kept: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    failed = document.get("failed_targets", {})
    print(f"\n{len(document['scenarios'])} scenario(s) in {document['wall_s']:.0f} s; "
          f"{len(failed)} missed a target: {failed or 'none'}")
    print(f"wrote {args.output}")
    return 1 if failed else 0  # `make chaos-full` runs every scenario, then fails if any missed a target
