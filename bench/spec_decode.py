"""Speculative decoding: the same engine settings with and without ``speculative_method`` (prompt lookup by default;
``--method suffix`` with the tenant's earlier answers as well; ``--method draft_model`` with a draft model).

    python -m bench.spec_decode [--quick] [--threads N] [--no-compile] [--tokens K]
    python -m bench.spec_decode --method suffix --workloads chat --levels c1,c8,c32
    python -m bench.spec_decode --method draft_model --quantization none --draft-quantization int4

The second form measures a draft model: the only one these machines have is SmolLM2 itself, so the draft is the
same model through int4 weights beside a bfloat16 target (a quantized self-draft: the output is the dense
model's, at int4's speed where drafts are accepted). A production draft is a smaller model of the target's family.

Four workloads on the real model, greedy: ``quote`` (repeat a passage: the best case), ``edit`` (rewrite a passage
fixing mistakes: mostly copied, as code edits and agents re-emitting context are), ``extract`` (JSON-schema
constrained extraction of phrases from a passage: drafts under the grammar, beside jump-forward) and ``chat`` (open
questions with nothing to copy: the cost of drafting when drafts rarely match). Passages come from
bench/data/agentic_corpus.jsonl (design notes, code, tickets). No chat question is asked twice in a run, so the
suffix method finds in the tenant's earlier answers only what answers to different questions share (the phrasing
of an assistant), never a whole earlier answer. Each workload runs at concurrency 1, 8 and 32; the engines
alternate within every round so load from other processes falls on all of them alike. Greedy outputs are
compared request by request: in float32 they must be identical (the exit status says so); in bfloat16 the
verification step's multi-row GEMMs round differently from single-row decode steps, so near-ties can flip as they
do between batch sizes without speculation, and the share of identical requests is reported. Reports output tok/s
(median of rounds) and output tokens per second of the engine thread's CPU time (what a loaded machine skews
least), their ratios, and the draft acceptance rate. Writes bench/results/spec_decode[_METHOD].json.

With prompt lookup a third engine runs beside the two: the same method with ``prompt_lookup_adaptive=False``
(every proposal verified), so one run shows what the adaptive draft budget changes on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import torch

from bench.machine import cpu_description
from bench.provenance import write_results
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams

RESULTS = {"ngram": Path(__file__).parent / "results" / "spec_decode.json",
           "suffix": Path(__file__).parent / "results" / "spec_decode_suffix.json",
           "draft_model": Path(__file__).parent / "results" / "spec_decode_draft_model.json"}
CORPUS = Path(__file__).parent / "data" / "agentic_corpus.jsonl"
TASKS = {
    "quote": "Repeat the following text exactly, word for word:\n\n{passage}",
    "edit": "Rewrite the following text, fixing any spelling or grammar mistakes:\n\n{passage}",
    "extract": "Copy the three most important phrases of the following text, word for word, as JSON:\n\n{passage}",
}
PHRASES = {"type": "object", "additionalProperties": False, "required": ["topic", "phrases"],
           "properties": {"topic": {"type": "string"},
                          "phrases": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3}}}
STRUCTURED = {"extract": {"type": "json_schema", "json_schema": {"schema": PHRASES}}}


# Open chat questions: every topic under every ask, in an order that brings a topic back only after all the others.
TOPICS = ("volcanoes", "the stock market", "honeybees", "jazz music", "the Roman empire", "electric cars",
          "coffee brewing", "black holes", "chess openings", "rain forests", "the printing press", "vaccines",
          "origami", "the Olympic games", "submarines", "tea ceremonies", "glaciers", "video game design",
          "the human heart", "lighthouses", "sourdough bread", "wind turbines", "the Moon landing", "octopuses",
          "public libraries", "marathon training", "the violin", "desert plants", "the internet", "comets",
          "knitting", "earthquakes", "the Great Wall of China", "penguins", "solar panels", "poetry slams",
          "hot air balloons", "the periodic table", "coral reefs", "the Renaissance")
ASKS = ("Explain {} to a ten-year-old.", "Write a short poem about {}.", "Give me three surprising facts about {}.",
        "What are the pros and cons of {}?", "Tell a two-sentence story involving {}.",
        "How would you describe {} to someone from the year 1500?", "What is the history of {} in brief?",
        "Suggest a weekend project related to {}.")


def chat_question(index: int) -> str:
    """The ``index``-th open question; none repeats within len(TOPICS) * len(ASKS) of them."""
    topic = TOPICS[index % len(TOPICS)]
    return ASKS[(index // len(TOPICS)) % len(ASKS)].format(topic)


def passages(limit_chars: int = 700) -> list[str]:
    texts = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    return [t[:limit_chars] for t in texts if len(t) >= 200]


def workload(tokenizer, name: str, n: int, round_: int, first_question: int = 0) -> list[list[int]]:
    """``n`` chat prompts of one workload; each round takes different passages, and chat the questions from
    ``first_question`` on (the caller never asks one twice)."""
    if name == "chat":
        texts = [chat_question(first_question + i) for i in range(n)]
    else:
        pool = passages()
        texts = [TASKS[name].format(passage=pool[(round_ * n + i) % len(pool)]) for i in range(n)]
    return [tokenizer.encode(tokenizer.apply_chat_template([{"role": "user", "content": t}]),
                             add_special_tokens=False) for t in texts]


def run(llm: LLM, prompts: list[list[int]], concurrency: int, max_tokens: int,
        structured: dict | None = None) -> tuple[float, float, list[list[int]]]:
    """Output tokens per second of ``prompts`` submitted ``concurrency`` at a time, by the clock and by this thread's
    CPU time (the engine steps on it), and the outputs."""
    params = SamplingParams(max_tokens=max_tokens, temperature=0)
    outputs: list[list[int]] = []
    start, start_cpu = time.perf_counter(), time.thread_time()
    for i in range(0, len(prompts), concurrency):
        batch = llm.generate(prompts[i : i + concurrency], params, structured=structured)
        outputs += [r.token_ids for r in batch]
    tokens = sum(map(len, outputs))
    return tokens / (time.perf_counter() - start), tokens / (time.thread_time() - start_cpu), outputs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer requests, 3 rounds")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (default 1: see bench.engine)")
    parser.add_argument("--no-compile", action="store_true", help="run the decoder eagerly")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--quantization", default="int4")
    parser.add_argument("--tokens", type=int, default=4, help="num_speculative_tokens")
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--repeat", type=int, default=None, help="rounds (default: 3 with --quick, else 5)")
    parser.add_argument("--model", default="default", help="the target model (default: SmolLM2-135M-Instruct)")
    parser.add_argument("--method", choices=sorted(RESULTS), default="ngram", help="speculative_method")
    parser.add_argument("--draft-model", default="default", help="speculative_model (--method draft_model)")
    parser.add_argument("--draft-quantization", default="int4", help="the draft model's quantization (or none)")
    parser.add_argument("--levels", default="c1,c8,c32", help="concurrency levels to run, of c1,c8,c32")
    parser.add_argument("--workloads", default="quote,edit,extract,chat", help="workloads to run, of "
                        "quote,edit,extract,chat")
    parser.add_argument("--disable-by-batch-size", type=int, default=None,
                        help="speculative_disable_by_batch_size of the speculating engine (default: none)")
    parser.add_argument("--out", type=Path, default=None, help="default: bench/results/spec_decode[_draft_model].json")
    args = parser.parse_args(argv)
    out = args.out or RESULTS[args.method]
    repeat = args.repeat or (3 if args.quick else 5)
    torch.set_num_threads(args.threads)
    load_before = os.getloadavg()[0]
    quant = None if args.quantization in ("none", "") else args.quantization
    base = dict(model=args.model, dtype=args.dtype, quantization=quant, show_progress=False, kv_cache_memory_mb=256,
                max_num_seqs=32, max_num_batched_tokens=1024, compile_model=not args.no_compile)
    spec: dict[str, object] = {"speculative_method": args.method, "num_speculative_tokens": args.tokens,
                               "speculative_disable_by_batch_size": args.disable_by_batch_size}
    if args.method == "draft_model":
        spec.update(speculative_model=args.draft_model, speculative_model_quantization=None
                    if args.draft_quantization in ("none", "") else args.draft_quantization)
    # The plain engine names no speculation, whatever the engine's default.
    engines = {"plain": LLM(EngineConfig(**base, speculative_method=None)),
               "spec": LLM(EngineConfig(**base, **spec))}  # type: ignore[arg-type]
    if args.method == "ngram":  # the same without the adaptive budget: every proposal verified
        engines["every"] = LLM(EngineConfig(**base, **spec, prompt_lookup_adaptive=False))  # type: ignore[arg-type]
    speculating = [side for side in engines if side != "plain"]
    tokenizer = engines["plain"].tokenizer
    all_levels = {"c1": (1, 2 if args.quick else 4), "c8": (8, 8 if args.quick else 16), "c32": (32, 32)}
    levels = {name: all_levels[name] for name in args.levels.split(",")}
    names = [w for w in args.workloads.split(",") if w]
    unknown = set(names) - {"quote", "edit", "extract", "chat"}
    if unknown or not names:
        raise SystemExit(f"unknown workloads {sorted(unknown)}: choose from quote,edit,extract,chat")
    samples: dict[str, dict[str, list[float]]] = {side: {f"{w}/{c}": [] for w in names for c in levels}
                                                  for side in engines}
    cpu_samples: dict[str, dict[str, list[float]]] = {side: {f"{w}/{c}": [] for w in names for c in levels}
                                                      for side in engines}
    questions_asked = 0
    # drafted, accepted per speculating side and workload
    acceptance = {side: {w: [0, 0] for w in names} for side in speculating}
    identical = [0, 0]  # requests with the same greedy output as the plain engine's, requests compared
    print(f"threads={args.threads} dtype={args.dtype} quant={quant} compile={not args.no_compile} "
          f"k={args.tokens} max_tokens={args.max_tokens} {spec}")
    for round_ in range(repeat):
        for w in names:
            for level, (concurrency, total) in levels.items():
                prompts = workload(tokenizer, w, total, round_, questions_asked)
                questions_asked += total if w == "chat" else 0
                outputs = {}
                for side, llm in engines.items():
                    stats = llm.engine.stats_collector
                    before = (stats.spec_draft_tokens, stats.spec_accepted_tokens)
                    tok_s, cpu_tok_s, outputs[side] = run(llm, prompts, concurrency, args.max_tokens,
                                                          STRUCTURED.get(w))
                    samples[side][f"{w}/{level}"].append(tok_s)
                    cpu_samples[side][f"{w}/{level}"].append(cpu_tok_s)
                    if side != "plain":
                        acceptance[side][w][0] += stats.spec_draft_tokens - before[0]
                        acceptance[side][w][1] += stats.spec_accepted_tokens - before[1]
                    print(f"  round {round_ + 1} {side:<6} {w}/{level}: {tok_s:7.1f} tok/s  {cpu_tok_s:7.1f} tok/cpu-s",
                          flush=True)
                for side in speculating:
                    identical[0] += sum(a == b for a, b in zip(outputs["plain"], outputs[side], strict=True))
                    identical[1] += len(prompts)

    medians = {side: {k: statistics.median(v) for k, v in per.items()} for side, per in samples.items()}
    cpu_medians = {side: {k: statistics.median(v) for k, v in per.items()} for side, per in cpu_samples.items()}
    print(f"\nmedian of {repeat} rounds; identical greedy outputs: {identical[0]} of {identical[1]} requests")
    sides = {"plain": "plain", "spec": args.method, "every": f"{args.method}_every_proposal"}  # names in the JSON
    print(f"{'workload':<12}{'plain tok/s':>12}" + "".join(f"{sides[side] + ' tok/s':>28}{'ratio':>7}{'accepted':>9}"
                                                         for side in speculating))
    for key in medians["plain"]:
        w = key.split("/")[0]
        row = f"{key:<12}{medians['plain'][key]:>12.1f}"
        for side in speculating:
            drafted, accepted = acceptance[side][w]
            rate = f"{accepted / drafted:9.0%}" if drafted else "        -"
            row += f"{medians[side][key]:>28.1f}{medians[side][key] / medians['plain'][key]:>6.2f}x{rate}"
        print(row)

    def ratios(side: str, of: dict[str, dict[str, float]] = medians) -> dict[str, float]:
        return {k: round(of[side][k] / of["plain"][k], 2) for k in of["plain"]}

    def rates(side: str) -> dict[str, dict[str, float | int | None]]:
        return {w: {"drafted": d, "accepted": a, "rate": round(a / d, 3) if d else None}
                for w, (d, a) in acceptance[side].items()}

    speculator = engines["spec"].engine.speculator
    assert speculator is not None, "the speculative side runs without a speculator"
    report = {
        "tok_s": {sides[side]: {k: round(v, 1) for k, v in per.items()} for side, per in medians.items()},
        "ratio": ratios("spec"),
        # Output tokens per second of the engine thread's CPU time, and their ratio: what other load skews least.
        "cpu_tok_s": {sides[side]: {k: round(v, 1) for k, v in per.items()} for side, per in cpu_medians.items()},
        "ratio_cpu": ratios("spec", cpu_medians),
        "acceptance": rates("spec"),
        **({"ratio_every_proposal": ratios("every"), "acceptance_every_proposal": rates("every")}
           if "every" in engines else {}),
        "identical_greedy_outputs": {"requests": identical[0], "of": identical[1]},
        # What the adaptive engine measured its decode steps to cost, by tokens per step (ms): what it decided on.
        "step_costs_ms": {table: {n: round(s * 1e3, 2) for n, s in getattr(speculator, table).fitted().items()}
                          for table in ("plain_step_costs", "verify_step_costs")},
        "rounds": {sides[side]: {k: [round(x, 1) for x in v] for k, v in per.items()}
                   for side, per in samples.items()},
        "settings": {"quick": args.quick, "repeat": repeat, "levels": levels, "max_tokens": args.max_tokens,
                     "num_speculative_tokens": args.tokens, "dtype": args.dtype, "quantization": quant,
                     "speculative": spec,
                     "workloads": names, "compile": not args.no_compile, "threads": args.threads,
                     "cpu": cpu_description(), "torch": torch.__version__,
                     "load_average_start_end": [round(load_before, 2), round(os.getloadavg()[0], 2)]},
    }
    write_results(out, report)
    exact = args.dtype == "float32" and args.quantization in ("none", "")
    return 1 if exact and identical[0] != identical[1] else 0


if __name__ == "__main__":
    raise SystemExit(main())
