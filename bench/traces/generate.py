"""Generate a Mooncake trace of agentic traffic: many sessions, each a run of turns that resend most of their
context.

    python -m bench.traces.generate --preset agentic -o trace.jsonl          # the seeds' shape: 64K / 400 / 76%
    python -m bench.traces.generate --preset cpu -o bench/traces/cpu_default.jsonl   # 2K / 64 / 76%
    python -m bench.traces.generate --preset cpu_agentic -o bench/traces/cpu_agentic.jsonl  # 0.5K..2.5K / 128
    python -m bench.traces.generate --preset cpu_agentic_small -o bench/traces/cpu_agentic_small.jsonl  # ..960 / 32
    python -m bench.traces.generate --preset agentic --scale 0.25 ...        # 16K / 100, same reuse

The shape: every request carries a context of about ``context`` tokens (±``length_jitter``). The first
``system_fraction`` of it is a system prompt shared by every session. A session's first turn is otherwise new;
each later turn keeps the first ``turn_reuse`` of the previous turn's blocks (history the agent resends) and
replaces the rest (new tool output and instructions). ``turn_reuse`` is solved from the target overall reuse, so
the trace's block reuse — the hit rate of an unbounded prefix cache replaying it in order — comes out at
``reuse`` (the sidecar records the measured value). Sessions start as a Poisson process; a session's turns are
``turn_gap_ms`` apart (tool and think time).

With ``first_context`` set, contexts grow instead, as an agent's do when every turn appends tool output to the
history it resends: turn ``t`` of ``turns`` is about ``first_context + (context - first_context) * t / (turns - 1)``
tokens, the system prompt is ``system_fraction`` of the first turn, and ``turn_reuse`` (the share of a turn's
blocks taken from the previous turn) is found by bisection on the generated trace itself, since growth makes the
kept share differ from turn to turn.
"""

from __future__ import annotations

import argparse
import itertools
import random
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from bench.traces.mooncake import TraceEntry, block_reuse, write_trace


@dataclass(frozen=True, slots=True)
class TraceShape:
    context: int = 65_536
    output: int = 400
    reuse: float = 0.76
    block_size: int = 512
    sessions: int = 16
    turns: int = 8
    system_fraction: float = 0.10
    length_jitter: float = 0.10
    output_jitter: float = 0.25
    session_interval_ms: int = 2_000
    turn_gap_ms: int = 15_000
    seed: int = 0
    first_context: int | None = None  # None: every turn about ``context`` tokens; else growing from this

    def scaled(self, factor: float) -> TraceShape:
        """Context and output scaled; reuse, block size and the session structure kept."""
        first = None if self.first_context is None else max(self.block_size, round(self.first_context * factor))
        return replace(self, context=max(self.block_size, round(self.context * factor)),
                       output=max(1, round(self.output * factor)), first_context=first)

    @property
    def turn_reuse(self) -> float:
        """Per-turn kept fraction so that (first turn: system prompt only, later turns: turn_reuse) averages to
        ``reuse`` over a session."""
        if self.turns == 1:
            return 0.0
        if self.first_context is not None:
            return _solve_turn_reuse(self)
        value = (self.reuse * self.turns - self.system_fraction) / (self.turns - 1)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"reuse {self.reuse} is out of reach with {self.turns} turns and a system prompt of "
                             f"{self.system_fraction:.0%} of the context")
        return value


PRESETS = {
    "agentic": TraceShape(),  # the seeds' agentic shape
    "cpu": TraceShape(context=2_048, output=64, block_size=64, sessions=16, turns=8, turn_gap_ms=5_000),
    # NIM's agentic shape cut to what two CPU cores serve: contexts growing 0.5K -> 2.5K over eight turns, a 256-token
    # shared system prompt, 128 output tokens (±25%), one second of tool/think time between turns.
    "cpu_agentic": TraceShape(context=2_560, first_context=512, output=128, block_size=64, sessions=24, turns=8,
                              system_fraction=0.5, session_interval_ms=1_000, turn_gap_ms=1_000),
    # The same shape at the size a shared 2-core VM replays in under an hour on every arm (the float32 baseline
    # prefills ~60 tokens/s there under load): contexts 192 -> 960 tokens, a 96-token system prompt, 32 output tokens.
    "cpu_agentic_small": TraceShape(context=960, first_context=192, output=32, block_size=32, sessions=24, turns=8,
                                    system_fraction=0.5, session_interval_ms=1_000, turn_gap_ms=1_000),
}


