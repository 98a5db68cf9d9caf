"""Where a guarded request's guardrail CPU goes: the overhead bench's fresh 2 KB prompts, stage by stage.

    python -m bench.guardrails_profile [--prompts 200] [--rounds 5] [--json FILE]
    python -m bench.guardrails_profile --agentic [--rounds 5] [--json FILE]
    python -m bench.guardrails_profile --dump-findings FILE [--ner]

The requests are ``bench.overhead_stub``'s guarded arm's (``long_prompts``: a system prompt and a 2 KB user message of
support tickets, each prompt different), screened by an ``InputGuard`` built as ``gateway.app`` builds it, under the
overhead bench's tenant policy (``BENCH_POLICY``: the default PII actions, injection flagged), through the /v1
adapter (``gateway.openai.guardrails_adapter``): the input screen, then an output filter fed the stub engine's two
deltas and finished. Every round sends prompts no earlier round sent (the scan cache never answers), after a warm-up
round of its own.

1. End to end: the process's CPU time (every thread: the event loop, the guard's input and output threads) per
   request, and the wall time of a request's input screen, per round; medians over rounds.
2. Per stage and per detector: the same requests again, with the guard's stages and each detector wrapped in
   thread-CPU timers (the wrappers add a few microseconds a call: each reads the thread-CPU clock twice, a system
   call whose cost is printed with the table; the end-to-end figure is measured without them).
   A stage's time is its own thread's CPU inside it; detectors are told apart by the text they read (the user's
   message, a boundary window's reading, the output) and split into their pre-filter and the rest.

``--agentic`` profiles instead what ``bench.guardrails`` times against Presidio: its agentic corpus (tool JSON, logs),
one ``PiiAnalyzer.analyze`` call a text with NER on, stage by stage (pre-filters, detectors, NER, the analyzer's
passes after NER and ``people.more_people``'s finders): thread CPU ms per pass over the corpus, median over rounds.

``--dump-findings`` writes, instead, every text's findings over the dev-side corpora (dev and every generated dev
split, the agentic corpus, the overhead bench's tickets and its 2 KB prompts), pattern detectors only unless
``--ner``, and each bench prompt's screened messages and decisions: two dumps from two revisions are compared with
``cmp``. The held-out `test` split is never read.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import statistics
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.gateway_overhead import BENCH_POLICY, ticket_prompts
from bench.guardrails import AGENTIC_CORPUS, load_corpus, read_jsonl
from bench.overhead_stub import long_prompts
from bench.pii_corpus.dev_splits import GENERATED_SPLITS
from bench.provenance import write_results
from bench.stub_engine import FINAL_TEXT, STAMP_PREFIX
from gateway.guardrails import GuardConfig, InputGuard, OutputRedactor, analyzer, input_guard, people, surnames
from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.injection import detector as injection_detector
from gateway.guardrails.injection.classifier import LinearInjectionClassifier
from gateway.guardrails.ner import NerModel
from gateway.guardrails.recognizers import Detector
from gateway.openai.guardrails_adapter import GuardrailsInput, GuardrailsOutput
from policies import Policy

TENANT = "bench-profile"
SECRET = b"guardrails-profile-secret-32byte"
DEV_SPLITS = ("dev", *GENERATED_SPLITS)  # every dev-side corpus: --dump-findings compares detectors over all of them
# The stub engine's completion to the guarded benches' requests, which are never streamed: its stamp prefix without
# the clock digits (``bench.stub_engine --no-stamp``), then its final text.
STUB_DELTAS = (STAMP_PREFIX, FINAL_TEXT)
DUMP_BATCH = 8


def build_guard() -> InputGuard:
    """The guard as ``gateway.app`` builds it under the default settings (threads, the default scan budget)."""
    return InputGuard(SECRET, config=GuardConfig())


def bench_policy() -> Policy:
    return Policy.model_validate(BENCH_POLICY)


def requests(count: int, seed: int) -> list[list[dict[str, str]]]:
    return long_prompts(count, seed=seed)


async def guarded_request(screen: GuardrailsInput, output: GuardrailsOutput, policy: Policy,
                          messages: list[dict[str, str]]) -> float:
    """One request's guardrail work as the /v1 path does it; the input screen's wall seconds."""
    started = time.perf_counter()
    await screen.screen_input(messages, tenant_id=TENANT, policy=policy)
    screened = time.perf_counter() - started
    flt = output.open(tenant_id=TENANT, policy=policy)
    for delta in STUB_DELTAS:
        await flt.feed(delta)
    await flt.finish()
    flt.decisions()
    return screened


async def run_round(guard: InputGuard, policy: Policy, batch: list[list[dict[str, str]]]) -> tuple[float, float]:
    """(process CPU ms per request, median input-screen wall ms) over ``batch``, one request at a time."""
    screen, output = GuardrailsInput(guard), GuardrailsOutput(guard)
    walls = []
    cpu = time.process_time()
    for messages in batch:
        walls.append(await guarded_request(screen, output, policy, messages))
    return (time.process_time() - cpu) * 1e3 / len(batch), statistics.median(walls) * 1e3


class Stages:
    """Thread-CPU nanoseconds per (stage, key), from wrappers around the guard's functions."""

    def __init__(self) -> None:
        self.ns: defaultdict[tuple[str, str], int] = defaultdict(int)
        self.calls: defaultdict[tuple[str, str], int] = defaultdict(int)
        self._lock = threading.Lock()
        self.local = threading.local()

    def add(self, stage: str, key: str, ns: int) -> None:
        with self._lock:
            self.ns[(stage, key)] += ns
            self.calls[(stage, key)] += 1

    def timed(self, stage: str, fn: Callable[..., Any], key: Callable[..., str] = lambda *a, **k: "") -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                self.add(stage, key(*args, **kwargs), time.thread_time_ns() - started)

        return wrapper

    @contextmanager
    def side(self, name: str) -> Iterator[None]:
        before = getattr(self.local, "side", "input")
        self.local.side = name
        try:
            yield
        finally:
            self.local.side = before


