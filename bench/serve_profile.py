"""Where the serve benchmark's engine spends its CPU time: the agentic trace replayed straight into one engine (no
HTTP, no gateway), each part of the step loop timed in the calling thread's CPU time.

    python -m bench.serve_profile [--engine optimized] [--concurrency 4] [--requests 48] [--think 1.0]
                                  [--set FIELD=VALUE ...] [--json PATH]

The sessions are the ones ``bench.serve`` replays at that concurrency (``level_entries``), their prompts the same
synthesized chat prompts (salt 1), greedy, ``ignore_eos``, ``max_tokens`` from the trace. Up to ``--concurrency``
sessions have a turn in the engine at once; a session's next turn enters ``--think`` seconds after its previous
answer ended (the trace's agent think time; 0 keeps the engine saturated). The engine is ``bench.serve``'s
``ENGINES[--engine]`` with ``--set`` overrides; a compiled engine compiles (or loads from its compile cache) before
the replay.

Parts (exclusive CPU time: a part nested in another is not counted twice):

- tokenize: the chat template and the prompt's encoding (the gateway's work before the engine sees the request);
- scheduler: ``Scheduler.schedule``; speculation: proposing, writing and verifying drafts (exclusive of the tokens it
  appends); step inputs: flattening the batch into tensors; sampling: sampling tensors and the sampler; LM head:
  ``compute_logits``; detokenize: the incremental detokenizer; outputs: appending tokens, stop checks and the
  request outputs; other engine python: the rest of ``LLMEngine.step``;
- forward (decoder layers), split by the step's kind: ``decode`` steps (every sequence computes its last token, with
  or without draft rows) and ``prefill`` steps (at least one prompt chunk, decodes beside it included).

Inside the compiled forward the kernels run from the graph's C++ wrapper, out of Python's reach, so the attention
share is measured after the replay instead: every step's attention metadata is kept and its layers' store and
attention are called again as the graph calls them (``warden_cpu::attend_step`` in the step's forward context) on
the engine's own cache (same block tables, same lengths), random queries; the forward's remainder is the linears and
the elementwise work around them. Likewise the linears are timed after the replay by calling each decoder linear
module on as many rows as each step had (eager: a few microseconds of Python each, which overstates tiny decode
steps a little). Those replays write into the engine's cache: the engine serves nothing after them.

Figures are CPU seconds of the engine's thread and their share of the whole; on a loaded machine the shares hold
better than the seconds. Nothing is written unless ``--json``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from bench.serve import COMMON, DEFAULT_TRACE, ENGINES, level_entries, parse_overrides, think_time_s
from bench.serve_prompts import PromptSynthesizer
from bench.serve_reuse import ReuseTally
from bench.traces.mooncake import TraceEntry, read_trace
from engine.config import EngineConfig
from engine.layers.attention import PagedAttention
from engine.layers.linear import Linear
from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.scheduling.scheduler import ScheduledBatch
from engine.tokenization import detokenizer
from engine.worker.forward_context import forward_context
from kernels import dispatch
from kernels.attention_metadata import AttentionMetadata


class PartClock:
    """Exclusive CPU time per named part: entering a part pauses the one it is nested in."""

    def __init__(self) -> None:
        self.cpu: defaultdict[str, float] = defaultdict(float)
        self.calls: defaultdict[str, int] = defaultdict(int)
        self._stack: list[list[Any]] = []  # [name, CPU time it last resumed at]

    @contextmanager
    def part(self, name: str) -> Iterator[None]:
        now = time.thread_time()
        if self._stack:
            outer = self._stack[-1]
            self.cpu[outer[0]] += now - outer[1]
        self._stack.append([name, now])
        try:
            yield
        finally:
            now = time.thread_time()
            inner = self._stack.pop()
            self.cpu[name] += now - inner[1]
            self.calls[name] += 1
            if self._stack:
                self._stack[-1][1] = now

    def wrap(self, name: str | Callable[[], str], fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.part(name() if callable(name) else name):
                return fn(*args, **kwargs)

        return timed


@dataclass(slots=True)
class StepRecord:
    kind: str  # "decode" or "prefill"
    num_tokens: int
    meta: AttentionMetadata


@dataclass
class Replay:
    """The sessions' turns, fed into the engine as the trace's agents would send them."""

    entries: list[TraceEntry]
    concurrency: int
    think_s: float
    pending: dict[str, list[int]] = field(default_factory=dict)  # session -> indexes of its turns not yet sent
    ready_at: dict[str, float] = field(default_factory=dict)  # session -> when its next turn may be sent
    active: set[str] = field(default_factory=set)  # sessions with a turn in the engine
    order: list[str] = field(default_factory=list)  # sessions, earliest first

    def __post_init__(self) -> None:
        for index, entry in enumerate(self.entries):
            session = entry.session_id or f"request-{index}"
            if session not in self.pending:
                self.pending[session] = []
                self.order.append(session)
                self.ready_at[session] = 0.0
            self.pending[session].append(index)

    def due(self, now: float) -> list[int]:
        """Turns to send now: the earliest sessions whose think time is over, up to the free slots."""
        turns = []
        for session in self.order:
            if len(self.active) >= self.concurrency:
                break
            if session not in self.active and self.pending[session] and self.ready_at[session] <= now:
                self.active.add(session)
                turns.append(self.pending[session].pop(0))
        return turns

    def answered(self, index: int, now: float) -> None:
        session = self.entries[index].session_id or f"request-{index}"
        self.active.discard(session)
        self.ready_at[session] = now + self.think_s

    def next_ready(self) -> float | None:
        waiting = [self.ready_at[s] for s in self.order if s not in self.active and self.pending[s]]
        return min(waiting) if waiting else None

    def done(self) -> bool:
        return not self.active and not any(self.pending.values())


def instrument(engine: LLMEngine, clock: PartClock, steps: list[StepRecord]) -> Callable[[], None]:
    """Time the engine's parts in place: instance attributes, and the detokenizer's class (every request builds its
    own); returns what puts the class back."""
    runner = engine.runner
    kind = ["decode"]

    engine.step = clock.wrap("other engine python", engine.step)  # type: ignore[method-assign]
    engine.scheduler.schedule = clock.wrap("scheduler", engine.scheduler.schedule)  # type: ignore[method-assign]
    engine._append_token = clock.wrap("outputs", engine._append_token)  # type: ignore[method-assign]
    if engine.speculator is not None:
        spec = engine.speculator
        for method in ("propose", "write_drafts", "verify", "step_cost_table", "finished"):
            setattr(spec, method, clock.wrap("speculation", getattr(spec, method)))

    execute = runner.execute

    def classified_execute(batch: ScheduledBatch, *args: Any, **kwargs: Any) -> Any:
        prefill = any(n > 1 + len(s.spec_token_ids) for s, n in zip(batch.seqs, batch.num_new_tokens, strict=True))
        kind[0] = "prefill" if prefill else "decode"
        return execute(batch, *args, **kwargs)

    runner.execute = clock.wrap("other engine python", classified_execute)  # type: ignore[method-assign]
    prepare_inputs = runner.prepare_inputs

    def recorded_inputs(batch: ScheduledBatch, *args: Any, **kwargs: Any) -> Any:
        inputs = prepare_inputs(batch, *args, **kwargs)
        steps.append(StepRecord(kind[0], batch.num_tokens, inputs.meta))
        return inputs

    runner.prepare_inputs = clock.wrap("step inputs", recorded_inputs)  # type: ignore[method-assign]
    runner.prepare_sampling = clock.wrap("sampling", runner.prepare_sampling)  # type: ignore[method-assign]
    runner.sampler = clock.wrap("sampling", runner.sampler)  # type: ignore[assignment]
    forward_part = lambda: f"forward: {kind[0]} steps"  # noqa: E731
    if runner.compiled is not None:
        runner.compiled = _TimedModel(runner.compiled, clock, forward_part)  # type: ignore[assignment]
    model = runner.model
    model.forward = clock.wrap(forward_part, model.forward)  # type: ignore[method-assign]
    model.compute_logits = clock.wrap("LM head", model.compute_logits)  # type: ignore[method-assign]
    push = detokenizer.IncrementalDetokenizer.push
    detokenizer.IncrementalDetokenizer.push = clock.wrap("detokenize", push)  # type: ignore[method-assign]

    def restore() -> None:
        detokenizer.IncrementalDetokenizer.push = push  # type: ignore[method-assign]

    return restore


class _TimedModel:
    """A compiled model whose forward and logits are timed (``ModelRunner`` calls both through ``compiled``)."""

    def __init__(self, inner: Any, clock: PartClock, forward_part: Callable[[], str]) -> None:
        self._inner = inner
        self._call = clock.wrap(forward_part, inner)
        self.compute_logits = clock.wrap("LM head", inner.compute_logits)

    def __call__(self, *args: Any) -> Any:
        return self._call(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def replay(engine: LLMEngine, synth: PromptSynthesizer, entries: list[TraceEntry], concurrency: int,
           think_s: float, clock: PartClock, reuse: ReuseTally) -> tuple[float, float, int]:
    """Run every turn to its end; returns the wall seconds, the engine thread's CPU seconds and output tokens;
    ``reuse`` tallies each prompt's ideal prefix reuse and the prefix cache's hits."""
    plan = Replay(entries, concurrency, think_s)
    request_of: dict[str, int] = {}
    outputs = 0
    start, cpu_start = time.perf_counter(), time.thread_time()
    while not plan.done():
        now = time.perf_counter() - start
        for index in plan.due(now):
            entry = entries[index]
            with clock.part("tokenize"):
                rendered = synth.tokenizer.apply_chat_template(synth.messages(entry, salt=1))
                prompt = synth.tokenizer.encode(rendered)
            params = SamplingParams(temperature=0.0, max_tokens=entry.output_length, ignore_eos=True)
            request_id = f"turn-{index}"
            request_of[request_id] = index
            reuse.sent(request_id, prompt)
            engine.add_request(EngineRequest(request_id, prompt, params, cache_salt="tenant", tenant="tenant"))
        if not engine.has_unfinished_requests():
            ready = plan.next_ready()
            if ready is not None:
                time.sleep(max(0.0, ready - (time.perf_counter() - start)))
            continue
        for out in engine.step():
            outputs += len(out.token_ids)
            if out.finished:
                reuse.finished(out.request_id, out.usage.cached_tokens if out.usage is not None else 0)
                plan.answered(request_of[out.request_id], time.perf_counter() - start)
    return time.perf_counter() - start, time.thread_time() - cpu_start, outputs


def attention_cpu(engine: LLMEngine, steps: list[StepRecord]) -> dict[str, float]:
    """Each recorded step's store and attention over every layer, called again on the engine's cache as the compiled
    graph calls them (``warden_cpu::attend_step`` inside the step's forward context, else ``warden::paged_attention``):
    CPU seconds per step kind, the context's per-step setup included."""
    runner = engine.runner
    layers = [m for m in engine.model.modules() if isinstance(m, PagedAttention)]
    in_cpp = dispatch.cpu_attention_step_runs()
    spent: defaultdict[str, float] = defaultdict(float)
    with torch.inference_mode():
        for step in steps:
            n = step.num_tokens
            first = layers[0]
            q = torch.randn(n, first.num_heads, first.head_dim, dtype=engine.dtype)
            k = torch.randn(n, first.num_kv_heads, first.head_dim, dtype=engine.dtype)
            v = torch.randn_like(k)
            began = time.thread_time()
            with forward_context(step.meta, runner.kv_caches):
                for layer in layers:
                    if in_cpp and layer.block_sparse is None:
                        torch.ops.warden_cpu.attend_step(q, k, v, layer.layer_index, layer.scale,
                                                         layer.sliding_window, layer.softcap)
                    else:
                        sparse = layer.block_sparse.as_ints() if layer.block_sparse is not None else []
                        torch.ops.warden.paged_attention(q, k, v, layer.layer_index, layer.scale,
                                                         layer.sliding_window, layer.softcap, sparse)
            spent[step.kind] += time.thread_time() - began
    return dict(spent)


def linears_cpu(engine: LLMEngine, steps: list[StepRecord]) -> dict[str, float]:
    """Each recorded step's decoder linears (every layer's), called again eagerly on as many rows: CPU seconds per
    step kind."""
    cfg = engine.model.config
    linears: list[tuple[Linear, int]] = []  # (module, its input width); the dense weight may be gone
    for name, module in engine.model.named_modules():
        if isinstance(module, Linear) and ".layers." in f".{name}":
            widths = {"o_proj": cfg.num_attention_heads * cfg.head_dim, "down_proj": cfg.intermediate_size}
            linears.append((module, widths.get(name.rsplit(".", 1)[-1], cfg.hidden_size)))
    spent: defaultdict[str, float] = defaultdict(float)
    inputs: dict[tuple[int, int], torch.Tensor] = {}
    with torch.inference_mode():
        for step in steps:
            for linear, width in linears:
                shape = (step.num_tokens, width)
                if shape not in inputs:
                    inputs[shape] = torch.randn(shape, dtype=engine.dtype)
                x = inputs[shape]
                began = time.thread_time()
                linear(x)
                spent[step.kind] += time.thread_time() - began
    return dict(spent)


def report(parts: dict[str, float], wall_s: float, cpu_s: float, outputs: int) -> str:
    lines = [f"wall {wall_s:.1f} s, engine thread CPU {cpu_s:.1f} s, {outputs} output tokens",
             f"{'part':<44}{'CPU s':>9}{'share':>8}"]
    total = sum(v for k, v in parts.items() if not k.startswith("  "))
    for name, seconds in parts.items():
        lines.append(f"{name:<44}{seconds:>9.2f}{seconds / total:>8.1%}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="optimized", choices=sorted(ENGINES))
    parser.add_argument("--trace", type=Path, default=DEFAULT_TRACE)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--think", type=float, default=None, help="seconds (default: the trace's think time)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="override an EngineConfig field (JSON value, else a string)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    entries, meta = read_trace(args.trace)
    chosen = level_entries(entries, args.concurrency, args.requests, None)
    think = think_time_s(entries) if args.think is None else args.think
    overrides = parse_overrides([f"{args.engine}.{item}" for item in args.set]).get(args.engine, {})
    config = EngineConfig(**{**COMMON, "num_threads": args.threads, **ENGINES[args.engine], **overrides})
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    engine = LLMEngine(config)
    print(f"engine ready in {time.perf_counter() - started:.0f} s; {len(chosen)} turns, concurrency "
          f"{args.concurrency}, think {think} s", flush=True)
    synth = PromptSynthesizer(engine.tokenizer, int(meta.get("block_size", 32)))
    # One warm-up turn outside the profile (first-call costs), its prefix salted apart from the trace's.
    warm = EngineRequest("warm-up", engine.tokenizer.encode(engine.tokenizer.apply_chat_template(
        synth.messages(chosen[0], salt=10**6))), SamplingParams(temperature=0.0, max_tokens=8, ignore_eos=True))
    engine.add_request(warm)
    while engine.has_unfinished_requests():
        engine.step()

    clock = PartClock()
    steps: list[StepRecord] = []
    restore = instrument(engine, clock, steps)
    reuse = ReuseTally(engine.block_size)
    try:
        wall, cpu, outputs = replay(engine, synth, chosen, args.concurrency, think, clock, reuse)
    finally:
        restore()
    attention = attention_cpu(engine, steps)
    linears = linears_cpu(engine, steps)
    engine.shutdown()

    parts = dict(sorted(clock.cpu.items(), key=lambda item: -item[1]))
    for kind in ("prefill", "decode"):
        name = f"forward: {kind} steps"
        if name in parts:
            parts[f"  of which attention ({kind}, kernel replay)"] = attention.get(kind, 0.0)
            parts[f"  of which linears ({kind}, eager replay)"] = linears.get(kind, 0.0)
    counts = {kind: sum(1 for s in steps if s.kind == kind) for kind in ("prefill", "decode")}
    tokens = {kind: sum(s.num_tokens for s in steps if s.kind == kind) for kind in ("prefill", "decode")}
    text = report(parts, wall, cpu, outputs)
    text += "\n" + ", ".join(f"{counts[k]} {k} steps ({tokens[k]} tokens)" for k in counts)
    text += "\n" + reuse.line()
    print(text)
    if args.json is not None:
        args.json.write_text(json.dumps({"wall_s": wall, "cpu_s": cpu, "output_tokens": outputs, "parts_cpu_s": parts,
                                         "steps": counts, "step_tokens": tokens, "prefix_reuse": reuse.as_dict(),
                                         "concurrency": args.concurrency,
                                         "think_s": think, "engine": args.engine, "overrides": overrides},
                                        indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
