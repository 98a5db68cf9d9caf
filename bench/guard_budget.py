"""The guardrails' per-request CPU budget (``GuardConfig.scan_budget_s``): how far the dev-side texts stay below it,
and what a text built to be slow costs with and without it.

1. Dev maxima: every dev-side corpus text (``bench.pii_corpus`` dev splits, the agentic corpus) scanned as one
   request, and each turn of the agentic conversation (its whole history) as one request, by a guard with an empty
   cache, with NER on (the costliest policy); the scan's CPU time on its thread. The budget's margin is the default
   budget over the largest of these.
2. Adversarial: one long run of digit groups (the phone matcher's worst text known) at two sizes with no budget
   (the cost per character, to show it is linear and what a long context would buy), then at 200 KB under the default
   budget in the guard's threads and in one analysis worker process: the CPU spent until the refusal, the wall time
   until it, and (in the worker) the cost of the replacement worker's start-up.

    python -m bench.guard_budget [--out /tmp/guard_budget.json] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

from bench.guardrails import PROSE, generate_agentic_corpus, load_corpus
from bench.pii_corpus import dev_fifth, dev_fourth, dev_third, fresh_dev
from bench.provenance import write_results
from gateway.guardrails import GuardConfig, GuardrailInputError, InputGuard, PiiAnalyzer
from gateway.guardrails.processes import process_cpu_s
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

DEV_SPLITS = ("dev", fresh_dev.NAME, dev_third.NAME, dev_fourth.NAME, dev_fifth.NAME)
NER_POLICY = Policy(pii_input=PiiRules(entities={}, default_action=PiiAction.MASK),
                    injection=InjectionRules(action=InjectionAction.FLAG))
SECRET = b"bench-secret"


def digit_groups(chars: int, seed: int = 0) -> str:
    """A run of 3- and 4-digit groups: every offset starts a phone candidate the matcher must judge."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < chars:
        parts.append(f"{rng.randint(100, 999)} {rng.randint(1000, 9999)}")
        size += len(parts[-1]) + 1
    return " ".join(parts)[:chars]


def scan_cpu_s(guard: InputGuard, tenant: str, messages: list[dict[str, str]], policy: Policy) -> float:
    started = time.thread_time()
    guard.scan_messages_sync(tenant, messages, policy)
    return time.thread_time() - started


def summary(times: list[float], chars: list[int]) -> dict[str, Any]:
    worst = max(range(len(times)), key=times.__getitem__)
    ordered = sorted(times)
    return {"texts": len(times), "median_ms": round(statistics.median(times) * 1e3, 3),
            "p99_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1e3, 3),
            "max_ms": round(times[worst] * 1e3, 3), "max_chars": chars[worst], "longest_chars": max(chars)}


def dev_maxima(analyzer: PiiAnalyzer, quick: bool) -> dict[str, Any]:
    guard = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(scan_budget_s=None))
    # Loaded once per process on first use (the injection model, name lists), not a cost of the first text measured.
    guard.scan_messages_sync("warm", [{"role": "user", "content": "Maria Garcia of Porto, maria@example.org"}],
                             NER_POLICY)
    report: dict[str, Any] = {}
    rows: list[dict[str, Any]] = []
    for split in DEV_SPLITS:
        cases = load_corpus(split)
        if split == "dev":
            rows.extend(cases)
        texts = [str(case["text"]) for case in cases][: 200 if quick else None]
        times = [scan_cpu_s(guard, f"{split}-{i}", [{"role": "user", "content": text}], NER_POLICY)
                 for i, text in enumerate(texts)]  # fmt: skip
        report[split] = summary(times, [len(text) for text in texts])
        # The slowest text again, under a tenant of its own (no cache): what it costs once every lazily loaded model
        # it needed (the second NER model on a first non-English text) is loaded.
        worst = texts[max(range(len(times)), key=times.__getitem__)]
        report[split]["max_rescanned_ms"] = round(
            scan_cpu_s(guard, f"{split}-again", [{"role": "user", "content": worst}], NER_POLICY) * 1e3, 3)
    corpus = generate_agentic_corpus()
    times = [scan_cpu_s(guard, f"agentic-{i}", [{"role": "tool", "content": text}], NER_POLICY)
             for i, text in enumerate(corpus)]  # fmt: skip
    report["agentic_documents"] = summary(times, [len(text) for text in corpus])
    # Each turn of a 20-turn agent conversation, its whole history scanned as if nothing were cached.
    history: list[dict[str, str]] = [{"role": "system", "content": "You are a coding agent for the platform team."}]
    turn_times, turn_chars = [], []
    for turn in range(20):
        history = [*history, {"role": "user", "content": str(rows[turn]["text"]) + " " + PROSE[turn % len(PROSE)]},
                   {"role": "tool", "content": corpus[turn]}]  # fmt: skip
        turn_times.append(scan_cpu_s(guard, f"turn-{turn}", history, NER_POLICY))
        turn_chars.append(sum(len(m["content"]) for m in history))
        history = [*history, {"role": "assistant", "content": PROSE[(turn + 1) % len(PROSE)]}]
    report["agentic_conversation_uncached"] = summary(turn_times, turn_chars)
    guard.close()
    return report


