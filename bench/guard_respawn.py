"""What replacing an analysis worker costs: a worker still busy past its scan's CPU budget is killed and a new one
takes its place (``gateway.guardrails.processes``); a tenant that sends budget-busting text again and again makes
the gateway pay that cost once a request.

Each round sends one text built to be slow (the phone matcher's digit groups) under a small budget, so its worker
is killed, then times the next scan (a ~2 KB prompt, NER on) on the replacement: the wall time until it answers, and
the CPU the replacement worker spent until then (its start-up and that first scan). Where workers are forked from a
fork server, the fork server's own CPU in that interval (the fork) is counted too, and its start-up (once per
gateway process) is reported apart. Medians over the rounds; the load average before and after.

    python -m bench.guard_respawn [--rounds 5] [--out /tmp/guard_respawn.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import psutil

from bench.guard_budget import digit_groups
from gateway.guardrails.budget import ScanBudget, ScanBudgetExceeded
from gateway.guardrails.processes import AnalysisProcesses, process_cpu_s

PROMPT = "\n".join(
    f"Ticket {1000 + i}: Dana Kowalski (dana@example.org, +1 415 555 {1000 + i}) in Denver was charged twice for "
    "the March invoice; Wiryanto Hadiyanto from Lyon says the same."
    for i in range(14)
)[:2048]
SLOW_TEXT = digit_groups(200_000, seed=7)
BUDGET_S = 0.3


def _fork_server_pid(worker_pid: int) -> int | None:
    """The worker's parent where that is not this process (a fork server), else None."""
    parent = psutil.Process(worker_pid).ppid()
    return None if parent == os.getpid() else parent


def one_round(processes: AnalysisProcesses) -> dict[str, Any]:
    (old_pid,) = processes.worker_pids()
    try:
        processes.analyze_many([SLOW_TEXT], ner_enabled=False, budget=ScanBudget(BUDGET_S))
    except ScanBudgetExceeded:
        pass
    else:
        raise AssertionError("the slow text was not refused")
    (new_pid,) = processes.worker_pids()
    assert new_pid != old_pid, "the worker past its budget was not replaced"
    server = _fork_server_pid(new_pid)
    server_before = process_cpu_s(server) if server is not None else None
    wall = time.perf_counter()
    findings = processes.analyze_many([PROMPT], ner_enabled=True, budget=ScanBudget(2.0))
    report = {"wall_s_until_first_scan": time.perf_counter() - wall,
              "worker_cpu_s": process_cpu_s(new_pid) or 0.0, "findings": len(findings[0])}
    if server is not None and server_before is not None:
        # The fork happened before the interval (the pool starts its worker at once); the server's CPU from its
        # start is what the replacements and the start-up cost it together.
        report["fork_server_cpu_s_total"] = process_cpu_s(server) or 0.0
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("/tmp/guard_respawn.json"))
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    wall = time.perf_counter()
    processes = AnalysisProcesses(1)
    processes.analyze_many([PROMPT], ner_enabled=True)  # the first worker is up, NER loaded
    first_start_wall_s = time.perf_counter() - wall
    (first_pid,) = processes.worker_pids()
    server = _fork_server_pid(first_pid)
    start_up = {"first_worker_wall_s": round(first_start_wall_s, 3),
                "first_worker_cpu_s": round(process_cpu_s(first_pid) or 0.0, 3),
                "fork_server_cpu_s": round(process_cpu_s(server) or 0.0, 3) if server is not None else None}
    rounds = [one_round(processes) for _ in range(args.rounds)]
    processes.shutdown()
    assert len({entry["findings"] for entry in rounds}) == 1, "the replacements' findings differ"
    server_totals = [entry["fork_server_cpu_s_total"] for entry in rounds if "fork_server_cpu_s_total" in entry]
    report: dict[str, Any] = {
        "load_before": load_before,
        "rounds": args.rounds,
        "start_up": start_up,
        "replacement_worker_cpu_s_median": round(statistics.median(e["worker_cpu_s"] for e in rounds), 3),
        "replacement_wall_s_median": round(statistics.median(e["wall_s_until_first_scan"] for e in rounds), 3),
        "replacement_fork_server_cpu_s_each": (
            round((server_totals[-1] - (start_up["fork_server_cpu_s"] or 0.0)) / len(server_totals), 4)
            if server_totals else None),
        "per_round": [{key: round(value, 3) if isinstance(value, float) else value for key, value in entry.items()}
                      for entry in rounds],
        "load_after": os.getloadavg()[0],
    }
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
