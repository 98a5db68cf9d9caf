"""Where int8-quantized inputs cost the int4 linears agreement with float32, per linear kind, and why.

    python -m bench.int8_inputs [--prompts 48] [--round 7] [--routes none,all,...] [--out PATH]

The int4 layers take their inputs two ways (``engine.layers.linear``): the int8-input kernel (``kernels.cpu``'s
``int4_linear``: each row quantized per 32 inputs, one level) up to ``cpu_small_batch_rows`` rows, and the bf16
GEMM (inputs unquantized) above. ``bench.agreement`` scores the two for the whole model; this measures what each
linear kind (``qkv_proj``, ``o_proj``, ``gate_up_proj``, ``down_proj``) adds, in one eager engine whose layers are
re-routed between scorings (the kernel row bound is read per call), so every route runs the same weights:

* teacher-forced prefill against float32 (``bench.teacher_forcing``: top-1 agreement and mean KL per position) per
  route: ``none`` (every layer on the bf16 GEMM), ``all`` (every layer on the int8-input kernel), ``only:KIND``,
  ``except:KIND``, and ``two-level:all`` (the kernel's two-level inputs, ``int4_linear_two_level``, at every row
  count);
* per kind, on the inputs the layers see in a prefill of the same prompts, the output error of input quantization
  variants relative to the bf16-input output (``kernels.reference.quantized_linear``): one level per 32 inputs (the
  kernel), per 16, two levels, and one level per 32 with the outlier channels (amax over 20x the median channel's)
  kept exact; beside them the bf16 rounding of the output, the error the bf16 GEMM's own output carries.

Prefill shape only: the decode shapes route the same kernels by batch rows (``bench.agreement`` has them).
"""

from __future__ import annotations

import argparse
import gc
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import torch

from bench.engine import prompts
from bench.provenance import write_results
from bench.teacher_forcing import agreement, teacher_forced_logprobs
from engine.config import EngineConfig
from engine.layers.linear import INT4_GROUP_SIZE, Linear
from engine.llm import LLM
from engine.sampling_params import SamplingParams
from kernels.reference.quantized_linear import dequantize_int4, quantize_rows_int8

ALL_ROWS = 4096  # a kernel row bound above any step here: the int8-input kernel serves every row count
OUTLIER_FACTOR = 20.0


