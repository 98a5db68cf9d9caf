"""What drafts would be accepted on the serving trace: prompt lookup, the tenant's suffix index, and both (the
``suffix`` method's rule), replayed offline over the greedy answers the optimized engine writes.

    python -m bench.serve_suffix [--concurrency 4] [--requests 48] [--tokens 4] [--out /tmp/serve_suffix.json]

One level of ``bench.serve``'s default trace (the same prompts, greedy, ``ignore_eos``, the trace's output
lengths) runs through the optimized engine in process; then every answer is replayed step by step: at each decode
step each proposer drafts up to ``--tokens`` tokens from what the sequence holds so far (and, for the suffix index,
the outputs of the requests that finished before this one started: all but the ``concurrency - 1`` before it in
trace order, one tenant as in ``bench.serve``), the drafts matching the answer are accepted, and the step moves on
by one token plus the accepted ones. Every draft is counted as verified (no adaptive budget): this is the
opportunity, the most the method could save; ``bench.serve --arms optimized,optimized_nospec`` measures what
it saves once verification rows cost what they cost (``optimized`` speculates so, ``optimized_nospec`` does not).

Reports per proposer the mean drafts accepted per decode step, the share of steps with at least one accepted, and
decode steps per answer token.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.serve import DEFAULT_TRACE, ENGINES, level_entries
from bench.serve_prompts import PromptSynthesizer
from bench.traces.mooncake import read_trace
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from engine.spec_decode.ngram_proposer import NgramProposer
from engine.spec_decode.suffix_index import SuffixStore

PROPOSERS = ("prompt_lookup", "suffix_index", "suffix_method")


def replay(requests: list[tuple[list[int], list[int]]], lag: int, k: int, config: EngineConfig
           ) -> dict[str, dict[str, float]]:
    """Acceptance of each proposer over ``(prompt, answer)`` pairs in arrival order."""
    results: dict[str, dict[str, float]] = {}
    for name in PROPOSERS:
        lookup = NgramProposer(k, min_n=config.prompt_lookup_min, max_n=config.prompt_lookup_max)
        store = SuffixStore(min_n=config.prompt_lookup_min, max_n=config.prompt_lookup_max,
                            tenant_tokens=config.suffix_tenant_tokens, total_tokens=config.suffix_total_tokens)
        steps = accepted = hits = 0
        for i, (prompt, answer) in enumerate(requests):
            if i >= lag:  # the requests that finished before this one started
                store.add("tenant", *requests[i - lag])
            sequence = list(prompt) + answer[:1]  # the first token comes from the prefill step
            index = lookup.new_index()
            while len(sequence) < len(prompt) + len(answer):
                limit = min(k, len(prompt) + len(answer) - len(sequence) - 1)  # the step samples one of its own
                own, own_n = lookup.lookup(sequence, index, limit) if name != "suffix_index" else ([], 0)
                theirs, their_n = (store.propose("tenant", sequence, limit, config.suffix_min_probability)
                                   if name != "prompt_lookup" and limit > 0 else ([], 0))
                drafts = theirs if their_n > own_n and theirs else own  # the orchestrator's rule
                expected = answer[len(sequence) - len(prompt):]
                kept = 0
                while kept < len(drafts) and drafts[kept] == expected[kept]:
                    kept += 1
                steps, accepted, hits = steps + 1, accepted + kept, hits + (kept > 0)
                sequence += expected[: kept + 1]
        results[name] = {"decode_steps": steps, "accepted_per_step": round(accepted / steps, 3),
                         "steps_with_an_accepted_draft": round(hits / steps, 3),
                         "steps_per_token": round(steps / sum(len(a) - 1 for _, a in requests), 3)}
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.serve_suffix", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--tokens", type=int, default=4, help="drafts per proposal (num_speculative_tokens)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/serve_suffix.json"))
    args = parser.parse_args(argv)
    config = EngineConfig(**{**ENGINES["optimized"], "kv_cache_memory_mb": 1536, "show_progress": False,
                             "num_threads": args.threads})
    entries, meta = read_trace(args.trace, None)
    entries = sorted(level_entries(entries, args.concurrency, args.requests, None), key=lambda e: e.timestamp)
    with LLM(config) as llm:
        tokenizer = llm.tokenizer
        synth = PromptSynthesizer(tokenizer, meta["block_size"])
        prompts = [tokenizer.encode(tokenizer.apply_chat_template(synth.messages(e, 1))) for e in entries]
        params = [SamplingParams(max_tokens=e.output_length, temperature=0, ignore_eos=True) for e in entries]
        answers = [r.token_ids for r in llm.generate(prompts, params)]
    report = {"trace": str(args.trace), "concurrency": args.concurrency, "requests": len(entries),
              "tokens": args.tokens,
              "proposers": replay(list(zip(prompts, answers, strict=True)), args.concurrency, args.tokens, config)}
    args.out.write_text(json.dumps(report, indent=2))
    print(json.dumps(report["proposers"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
