"""Per model family: Warden's prefill and decode tokens/s against transformers on the same tiny random checkpoint.

    python -m bench.families [--quick] [--only mixtral,qwen2_moe] [--size tiny|small] [--rounds N] [--threads N]
                             [--merge] [--out bench/results/families.json]

Each family's checkpoint is written offline by ``tests.engine.tiny_models.write_tiny_checkpoint`` from
transformers' own classes (random weights, the default model's tokenizer), float32 on the CPU on both sides.

* prefill: ``--batch`` prompts of ``--prompt-len`` tokens (fresh random tokens each round, prefix caching off),
  one output token; Warden's engine vs one batched transformers forward (``logits_to_keep=1``: the LM head over the
  last positions only, as Warden's). tok/s = prompt tokens / wall time.
* decode: the same prompts, ``--decode-tokens`` new tokens each (EOS ignored); decode time = time(N tokens) -
  time(1 token), so the prefill is taken out on both sides; tok/s = batch * (N - 1) / decode time.

Rounds alternate Warden and transformers and the median is kept, so load from other processes hits both alike;
the load average at start and end is recorded (on a shared machine, compare ratios, not absolute rates).

Mixture-of-experts families also time ``kernels.dispatch.fused_moe``'s CPU path (the grouped one: rows sorted by
expert once, one GEMM per expert) against the reference's naive per-expert loop at the family's expert shapes,
per call, for decode- and prefill-sized token counts (``moe_kernel``).

A family is a name -> (architecture, overrides of the tiny config) entry of ``FAMILIES``; ``--merge`` keeps the
other families' entries already in the JSON file (run one family without re-running the rest). ``--size small``
entries are keyed ``<family>-small``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch

from bench.machine import cpu_description
from bench.provenance import write_results
from engine.config import EngineConfig
from engine.llm import LLM
from engine.sampling_params import SamplingParams

RESULTS = Path(__file__).parent / "results" / "families.json"

# name -> (architecture for write_tiny_checkpoint, overrides of its tiny config)
FAMILIES: dict[str, tuple[str, dict]] = {
    "llama": ("llama", {}),
    "qwen2": ("qwen2", {}),
    "mixtral": ("mixtral", {}),
    "qwen2_moe": ("qwen2_moe", {}),
    "qwen3_moe": ("qwen3_moe", {}),
}
# --size small: wider layers, so the expert GEMMs weigh more than the per-op overheads.
SMALL = {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 8,
         "num_key_value_heads": 4}
SMALL_MOE = {"mixtral": {}, "qwen2_moe": {"moe_intermediate_size": 128, "shared_expert_intermediate_size": 512},
             "qwen3_moe": {"moe_intermediate_size": 128}}


def family_config(name: str, size: str) -> tuple[str, dict]:
    architecture, overrides = FAMILIES[name]
    if size == "small":
        overrides = {**SMALL, **SMALL_MOE.get(name, {}), **overrides}
    return architecture, overrides


def median_time(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


class Sides:
    """Warden's engine and transformers' model on one checkpoint, timed in alternation."""

    def __init__(self, directory: Path, batch: int, prompt_len: int) -> None:
        from transformers import AutoModelForCausalLM

        self.llm = LLM(EngineConfig(model=str(directory), show_progress=False, enable_prefix_caching=False,
                                    max_num_seqs=max(batch, 8), max_num_batched_tokens=max(1024, batch * prompt_len),
                                    kv_cache_memory_mb=64))
        self.hf = AutoModelForCausalLM.from_pretrained(directory, dtype=torch.float32).eval()
        self.vocab = self.llm.engine.model.config.vocab_size
        self.batch, self.prompt_len = batch, prompt_len
        self.generator = torch.Generator().manual_seed(0)

    def prompts(self) -> torch.Tensor:
        # Fresh tokens each call (ids past the special tokens), so no round reuses another's cache.
        return torch.randint(100, self.vocab, (self.batch, self.prompt_len), generator=self.generator)

    def warden(self, prompts: torch.Tensor, new_tokens: int) -> None:
        params = SamplingParams(max_tokens=new_tokens, temperature=0, ignore_eos=True)
        results = self.llm.generate(prompts.tolist(), params)
        assert all(len(r.token_ids) == new_tokens for r in results)

    @torch.inference_mode()
    def transformers(self, prompts: torch.Tensor, new_tokens: int) -> None:
        if new_tokens == 1:  # the last position's logits only, as Warden computes (and as generate does)
            self.hf(prompts, logits_to_keep=1)
            return
        out = self.hf.generate(prompts, attention_mask=torch.ones_like(prompts), max_new_tokens=new_tokens,
                               min_new_tokens=new_tokens, do_sample=False, pad_token_id=0)
        assert out.shape[1] == self.prompt_len + new_tokens


def bench_family(name: str, size: str, args: argparse.Namespace) -> dict:
    from tests.engine.tiny_models import write_tiny_checkpoint

    architecture, overrides = family_config(name, size)
    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as tmp:
        directory = write_tiny_checkpoint(Path(tmp) / name, architecture=architecture, **overrides)
        sides = Sides(directory, args.batch, args.prompt_len)
        result = {"architecture": architecture, "config_overrides": overrides}
        for run in (sides.warden, sides.transformers):
            run(sides.prompts(), 2)  # warm-up: first-call allocations, lazy imports
        times: dict[str, dict[str, list[float]]] = {"warden": {}, "transformers": {}}
        for _ in range(args.rounds):
            for label, run in (("warden", sides.warden), ("transformers", sides.transformers)):
                for key, tokens in (("one", 1), ("many", args.decode_tokens)):
                    prompts = sides.prompts()
                    start = time.perf_counter()
                    run(prompts, tokens)
                    times[label].setdefault(key, []).append(time.perf_counter() - start)
        for label, t in times.items():
            one, many = statistics.median(t["one"]), statistics.median(t["many"])
            result[label] = {
                "prefill_tok_s": round(args.batch * args.prompt_len / one, 1),
                "decode_tok_s": round(args.batch * (args.decode_tokens - 1) / max(many - one, 1e-9), 1),
                "prefill_s": round(one, 4), "generate_s": round(many, 4),
            }
        for metric in ("prefill_tok_s", "decode_tok_s"):
            result[f"{metric}_ratio"] = round(result["warden"][metric] / result["transformers"][metric], 2)
        cfg = sides.llm.engine.model.config
        if cfg.num_experts:
            result["moe_kernel"] = bench_moe_kernel(cfg.num_experts, cfg.num_experts_per_tok, cfg.hidden_size,
                                                    cfg.moe_intermediate_size, args.kernel_tokens, args.rounds,
                                                    args.kernel_calls)
        sides.llm.close()
    return result


def bench_moe_kernel(experts: int, top_k: int, hidden: int, inter: int, token_counts: list[int],
                     rounds: int, calls: int) -> list[dict]:
    """Per call: the grouped CPU path against the reference's per-expert loop, at this family's expert shapes."""
    from engine.layers.fused_moe import select_experts
    from kernels.cpu.fused_moe import fused_moe as grouped
    from kernels.reference.fused_moe import fused_moe as reference

    g = torch.Generator().manual_seed(0)
    w13 = torch.randn(experts, 2 * inter, hidden, generator=g) / hidden**0.5
    w2 = torch.randn(experts, hidden, inter, generator=g) / inter**0.5
    rows = []
    for tokens in token_counts:
        x = torch.randn(tokens, hidden, generator=g)
        weights, ids = select_experts(torch.randn(tokens, experts, generator=g), top_k, renormalize=True)
        problem = (x, w13, w2, weights, ids)
        timed = {"grouped": lambda p=problem: grouped(*p), "reference": lambda p=problem: reference(*p)}
        us: dict[str, list[float]] = {k: [] for k in timed}
        for fn in timed.values():
            fn()
        for _ in range(rounds):
            for label, fn in timed.items():  # alternated, so load drift hits both
                us[label].append(median_time(fn, max(3, calls // tokens)) * 1e6)
        grouped_us, reference_us = statistics.median(us["grouped"]), statistics.median(us["reference"])
        rows.append({"tokens": tokens, "grouped_us": round(grouped_us, 1), "reference_us": round(reference_us, 1),
                     "speedup": round(reference_us / grouped_us, 2)})
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(FAMILIES), help="comma-separated families")
    parser.add_argument("--size", choices=("tiny", "small"), default="tiny")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--prompt-len", type=int, default=128)
    parser.add_argument("--decode-tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="2 rounds, short prompts and outputs (a smoke run)")
    parser.add_argument("--merge", action="store_true", help="keep the other families already in --out")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.prompt_len, args.decode_tokens, args.batch = 2, 16, 4, 2
    args.kernel_tokens = [1, 4] if args.quick else [1, 4, 32, 256]
    args.kernel_calls = 10 if args.quick else 500  # per timing at one token; fewer for more tokens
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(FAMILIES))
    if unknown:
        parser.error(f"unknown families {unknown}; have {sorted(FAMILIES)}")
    if args.threads:
        torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    load_start = os.getloadavg()[0]
    settings = {"size": args.size, "batch": args.batch, "prompt_len": args.prompt_len,
                "decode_tokens": args.decode_tokens, "rounds": args.rounds, "quick": args.quick,
                "dtype": "float32", "device": "cpu", "threads": torch.get_num_threads()}
    families = {}
    for family in names:
        name = family if args.size == "tiny" else f"{family}-{args.size}"
        load = os.getloadavg()[0]
        families[name] = bench_family(family, args.size, args)
        # Each entry carries its own run's settings and load: --merge mixes runs in one file.
        families[name]["run"] = {**settings, "load_average_start_end": [round(load, 2), round(os.getloadavg()[0], 2)]}
        print(f"{name:12s} " + "  ".join(
            f"{metric} warden {families[name]['warden'][metric]:>9.1f} transformers "
            f"{families[name]['transformers'][metric]:>9.1f} ({families[name][metric + '_ratio']}x)"
            for metric in ("prefill_tok_s", "decode_tok_s")))
        for row in families[name].get("moe_kernel", []):
            print(f"{'':12s} fused_moe {row['tokens']:>4d} tokens: grouped {row['grouped_us']:>9.1f} us, "
                  f"reference loop {row['reference_us']:>9.1f} us ({row['speedup']}x)")
    report = {
        "machine": {"cpu": cpu_description(), "threads": torch.get_num_threads(),
                    "load_average_start_end": [round(load_start, 2), round(os.getloadavg()[0], 2)]},
        "settings": settings,
        "families": families,
    }
    if args.merge and args.out.is_file():
        previous = json.loads(args.out.read_text())
        report["families"] = {**previous.get("families", {}), **families}
        report["runs"] = [*previous.get("runs", []), {"families": names, **report["machine"]}]
    write_results(args.out, report)
    return report


if __name__ == "__main__":
    main()