def kind_of(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def float32_reference(batch_size: int, round_: int, max_tokens: int) -> tuple[list[list[int]], list[list[int]],
                                                                              list[torch.Tensor]]:
    """The prompts, float32's greedy outputs, and its teacher-forced log-probabilities on them."""
    llm = LLM(EngineConfig(dtype="float32", show_progress=False, compile_model=False, max_num_seqs=batch_size,
                           max_num_batched_tokens=max(1024, batch_size * 64)))
    batch = prompts(llm.tokenizer, batch_size, round_)
    params = SamplingParams(max_tokens=max_tokens, temperature=0, ignore_eos=True)
    outputs = [list(o.token_ids) for o in llm.generate(batch, params)]
    logprobs = teacher_forced_logprobs(llm, batch, outputs)
    llm.close()
    del llm
    gc.collect()
    return batch, outputs, logprobs


def route(linears: dict[str, Linear], int8_kinds: set[str], levels: int,
          kernel_up_to: Any) -> None:
    """The layers of ``int8_kinds`` on the int8-input kernel (``levels`` 1 or 2) at every row count, the rest on
    the bf16 GEMM above one row."""
    def two_level(x: torch.Tensor, packed: torch.Tensor, group: int, scales: torch.Tensor, rows: int) -> torch.Tensor:
        return torch.ops.warden_cpu.int4_linear_two_level(x, packed, group, scales)

    for name, module in linears.items():
        chosen = kind_of(name) in int8_kinds
        module.quant_kernel_rows = ALL_ROWS if chosen else 1
        module.quant_kernel_up_to = two_level if chosen and levels == 2 else kernel_up_to


def route_kinds(spec: str, kinds: list[str]) -> tuple[set[str], int]:
    if spec == "none":
        return set(), 1
    if spec == "all":
        return set(kinds), 1
    if spec == "two-level:all":
        return set(kinds), 2
    mode, _, kind = spec.partition(":")
    if kind not in kinds or mode not in ("only", "except"):
        raise ValueError(f"unknown route {spec!r}: none, all, two-level:all, only:KIND or except:KIND, KIND in "
                         f"{kinds}")
    return ({kind} if mode == "only" else set(kinds) - {kind}), 1


def input_error_table(llm: LLM, linears: dict[str, Linear], batch: list[list[int]]) -> dict[str, dict[str, float]]:
    """Per kind, means over layers: each quantization variant's output error relative to the bf16-input output
    (float32 accumulation), the bf16 rounding of that output, the largest channel amax over the median one."""
    captured: dict[str, list[torch.Tensor]] = defaultdict(list)
    hooks = [module.register_forward_pre_hook(
        lambda _m, args, name=name: captured[name].append(args[0].detach().float().clone()))
        for name, module in linears.items()]
    try:
        llm.generate(batch, SamplingParams(max_tokens=1, temperature=0))
    finally:
        for hook in hooks:
            hook.remove()
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for name, module in linears.items():
        x = torch.cat([c for c in captured[name] if c.shape[0] > 1])  # prefill steps only
        assert module.quant_weight is not None and module.quant_scales is not None
        weight = dequantize_int4(module.quant_weight, INT4_GROUP_SIZE, module.quant_scales, x.shape[1])
        exact = x @ weight.t()
        norm = exact.norm()
        channel_amax = x.abs().amax(0)
        outliers = (channel_amax > OUTLIER_FACTOR * channel_amax.median()).nonzero().flatten()
        kept = quantize_rows_int8(x, 32, 1)
        kept[:, outliers] = x[:, outliers]
        variants = {"int8/32": quantize_rows_int8(x, 32, 1), "int8/16": quantize_rows_int8(x, 16, 1),
                    "int8/32 two-level": quantize_rows_int8(x, 32, 2), "int8/32 outliers exact": kept}
        row = table[kind_of(name)]
        for label, quantized in variants.items():
            row[label].append(float((quantized @ weight.t() - exact).norm() / norm))
        row["bf16 output rounding"].append(float((exact.bfloat16().float() - exact).norm() / norm))
        row["channel amax max/median"].append(float(channel_amax.max() / channel_amax.median()))
        row["outlier channels"].append(float(len(outliers)))
    return {kind: {label: round(sum(v) / len(v), 5) for label, v in row.items()} for kind, row in table.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=48)
    parser.add_argument("--round", type=int, default=7, help="bench.engine.prompts' round: another prompt set")
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--routes", default=None, help="comma-separated routes (default: none, all, two-level:all, "
                        "only:KIND and except:KIND for every kind)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "int8_inputs.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    batch, outputs, reference = float32_reference(args.prompts, args.round, args.max_tokens)
    llm = LLM(EngineConfig(dtype="bfloat16", quantization="int4", show_progress=False, compile_model=False,
                           kv_cache_memory_mb=512, max_num_seqs=args.prompts,
                           max_num_batched_tokens=max(1024, args.prompts * 64), int8_max_rows=ALL_ROWS,
                           cpu_small_batch_rows=ALL_ROWS))
    linears = {name: module for name, module in llm.engine.runner.model.named_modules()
               if isinstance(module, Linear) and module.quant_kind == "int4"}
    kinds = sorted({kind_of(name) for name in linears})
    kernel_up_to = next(iter(linears.values())).quant_kernel_up_to
    if kernel_up_to is None:
        parser.error("kernels.cpu's int4 kernel does not run on this CPU")
    routes = args.routes.split(",") if args.routes else \
        ["none", "all", "two-level:all"] + [f"only:{k}" for k in kinds] + [f"except:{k}" for k in kinds]
    scores: dict[str, Any] = {}
    print(f"{'route':<22} {'top-1 %':>8} {'mean KL':>9} {'KL p99':>8}   (teacher-forced prefill vs float32)")
    for spec in routes:
        route(linears, *route_kinds(spec, kinds), kernel_up_to)
        scores[spec] = agreement(teacher_forced_logprobs(llm, batch, outputs), reference)
        print(f"{spec:<22} {scores[spec]['top1']:>8.2f} {scores[spec]['kl_mean']:>9.5f} "
              f"{scores[spec]['kl_p99']:>8.4f}", flush=True)
    route(linears, set(), 1, kernel_up_to)
    errors = input_error_table(llm, linears, batch[:8])
    llm.close()
    print("\noutput error relative to the bf16-input output, mean over layers:")
    for kind, row in errors.items():
        print(f"{kind:<14} " + "  ".join(f"{label} {value:g}" for label, value in row.items()))
    write_results(args.out, {"teacher_forced_prefill": scores, "input_quantization_error": errors,
                             "settings": {"prompts": args.prompts, "round": args.round,
                                          "max_tokens": args.max_tokens, "threads": args.threads,
                                          "eager": True, "torch": torch.__version__}})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
