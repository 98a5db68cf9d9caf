"""``bench.serve_profile``: exclusive CPU time per part, the trace's sessions replayed as its agents send them, and
one end-to-end profile of a real engine on a tiny trace."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bench.serve_profile import PartClock, Replay
from bench.serve_profile import main as profile_main
from bench.traces.generate import main as generate_main
from bench.traces.mooncake import TraceEntry, read_trace
from engine.tokenization import detokenizer


def _burn(seconds: float) -> None:
    until = time.thread_time() + seconds
    while time.thread_time() < until:
        pass


def test_a_nested_part_is_not_counted_in_the_part_around_it() -> None:
    clock = PartClock()
    began = time.thread_time()
    with clock.part("outer"):
        _burn(0.02)
        with clock.part("inner"):
            _burn(0.06)
        _burn(0.02)
    total = time.thread_time() - began
    assert clock.cpu["inner"] >= 0.06 and 0.04 <= clock.cpu["outer"] < 0.06
    assert clock.cpu["outer"] + clock.cpu["inner"] == pytest.approx(total, abs=0.005)
    assert clock.calls == {"outer": 1, "inner": 1}


def test_wrapped_calls_are_timed_under_the_name_they_return_at_call_time() -> None:
    clock = PartClock()
    kind = ["decode"]
    timed = clock.wrap(lambda: f"forward: {kind[0]}", _burn)
    timed(0.01)
    kind[0] = "prefill"
    timed(0.01)
    timed(0.01)
    assert clock.calls == {"forward: decode": 1, "forward: prefill": 2}


def _entries(sessions: int, turns: int) -> list[TraceEntry]:
    return [TraceEntry(timestamp=t * 1000 + s, input_length=100, output_length=4, hash_ids=(s,), session_id=f"s{s}")
            for t in range(turns) for s in range(sessions)]


def test_the_replay_holds_a_slot_per_answering_session_and_keeps_turns_in_order() -> None:
    entries = _entries(sessions=3, turns=2)
    plan = Replay(entries, concurrency=2, think_s=1.0)
    first = plan.due(0.0)
    assert [entries[i].session_id for i in first] == ["s0", "s1"]  # earliest sessions first, two slots
    assert plan.due(0.0) == []  # no slot free
    plan.answered(first[0], now=5.0)  # s0 answered: thinks until 6.0, its slot goes to s2 meanwhile
    third = plan.due(5.0)
    assert [entries[i].session_id for i in third] == ["s2"]
    assert plan.due(5.5) == [] and plan.next_ready() == 6.0
    plan.answered(first[1], now=5.5)
    again = plan.due(6.0)  # s0's second turn is due (its think is over), s1 still thinks
    assert [(entries[i].session_id, entries[i].timestamp // 1000) for i in again] == [("s0", 1)]
    assert not plan.done()


@pytest.mark.slow
def test_the_profile_runs_on_a_tiny_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real model, eager (the exact profile: nothing to compile), two sessions of two turns."""
    trace = tmp_path / "tiny.jsonl"
    assert generate_main(["--preset", "cpu", "--context", "160", "--output", "4", "--sessions", "2", "--turns", "2",
                          "--reuse", "0.5", "--turn-gap-ms", "100", "-o", str(trace)]) == 0
    out = tmp_path / "profile.json"
    push = detokenizer.IncrementalDetokenizer.push
    assert profile_main(["--engine", "baseline", "--trace", str(trace), "--concurrency", "2", "--requests", "4",
                         "--think", "0", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    entries, _ = read_trace(trace)
    assert report["output_tokens"] == sum(e.output_length for e in entries)  # ignore_eos: the trace's lengths
    parts = report["parts_cpu_s"]
    assert parts["forward: prefill steps"] > 0 and parts["tokenize"] > 0 and parts["scheduler"] > 0
    assert 0 < parts["  of which attention (prefill, kernel replay)"] < parts["forward: prefill steps"]
    # Without a prefix cache (the baseline) every prompt token is computed, in steps of prompt chunks.
    assert report["steps"]["prefill"] >= 2 and report["steps"]["decode"] > 0
    assert report["step_tokens"]["prefill"] >= 0.9 * sum(e.input_length for e in entries)
    assert "forward: prefill steps" in capsys.readouterr().out
    assert detokenizer.IncrementalDetokenizer.push is push  # the timing wrapper is gone with the profile