def _solve_turn_reuse(shape: TraceShape) -> float:
    """The kept fraction whose generated trace has block reuse ``shape.reuse`` (reuse grows with the fraction)."""
    low, high = 0.0, 1.0
    if block_reuse(_generate(shape, high)) < shape.reuse or block_reuse(_generate(shape, low)) > shape.reuse:
        raise ValueError(f"reuse {shape.reuse} is out of reach with {shape.turns} turns growing from "
                         f"{shape.first_context} to {shape.context} tokens")
    for _ in range(30):
        middle = (low + high) / 2
        low, high = (middle, high) if block_reuse(_generate(shape, middle)) < shape.reuse else (low, middle)
    return (low + high) / 2


def _turn_context(shape: TraceShape, turn: int) -> float:
    if shape.first_context is None or shape.turns == 1:
        return shape.context
    return shape.first_context + (shape.context - shape.first_context) * turn / (shape.turns - 1)


def generate(shape: TraceShape) -> list[TraceEntry]:
    return _generate(shape, shape.turn_reuse)


def _generate(shape: TraceShape, turn_reuse: float) -> list[TraceEntry]:
    rng = random.Random(shape.seed)
    ids = itertools.count()
    bs = shape.block_size
    system_tokens = (shape.first_context or shape.context) * shape.system_fraction
    system_blocks = [next(ids) for _ in range(max(0, round(system_tokens / bs)))]
    entries: list[TraceEntry] = []
    start = 0.0
    for session in range(shape.sessions):
        start += rng.expovariate(1.0 / shape.session_interval_ms) if session else 0.0
        previous: list[int] = []
        for turn in range(shape.turns):
            length = max(1, round(_turn_context(shape, turn)
                                  * rng.uniform(1 - shape.length_jitter, 1 + shape.length_jitter)))
            num_blocks = -(-length // bs)
            if turn == 0:
                keep = system_blocks[:num_blocks]
            else:
                keep = previous[: min(num_blocks, round(num_blocks * turn_reuse))]
                keep = keep if len(keep) >= len(system_blocks) else previous[: len(system_blocks)]
            blocks = keep + [next(ids) for _ in range(num_blocks - len(keep))]
            output = max(1, round(shape.output * rng.uniform(1 - shape.output_jitter, 1 + shape.output_jitter)))
            entries.append(TraceEntry(timestamp=round(start + turn * shape.turn_gap_ms), input_length=length,
                                      output_length=output, hash_ids=tuple(blocks), session_id=f"s{session}"))
            previous = blocks
    entries.sort(key=lambda e: e.timestamp)
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.traces.generate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--out", type=Path, required=True, help="the trace file (JSONL) to write")
    parser.add_argument("--preset", choices=sorted(PRESETS), default="agentic")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies context and output lengths")
    for name in ("context", "first_context", "output", "block_size", "sessions", "turns", "session_interval_ms",
                 "turn_gap_ms", "seed"):
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=None)
    parser.add_argument("--reuse", type=float, default=None, help="target block reuse, 0..1")
    args = parser.parse_args(argv)
    shape = PRESETS[args.preset]
    overrides = {k: v for k, v in vars(args).items() if k in TraceShape.__dataclass_fields__ and v is not None}
    shape = replace(shape, **overrides).scaled(args.scale)
    entries = generate(shape)
    measured = block_reuse(entries)
    write_trace(args.out, entries, {"format": "mooncake_trace", "block_size": shape.block_size,
                                       "generator": "bench.traces.generate", "preset": args.preset,
                                       "scale": args.scale, "shape": asdict(shape),
                                       "turn_reuse": round(shape.turn_reuse, 4),
                                       "measured_block_reuse": round(measured, 4), "requests": len(entries)})
    mean_in = sum(e.input_length for e in entries) / len(entries)
    mean_out = sum(e.output_length for e in entries) / len(entries)
    print(f"{args.out}: {len(entries)} requests, {shape.sessions} sessions x {shape.turns} turns, "
          f"mean input {mean_in:.0f} / output {mean_out:.0f} tokens, block reuse {measured:.1%} "
          f"(block size {shape.block_size})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