def unbounded_cost(analyzer: PiiAnalyzer, sizes: tuple[int, ...]) -> dict[str, Any]:
    guard = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(scan_budget_s=None))
    costs = {}
    for chars in sizes:
        seconds = scan_cpu_s(guard, f"unbounded-{chars}", [{"role": "user", "content": digit_groups(chars)}],
                             Policy())
        costs[str(chars)] = {"cpu_s": round(seconds, 3), "us_per_char": round(seconds / chars * 1e6, 1)}
    guard.close()
    return costs


async def refused(guard: InputGuard, tenant: str, text: str) -> dict[str, Any]:
    """The wall and process CPU until the 422, for one request of ``text``."""
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        await guard.scan_messages(tenant, [{"role": "user", "content": text}], Policy())
    except GuardrailInputError as exc:
        assert exc.code == "guardrail_budget_exceeded", exc.code
        return {"status": exc.status_code, "wall_s": round(time.perf_counter() - wall, 3),
                "gateway_process_cpu_s": round(time.process_time() - cpu, 3)}
    raise AssertionError("the adversarial text was not refused")


def adversarial(analyzer: PiiAnalyzer, chars: int, budget_s: float) -> dict[str, Any]:
    text = digit_groups(chars, seed=1)
    report: dict[str, Any] = {"chars": chars, "budget_s": budget_s}
    pooled = InputGuard(SECRET, config=GuardConfig(scan_budget_s=budget_s, analysis_processes=1))
    pooled.scan_messages_sync("warm", [{"role": "user", "content": "warm up 415 555 0132"}], Policy())
    processes = pooled._processes
    assert processes is not None
    (pid,) = processes.worker_pids()
    worker_cpu = process_cpu_s(pid) or 0.0
    report["process"] = asyncio.run(refused(pooled, "adversarial-process", text))
    report["process"]["killed_worker_cpu_s"] = round((process_cpu_s(pid) or worker_cpu) - worker_cpu, 3)
    # The replacement's start-up: wall until it answers, and the CPU it spent getting there.
    wall = time.perf_counter()
    pooled.scan_messages_sync("after", [{"role": "user", "content": "call 415 555 0132"}], Policy())
    (new_pid,) = processes.worker_pids()
    report["respawn"] = {"wall_s_until_next_scan": round(time.perf_counter() - wall, 3),
                         "worker_cpu_s": round(process_cpu_s(new_pid) or 0.0, 3)}
    pooled.close()
    # In the guard's threads (no worker to kill): refused at the budget, but the thread runs on to the end of the
    # detector call it is in; how long that is, is the weak side of running the analysis without processes.
    threads = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(scan_budget_s=budget_s))
    report["threads"] = asyncio.run(refused(threads, "adversarial-threads", text))
    wall = time.perf_counter()
    threads.close()
    threads._executor.shutdown(wait=True)
    report["threads"]["thread_busy_after_refusal_s"] = round(time.perf_counter() - wall, 3)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("/tmp/guard_budget.json"))
    parser.add_argument("--quick", action="store_true", help="200 texts per split (a smoke run)")
    args = parser.parse_args()
    budget_s = GuardConfig().scan_budget_s
    assert budget_s is not None
    analyzer = PiiAnalyzer()
    analyzer.analyze("Warm up Maria Garcia in Lisbon, 415 555 0132", ner_enabled=True)
    report: dict[str, Any] = {"load_before": os.getloadavg()[0], "default_budget_s": budget_s}
    report["dev_maxima"] = dev_maxima(analyzer, args.quick)
    largest_ms = max(entry["max_ms"] for entry in report["dev_maxima"].values())
    report["largest_dev_scan_ms"] = largest_ms
    report["budget_margin_x"] = round(budget_s * 1e3 / largest_ms, 1)
    steady_ms = max(entry.get("max_rescanned_ms", entry["max_ms"]) for entry in report["dev_maxima"].values())
    report["largest_dev_scan_steady_ms"] = steady_ms
    report["budget_margin_steady_x"] = round(budget_s * 1e3 / steady_ms, 1)
    report["unbounded_digit_groups"] = unbounded_cost(analyzer, (10_000, 20_000))
    report["adversarial_200kb"] = adversarial(analyzer, 200_000, budget_s)
    report["load_after"] = os.getloadavg()[0]
    for key, value in report.items():
        print(f"{key}: {value}")
    write_results(args.out, report, command="python -m bench.guard_budget" + (" --quick" if args.quick else ""))


if __name__ == "__main__":
    main()
