"""The engine client's own share of a stream's first-byte delay: the stub engine's first delta to the moment the
awaiting ``generate`` has it, for the client of this checkout and of another (``--baseline-tree``), in alternating
rounds (A B A B ...) so both meet the same machine load.

Each round runs in a fresh process importing ``engine.core.client`` from its tree and talks to one ``bench.stub_engine``
over the engine host protocol (a Unix socket), one request at a time. With ``--busy-ms`` the process's event loop
also runs a task that computes that long between yields, as a gateway's loop does serving other requests: a delta
must then wait for the loop (and, with a reader thread, for the GIL the loop holds).

    python -m bench.overhead_client --baseline-tree /tmp/base --baseline-label <commit> --rounds 6 --requests 300

Results: ``bench/results/engine_client_overhead.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.provenance import write_results

ROOT = Path(__file__).resolve().parent.parent


async def _measure(address: str, authkey: bytes, requests: int, busy_ms: float) -> list[float]:
    """Run in the measuring process: the lag (ms) of each request's first delta."""
    from multiprocessing.connection import Client

    from bench.stub_engine import STAMP_PREFIX
    from engine.core.client import AsyncEngineClient
    from engine.request import EngineRequest
    from engine.sampling_params import SamplingParams

    conn = Client(address, family="AF_UNIX", authkey=authkey)
    info = conn.recv()[1]
    client = AsyncEngineClient(inbox=conn, outbox=conn, tokenizer=None, info=info,  # type: ignore[arg-type]
                               is_core_alive=lambda: True, stop_core=lambda _timeout: None)
    stop = asyncio.Event()

    async def busy() -> None:  # the rest of a gateway's work on its loop
        while not stop.is_set():
            until = time.perf_counter() + busy_ms / 1000
            while time.perf_counter() < until:
                pass
            await asyncio.sleep(0)

    busy_task = asyncio.create_task(busy()) if busy_ms > 0 else None
    lags: list[float] = []
    params = SamplingParams(max_tokens=2)
    for i in range(requests):
        async for delta in client.generate(EngineRequest(f"r{i}", [1, 2, 3], params)):
            if delta.text.startswith(STAMP_PREFIX):
                lags.append((time.perf_counter_ns() - int(delta.text[len(STAMP_PREFIX):])) / 1e6)
        await asyncio.sleep(0.002)  # requests apart, as separate users' are
    stop.set()
    if busy_task is not None:
        await busy_task
    await client.shutdown()
    return lags


def _child(argv: list[str]) -> int:
    """The measuring process: its tree's ``engine`` and ``bench.stub_engine``; prints which client it measured."""
    import engine.core.client
    from bench.stub_engine import AUTHKEY_ENV

    address, requests, busy_ms = argv[0], int(argv[1]), float(argv[2])
    authkey = bytes.fromhex(os.environ[AUTHKEY_ENV])
    cpu_started = time.process_time()  # every thread of the process: a reader thread's wake-ups included
    lags = asyncio.run(_measure(address, authkey, requests, busy_ms))
    cpu_ms = (time.process_time() - cpu_started) * 1000
    print(json.dumps({"client": engine.core.client.__file__, "lags": lags, "cpu_ms": cpu_ms}))
    return 0


def _round(tree: Path, address: Path, authkey: bytes, requests: int, busy_ms: float) -> tuple[list[float], float]:
    """One process's first-delta lags (ms) and its CPU time (ms)."""
    from bench.stub_engine import AUTHKEY_ENV

    env = {**os.environ, AUTHKEY_ENV: authkey.hex(), "PYTHONPATH": str(tree)}
    # Run from the tree (its packages first on the path); this file is loaded by its path, not as bench's module,
    # which in an older tree does not exist.
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('overhead_client', sys.argv[1]);"
            " child = importlib.util.module_from_spec(spec); spec.loader.exec_module(child);"
            " sys.exit(child._child(sys.argv[2:]))")
    done = subprocess.run([sys.executable, "-c", code, __file__, str(address), str(requests), str(busy_ms)],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=600, check=True)
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if not Path(answer["client"]).resolve().is_relative_to(tree):
        raise RuntimeError(f"measured {answer['client']}, not the client of {tree}")
    return answer["lags"], answer["cpu_ms"]


def _summary(lags: list[float]) -> dict[str, float]:
    ordered = sorted(lags)
    return {"n": len(ordered), "p50": statistics.median(ordered), "p90": ordered[int(0.9 * (len(ordered) - 1))],
            "p99": ordered[int(0.99 * (len(ordered) - 1))], "mean": statistics.fmean(ordered)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline-tree", type=Path, required=True, help="a checkout whose engine client to compare")
    parser.add_argument("--baseline-label", default=None)
    parser.add_argument("--rounds", type=int, default=6, help="rounds per client, alternating")
    parser.add_argument("--requests", type=int, default=300, help="requests per round")
    parser.add_argument("--busy-ms", type=float, nargs="+", default=[0.0, 1.0],
                        help="CPU the loop's other task spends between yields (each value its own series)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "engine_client_overhead.json")
    args = parser.parse_args(argv)
    from bench.stub_engine import AUTHKEY_ENV

    authkey = secrets.token_bytes(32)
    workdir = Path(tempfile.mkdtemp(prefix="warden-client-bench-"))
    address = workdir / "stub.sock"
    stub = subprocess.Popen([sys.executable, "-m", "bench.stub_engine", "--socket", str(address)], cwd=ROOT,
                            env={**os.environ, AUTHKEY_ENV: authkey.hex()}, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if address.exists():
                break
            time.sleep(0.05)
        trees = {"this_checkout": ROOT, "baseline": args.baseline_tree.resolve()}
        series: dict[str, Any] = {}
        for busy_ms in args.busy_ms:
            lags: dict[str, list[float]] = {name: [] for name in trees}
            cpu: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.rounds):
                for name, tree in trees.items():
                    round_lags, cpu_ms = _round(tree, address, authkey, args.requests, busy_ms)
                    lags[name] += round_lags
                    cpu[name].append(cpu_ms / args.requests)
            series[f"busy_{busy_ms:g}ms"] = {
                name: {"first_delta_lag_ms": _summary(values),
                       # the measuring process's CPU (every thread) per request; the busy task's too: compare at busy 0
                       "process_cpu_ms_per_request_median": statistics.median(cpu[name])}
                for name, values in lags.items()}
            for name in trees:
                row = series[f"busy_{busy_ms:g}ms"][name]
                lag = row["first_delta_lag_ms"]
                print(f"busy {busy_ms:g} ms  {name:<14} first delta lag p50 {lag['p50']:.3f} ms  p90 "
                      f"{lag['p90']:.3f}  p99 {lag['p99']:.3f}  (n={lag['n']})  process CPU/request "
                      f"{row['process_cpu_ms_per_request_median']:.3f} ms")
    finally:
        stub.terminate()
        stub.wait(10)
    result = {"baseline": args.baseline_label, "rounds": args.rounds, "requests_per_round": args.requests,
              "load_average_at_end": list(os.getloadavg()), "cpus": os.cpu_count(), "series": series}
    write_results(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