def detector_name(detector: Detector) -> str:
    return f"{detector.recognizer.name} ({'+'.join(detector.entity_types)})"


@contextmanager
def instrumented(guard: InputGuard, stages: Stages, messages_texts: set[str]) -> Iterator[None]:
    """Wrap the guard's stages and detectors in timers for the block's duration (``Stages``), then restore them."""
    patches: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        patches.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def reading(text: str) -> str:
        side = getattr(stages.local, "side", "input")
        if side != "input":
            return side
        return "message" if text in messages_texts else "boundary window"

    def run_detector(detector: Detector, text: str, *args: Any, **kwargs: Any) -> Any:
        started = time.thread_time_ns()
        try:
            return original_run(detector, text, *args, **kwargs)
        finally:
            stages.add(f"detector: {reading(text)}", detector_name(detector), time.thread_time_ns() - started)

    original_run = analyzer.run_detector
    patch(analyzer, "run_detector", run_detector)
    pii = guard.analyzer
    patch(pii, "_detectors", [
        dataclasses.replace(d, prefilter=stages.timed(
            "pre-filter", d.prefilter, lambda text, d=d: f"{reading(text)}: {detector_name(d)}"))
        for d in pii._detectors
    ])
    patch(analyzer, "reader_view", stages.timed("reader view (PII)", analyzer.reader_view))
    patch(analyzer, "decoded_view", stages.timed("query-string view (PII)", analyzer.decoded_view))
    scan = InputGuard._scan
    patch(InputGuard, "_scan", stages.timed(
        "input scan", scan, lambda *a, **k: "cached-only try (event loop)" if k.get("cached_only") else "full"))
    patch(InputGuard, "_prepare", stages.timed("input scan", InputGuard._prepare, lambda *a, **k: "prepare"))
    patch(input_guard, "content_key", stages.timed("cache keys", input_guard.content_key))
    patch(input_guard, "decide", stages.timed("decide + apply actions", input_guard.decide))
    patch(input_guard, "apply_actions", stages.timed("decide + apply actions", input_guard.apply_actions))
    patch(input_guard, "boundary_windows", stages.timed("boundary windows (injection)", input_guard.boundary_windows))
    patch(InputGuard, "_boundary_windows", stages.timed("boundary windows (PII)", InputGuard._boundary_windows))
    patch(injection_detector.InjectionDetector, "score",
          stages.timed("injection", injection_detector.InjectionDetector.score, lambda *a, **k: "total"))
    patch(injection_detector, "reader_view", stages.timed("injection", injection_detector.reader_view,
                                                          lambda *a, **k: "reader view"))
    patch(injection_detector, "match_rules", stages.timed("injection", injection_detector.match_rules,
                                                          lambda *a, **k: "phrase rules"))
    patch(LinearInjectionClassifier, "probability", stages.timed(
        "injection", LinearInjectionClassifier.probability, lambda *a, **k: "classifier"))

    def on_side(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with stages.side(name):
                return fn(*args, **kwargs)

        return wrapper

    for method in ("feed", "flush"):
        original = getattr(OutputRedactor, method)
        patch(OutputRedactor, method, stages.timed("output", on_side("output", original),
                                                   lambda *a, method=method, **k: method))
    try:
        yield
    finally:
        for owner, name, value in reversed(patches):
            setattr(owner, name, value)


def stage_table(stages: Stages, count: int) -> list[dict[str, Any]]:
    return sorted(({"stage": stage, "key": key, "us_per_request": ns / 1e3 / count,
                    "calls_per_request": stages.calls[(stage, key)] / count}
                   for (stage, key), ns in stages.ns.items()), key=lambda row: (row["stage"], -row["us_per_request"]))


def median_rows(rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    per_key: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
    calls: dict[tuple[str, str], float] = {}
    for rows in rounds:
        for row in rows:
            per_key[(row["stage"], row["key"])].append(row["us_per_request"])
            calls[(row["stage"], row["key"])] = row["calls_per_request"]
    out = []
    for (stage, key), values in per_key.items():
        values += [0.0] * (len(rounds) - len(values))
        out.append({"stage": stage, "key": key, "us_per_request": round(statistics.median(values), 1),
                    "calls_per_request": round(calls[(stage, key)], 2)})
    return sorted(out, key=lambda row: (row["stage"], -row["us_per_request"]))


def summary(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Per stage, the sum of its keys (the per-detector rows summed per reading), microseconds per request."""
    totals: defaultdict[str, float] = defaultdict(float)
    for row in rows:
        if row["stage"] == "injection" and row["key"] != "total":
            continue
        totals[row["stage"] if row["stage"] != "input scan" else f"input scan: {row['key']}"] += row["us_per_request"]
    return {stage: round(value, 1) for stage, value in sorted(totals.items())}


def clock_read_us(reads: int = 20000) -> float:
    """What one read of the thread-CPU clock costs, in microseconds of thread CPU (best of five batches): every timed
    call reads it twice, and a detector's row holds its pre-filter's two reads as well, so a detector that finds
    nothing shows about four reads' worth above what it costs uninstrumented."""
    best = float("inf")
    for _ in range(5):
        started = time.thread_time_ns()
        for _ in range(reads):
            time.thread_time_ns()
        best = min(best, (time.thread_time_ns() - started) / reads)
    return best / 1e3


def profile(args: argparse.Namespace) -> dict[str, Any]:
    guard = build_guard()
    policy = bench_policy()
    loop = asyncio.new_event_loop()
    loop.run_until_complete(run_round(guard, policy, requests(args.prompts, seed=args.seed + 1000)))  # warm-up
    end_to_end, instrumented_rounds = [], []
    for round_index in range(args.rounds):
        plain = requests(args.prompts, seed=args.seed + 2 * round_index)
        cpu_ms, wall_ms = loop.run_until_complete(run_round(guard, policy, plain))
        end_to_end.append({"cpu_ms_per_request": cpu_ms, "input_screen_wall_ms_p50": wall_ms})
        timed = requests(args.prompts, seed=args.seed + 2 * round_index + 1)
        stages = Stages()
        with instrumented(guard, stages, {m["content"] for request in timed for m in request}):
            loop.run_until_complete(run_round(guard, policy, timed))
        instrumented_rounds.append(stage_table(stages, len(timed)))
    loop.close()
    rows = median_rows(instrumented_rounds)
    return {
        "config": {"prompts_per_round": args.prompts, "rounds": args.rounds, "seed": args.seed,
                   "prompt_chars": len(requests(1, args.seed)[0][1]["content"]), "policy": "bench.gateway_overhead"
                   ".BENCH_POLICY (default PII actions: NER off, PERSON/LOCATION allowed; injection flagged)"},
        "end_to_end": {
            "cpu_ms_per_request_p50": round(statistics.median(r["cpu_ms_per_request"] for r in end_to_end), 3),
            "input_screen_wall_ms_p50": round(statistics.median(r["input_screen_wall_ms_p50"] for r in end_to_end), 3),
            "rounds": end_to_end},
        "stages_us_per_request": summary(rows),
        "clock_read_us": round(clock_read_us(), 3),
        "rows": rows,
    }


def print_profile(result: dict[str, Any]) -> None:
    e2e = result["end_to_end"]
    print(f"end to end (uninstrumented): CPU {e2e['cpu_ms_per_request_p50']:.3f} ms per request (process, all "
          f"threads); input screen wall p50 {e2e['input_screen_wall_ms_p50']:.3f} ms; "
          f"median of {len(e2e['rounds'])} rounds")
    print("\nper stage (instrumented; us of thread CPU per request, median over rounds):")
    print(f"  (a thread-CPU clock read costs {result['clock_read_us']:.2f} us here: each timed call holds two, a "
          "detector's row four with its pre-filter's, which its uninstrumented cost does not)")
    for stage, value in result["stages_us_per_request"].items():
        print(f"  {value:9.1f}  {stage}")
    print("\nper key:")
    for row in result["rows"]:
        print(f"  {row['us_per_request']:9.1f} us  {row['calls_per_request']:6.2f} calls  {row['stage']}: {row['key']}")


# The analyzer's passes after its detectors and ``people.more_people``'s finders, by the module that calls them.
ANALYZER_STAGES = ("reader_view", "decoded_view", "glued_findings", "without_phones_in_labelled_ids", "_kept",
                   "more_people", "_without_places_inside", "without_non_names")
MORE_PEOPLE_STAGES = ("name_pairs", "capitals_pairs", "other_script_names", "rare_letter_names", "suffixed_names",
                      "speakers", "inverted_names", "cued_names", "shaped_names", "listed_names")
SURNAME_STAGES = ("_capitalised_runs", "_lower_case_runs")


def materialised(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A generator function's work is done when it is consumed: the wrapper consumes it (into a list)."""
    return lambda *args, **kwargs: list(fn(*args, **kwargs))


@contextmanager
def instrumented_analyzer(pii: PiiAnalyzer, stages: Stages) -> Iterator[None]:
    """Wrap an analyzer's detectors (pre-filter and the rest), NER and its later passes in thread-CPU timers."""
    patches: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        patches.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    def run_detector(detector: Detector, text: str, *args: Any, **kwargs: Any) -> Any:
        started = time.thread_time_ns()
        try:
            return original_run(detector, text, *args, **kwargs)
        finally:
            stages.add("detector (pre-filter passed)", detector_name(detector), time.thread_time_ns() - started)

    original_run = analyzer.run_detector
    patch(analyzer, "run_detector", run_detector)
    patch(pii, "_detectors", [dataclasses.replace(d, prefilter=stages.timed(
        "pre-filter", d.prefilter, lambda text, d=d: detector_name(d))) for d in pii._detectors])
    patch(NerModel, "find_many", stages.timed("analyzer", NerModel.find_many, lambda *a, **k: "NerModel.find_many"))
    for name in ANALYZER_STAGES:
        patch(analyzer, name, stages.timed("analyzer", getattr(analyzer, name), lambda *a, name=name, **k: name))
    for name in MORE_PEOPLE_STAGES:
        patch(people, name, stages.timed("more_people", getattr(people, name), lambda *a, name=name, **k: name))
    for name in SURNAME_STAGES:
        patch(surnames, name, stages.timed("suffixed_names", materialised(getattr(surnames, name)),
                                           lambda *a, name=name, **k: name))
    try:
        yield
    finally:
        for owner, name, value in reversed(patches):
            setattr(owner, name, value)


def profile_agentic(args: argparse.Namespace) -> dict[str, Any]:
    """``bench.guardrails``'s agentic throughput pass (``warden_pipeline``: one ``analyze`` a text, NER on), timed
    whole (process CPU and wall per pass, uninstrumented) and stage by stage (thread CPU ms per pass)."""
    texts = [str(text) for text in read_jsonl(AGENTIC_CORPUS)]
    pii = PiiAnalyzer()
    for text in texts:  # warm-up: lazy loads (spaCy, names-dataset, the gazetteer, phonenumbers' metadata)
        pii.analyze(text, ner_enabled=True)
    end_to_end, instrumented_rounds = [], []
    for _ in range(args.rounds):
        cpu, wall = time.process_time(), time.perf_counter()
        for text in texts:
            pii.analyze(text, ner_enabled=True)
        end_to_end.append({"cpu_ms_per_pass": (time.process_time() - cpu) * 1e3,
                           "wall_ms_per_pass": (time.perf_counter() - wall) * 1e3})
        stages = Stages()
        with instrumented_analyzer(pii, stages):
            for text in texts:
                pii.analyze(text, ner_enabled=True)
        instrumented_rounds.append(stage_table(stages, 1))
    rows = median_rows(instrumented_rounds)  # microseconds per "request": here per pass
    return {
        "config": {"corpus": str(AGENTIC_CORPUS), "texts": len(texts), "chars": sum(map(len, texts)),
                   "rounds": args.rounds, "call": "PiiAnalyzer.analyze(text, ner_enabled=True), one text a call"},
        "end_to_end": {
            "cpu_ms_per_pass_p50": round(statistics.median(r["cpu_ms_per_pass"] for r in end_to_end), 2),
            "wall_ms_per_pass_p50": round(statistics.median(r["wall_ms_per_pass"] for r in end_to_end), 2),
            "rounds": end_to_end},
        "rows": [{"stage": row["stage"], "key": row["key"], "ms_per_pass": round(row["us_per_request"] / 1e3, 2),
                  "calls_per_pass": row["calls_per_request"]} for row in rows],
    }


def print_agentic(result: dict[str, Any]) -> None:
    e2e = result["end_to_end"]
    print(f"agentic corpus ({result['config']['texts']} texts, {result['config']['chars']} chars), uninstrumented: "
          f"CPU {e2e['cpu_ms_per_pass_p50']:.1f} ms, wall {e2e['wall_ms_per_pass_p50']:.1f} ms per pass; median of "
          f"{len(e2e['rounds'])} rounds")
    print("\nper stage (instrumented; ms of thread CPU per pass, median over rounds; a detector's row includes its "
          "pre-filter, more_people's its finders):")
    for row in sorted(result["rows"], key=lambda row: -row["ms_per_pass"]):
        print(f"  {row['ms_per_pass']:8.2f} ms  {row['calls_per_pass']:7.0f} calls  {row['stage']}: {row['key']}")


def corpora() -> dict[str, list[str]]:
    texts = {split: [case["text"] for case in load_corpus(split)] for split in DEV_SPLITS}
    texts["agentic"] = [str(text) for text in read_jsonl(AGENTIC_CORPUS)]
    texts["tickets"] = [request[1]["content"] for request in ticket_prompts(400)]
    texts["bench-2kb"] = [request[1]["content"] for request in requests(200, seed=0)]
    return texts


def dump_findings(path: Path, ner: bool) -> None:
    """Every text's findings (type, start, end, score, source), then each bench prompt's screened messages and
    decisions, one JSON line each."""
    guard = build_guard()
    policy = bench_policy()
    with path.open("w", encoding="utf-8") as out:
        for name, texts in corpora().items():
            # In batches, as the input guard hands a request's texts over: what a detector keeps for the texts
            # that follow (``phones.judgements_shared``) must not change any text's findings.
            found = [f for start in range(0, len(texts), DUMP_BATCH)
                     for f in guard.analyzer.analyze_many(texts[start : start + DUMP_BATCH], ner_enabled=ner)]
            for index, findings in enumerate(found):
                rows = sorted((f.entity_type, f.start, f.end, f.score, f.source) for f in findings)
                out.write(json.dumps({"corpus": name, "index": index, "findings": rows}) + "\n")
        for index, messages in enumerate(requests(200, seed=0) + ticket_prompts(200, seed=5)):
            result = guard.scan_messages_sync(TENANT, messages, policy)
            out.write(json.dumps({"corpus": "screened", "index": index, "messages": result.messages,
                                  "decisions": result.decisions}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--prompts", type=int, default=200, help="fresh 2 KB requests per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="write the result here (with provenance)")
    parser.add_argument("--agentic", action="store_true", help="profile bench.guardrails' agentic corpus instead")
    parser.add_argument("--dump-findings", type=Path, help="write findings per text instead of profiling")
    parser.add_argument("--ner", action="store_true", help="with --dump-findings: NER on too")
    args = parser.parse_args()
    if args.dump_findings is not None:
        dump_findings(args.dump_findings, args.ner)
        return
    if args.agentic:
        result = profile_agentic(args)
        print_agentic(result)
        if args.json is not None:
            command = f"python -m bench.guardrails_profile --agentic --rounds {args.rounds}"
            write_results(args.json, result, command=command)
        return
    result = profile(args)
    print_profile(result)
    if args.json is not None:
        write_results(args.json, result, command="python -m bench.guardrails_profile "
                      f"--prompts {args.prompts} --rounds {args.rounds}")


if __name__ == "__main__":
    main()
