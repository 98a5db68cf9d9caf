"""Prefix-cache TTFT on a hybrid (Nemotron-H: Mamba2 + attention + MoE + MLP layers) with Mamba state snapshots on
and off, and how many snapshots each request writes.

    python -m bench.hybrid_prefix [--quick] [--rounds N] [--threads N] [--out bench/results/hybrid_prefix.json]
        [--compare-with OTHER.json --compare-label TEXT]

A small random-weight Nemotron-H checkpoint (built offline from transformers' classes, float32, CPU) with a real
checkpoint's scan chunk (128 tokens) is served with the engine's defaults for the KV block size (unset: the engine
raises it to the chunk) and the step budget (1024 tokens: a 2048-token prompt is prefilled in chunks), by two
engines that differ only in ``num_state_snapshots``: ``on`` keeps Mamba state snapshots (sized from the budget),
``off`` keeps none, so a hybrid's prefix hit is impossible there (the attention layers' KV is cached, but the Mamba
layers would still need the whole prefix) and the prompt is recomputed. Each engine first serves a shared prefix of
``prefix_len`` tokens once; then, per round, a request of that prefix plus a fresh 16-token suffix measures the time
to its first token (``add_request`` to the step that samples it). Rounds alternate the engines and the medians are
kept; both must sample the same first token every round (snapshots change cost, not results). ``snapshots_written``
counts the snapshots ``on`` stored for the prefix's request and for each round's. ``--compare-with`` copies another
run's results (e.g. of an earlier snapshot policy) into the report under ``compared`` with its label.

The system-prompt case (``system_prompt`` in the report): every request is a published system prompt of
``system_len`` tokens (``public_prefix_len``) and a fresh ``user_len``-token message, prefilled in one step; the
first one warms the caches, each round times another. A step keeps the state at its last block end, which lies in
the message, and also at the public prefix's last whole block when it crosses it: without the latter the system
prompt's KV blocks would be cached but no state snapshot would end inside them, and every round would recompute
them. Three arms: ``on`` (the prefix marked public), ``on_unmarked`` (the same engine and tokens with
``public_prefix_len`` 0: one snapshot per step, at the message's last block end) and ``off`` (no snapshots).
The load average at start and end is recorded: on a shared machine compare the ratio, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import torch

from bench.machine import cpu_description
from bench.provenance import write_results
from engine.config import EngineConfig
from engine.llm import LLM
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams

RESULTS = Path(__file__).parent / "results" / "hybrid_prefix.json"
LAYERS = ["linear_attention", "full_attention", "moe", "linear_attention", "mlp", "linear_attention"]
CHUNK_SIZE = 128  # Nemotron-H checkpoints' scan chunk
SUFFIX_LEN = 16


def write_checkpoint(directory: Path) -> None:
    from transformers import NemotronHConfig, NemotronHForCausalLM

    from engine.loader.source import resolve_model
    from engine.tokenization.tokenizer import Tokenizer

    tokenizer = Tokenizer.from_source(resolve_model("default"))
    torch.manual_seed(0)
    model = NemotronHForCausalLM(NemotronHConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=128, layers_block_type=LAYERS, mamba_num_heads=8,
        mamba_head_dim=32, ssm_state_size=32, n_groups=2, conv_kernel=4, chunk_size=CHUNK_SIZE,
        num_attention_heads=4, num_key_value_heads=2, head_dim=32, intermediate_size=256, n_routed_experts=8,
        num_experts_per_tok=2, moe_intermediate_size=64, moe_shared_expert_intermediate_size=128,
        max_position_embeddings=8192, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2, pad_token_id=0))
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.backend.save(str(directory / "tokenizer.json"))
    (directory / "tokenizer_config.json").write_text(json.dumps({
        "chat_template": tokenizer.chat_template, "eos_token": "<|im_end|>", "bos_token": "<|im_start|>",
        "add_bos_token": False}))


def time_to_first_token(llm: LLM, request_id: str, prompt: list[int], public_prefix_len: int = 0) -> tuple[float, int]:
    engine = llm.engine
    params = SamplingParams(max_tokens=1, temperature=0, ignore_eos=True)
    start = time.perf_counter()
    engine.add_request(EngineRequest(request_id, prompt, params, public_prefix_len=public_prefix_len))
    while True:
        for output in engine.step():
            if output.request_id == request_id and output.token_ids:
                elapsed = time.perf_counter() - start
                while engine.has_unfinished_requests():
                    engine.step()
                return elapsed, output.token_ids[0]


def bench_prefix(directory: Path, prefix_len: int, rounds: int) -> dict:
    settings: dict[str, Any] = dict(model=str(directory), show_progress=False, max_num_seqs=4, kv_cache_memory_mb=256)
    engines = {"on": LLM(EngineConfig(**settings)), "off": LLM(EngineConfig(**settings, num_state_snapshots=0))}
    states = engines["on"].engine.block_manager.states
    assert states is not None and states.num_snapshots > 0
    prefix = [(37 * i + 11) % 40000 + 50 for i in range(prefix_len)]
    written_before = states.num_snapshots_written
    for name, llm in engines.items():
        time_to_first_token(llm, f"{name}-prefix", prefix)
    written = {"prefix_request": states.num_snapshots_written - written_before, "rounds": []}
    ttft: dict[str, list[float]] = {name: [] for name in engines}
    hits: dict[str, int] = {}
    for r in range(rounds):
        suffix = [(101 * r + 7 * i) % 30000 + 100 for i in range(SUFFIX_LEN)]
        tokens = {}
        order = list(engines) if r % 2 == 0 else list(reversed(engines))
        for name in order:
            llm = engines[name]
            before, written_before = llm.engine.scheduler.prefix_cache_hits, states.num_snapshots_written
            seconds, tokens[name] = time_to_first_token(llm, f"{name}-{r}", prefix + suffix)
            ttft[name].append(seconds)
            hits[name] = llm.engine.scheduler.prefix_cache_hits - before
            if name == "on":
                written["rounds"].append(states.num_snapshots_written - written_before)
        assert tokens["on"] == tokens["off"], f"round {r}: first tokens differ ({tokens})"
    medians = {name: statistics.median(values) for name, values in ttft.items()}
    return {
        "prefix_len": prefix_len, "suffix_len": SUFFIX_LEN,
        "ttft_ms_median": {name: round(value * 1e3, 2) for name, value in medians.items()},
        "ttft_ms_rounds": {name: [round(v * 1e3, 2) for v in values] for name, values in ttft.items()},
        "prefix_hit_tokens": hits, "speedup": round(medians["off"] / medians["on"], 2),
        "snapshots_written": written, "block_size": engines["on"].engine.block_manager.block_size,
        "max_num_batched_tokens": engines["on"].engine.config.max_num_batched_tokens,
    }


def bench_system_prompt(directory: Path, system_len: int, user_len: int, rounds: int) -> dict:
    settings: dict[str, Any] = dict(model=str(directory), show_progress=False, max_num_seqs=4, kv_cache_memory_mb=256)
    on, off = LLM(EngineConfig(**settings)), LLM(EngineConfig(**settings, num_state_snapshots=0))
    states = on.engine.block_manager.states
    assert states is not None and states.num_snapshots > 0
    step_budget = on.engine.config.max_num_batched_tokens
    assert system_len + user_len <= step_budget, "the first request must be prefilled in one step"
    system = [(37 * i + 11) % 40000 + 50 for i in range(system_len)]

    def message(r: int) -> list[int]:
        return [(101 * r + 7 * i) % 30000 + 100 for i in range(user_len)]

    arms = {"on": (on, system_len), "on_unmarked": (on, 0), "off": (off, system_len)}
    written: dict[str, int] = {}
    for name, (llm, public) in arms.items():
        before = states.num_snapshots_written
        time_to_first_token(llm, f"{name}-first", system + message(-1), public)
        if llm is on:
            written[name] = states.num_snapshots_written - before
    ttft: dict[str, list[float]] = {name: [] for name in arms}
    hits: dict[str, list[int]] = {name: [] for name in arms}
    for r in range(rounds):
        tokens = {}
        order = list(arms) if r % 2 == 0 else list(reversed(arms))
        for name in order:
            llm, public = arms[name]
            before = llm.engine.scheduler.prefix_cache_hits
            seconds, tokens[name] = time_to_first_token(llm, f"{name}-{r}", system + message(r), public)
            ttft[name].append(seconds)
            hits[name].append(llm.engine.scheduler.prefix_cache_hits - before)
        assert len(set(tokens.values())) == 1, f"round {r}: first tokens differ ({tokens})"
    medians = {name: statistics.median(values) for name, values in ttft.items()}
    return {
        "system_len": system_len, "user_len": user_len,
        "ttft_ms_median": {name: round(value * 1e3, 2) for name, value in medians.items()},
        "ttft_ms_rounds": {name: [round(v * 1e3, 2) for v in values] for name, values in ttft.items()},
        "prefix_hit_tokens": hits, "speedup_vs_off": round(medians["off"] / medians["on"], 2),
        "speedup_vs_unmarked": round(medians["on_unmarked"] / medians["on"], 2),
        "snapshots_written_by_first_request": written, "block_size": on.engine.block_manager.block_size,
        "max_num_batched_tokens": step_budget,
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--prefix-lens", type=int, nargs="+", default=[512, 2048])
    parser.add_argument("--system-len", type=int, default=700, help="the public system prompt's tokens")
    parser.add_argument("--user-len", type=int, default=200, help="each request's message after it")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="2 rounds, a 256-token prefix (a smoke run)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--compare-with", type=Path, help="another run's results JSON to copy in under 'compared'")
    parser.add_argument("--compare-label", default="", help="what the --compare-with run measured")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.prefix_lens, args.system_len, args.user_len = 2, [256], 200, 100
    if args.threads:
        torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        write_checkpoint(Path(tmp))
        results = [bench_prefix(Path(tmp), n, args.rounds) for n in args.prefix_lens]
        system_prompt = bench_system_prompt(Path(tmp), args.system_len, args.user_len, args.rounds)
    for result in results:
        print(f"prefix {result['prefix_len']:5d}: TTFT snapshots on {result['ttft_ms_median']['on']:8.1f} ms, "
              f"off {result['ttft_ms_median']['off']:8.1f} ms ({result['speedup']}x; hit tokens "
              f"{result['prefix_hit_tokens']}; snapshots written: prefix request "
              f"{result['snapshots_written']['prefix_request']}, each hit {result['snapshots_written']['rounds']})")
    sp = system_prompt
    print(f"system prompt {sp['system_len']} + message {sp['user_len']} tokens: TTFT on "
          f"{sp['ttft_ms_median']['on']:.1f} ms, unmarked {sp['ttft_ms_median']['on_unmarked']:.1f} ms, off "
          f"{sp['ttft_ms_median']['off']:.1f} ms (hit tokens {sp['prefix_hit_tokens']}; snapshots written by the "
          f"first request {sp['snapshots_written_by_first_request']})")
    report = {
        "results": results,
        "system_prompt": system_prompt,
        "machine": {"cpu": cpu_description(), "threads": torch.get_num_threads(),
                    "load_average_start_end": [round(load_start, 2), round(os.getloadavg()[0], 2)]},
        "settings": {"rounds": args.rounds, "chunk_size": CHUNK_SIZE, "block_size": "unset (the engine's choice)",
                     "layers": LAYERS, "hidden_size": 128, "dtype": "float32", "device": "cpu", "quick": args.quick},
    }
    if args.compare_with is not None:
        other = json.loads(args.compare_with.read_text())
        report["compared"] = {"label": args.compare_label, "results": other["results"],
                              "machine": other.get("machine")}
    write_results(args.out, report)
    return report


if __name__ == "__main__":
    main()
