"""The Mooncake trace format and the agentic trace generator: shape, reuse, scaling, the shipped CPU trace."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from bench.traces.generate import PRESETS, TraceShape, generate
from bench.traces.generate import main as generate_main
from bench.traces.mooncake import TraceEntry, block_reuse, meta_path, read_trace, sessions_subset, write_trace

SHIPPED = Path(__file__).resolve().parents[2] / "bench" / "traces" / "cpu_default.jsonl"


def test_agentic_preset_has_the_seeds_shape() -> None:
    entries = generate(replace(PRESETS["agentic"], sessions=6))
    mean_in = sum(e.input_length for e in entries) / len(entries)
    mean_out = sum(e.output_length for e in entries) / len(entries)
    assert abs(mean_in - 65_536) / 65_536 < 0.05
    assert abs(mean_out - 400) / 400 < 0.1
    assert abs(block_reuse(entries) - 0.76) < 0.02
    for entry in entries:
        assert len(entry.hash_ids) == -(-entry.input_length // 512)


@pytest.mark.parametrize("scale", [0.25, 1 / 32])
def test_scaling_keeps_reuse_and_shrinks_lengths(scale: float) -> None:
    shape = PRESETS["agentic"].scaled(scale)
    entries = generate(replace(shape, block_size=64))
    assert shape.context == round(65_536 * scale) and shape.output == round(400 * scale)
    assert abs(block_reuse(entries) - 0.76) < 0.03


def test_sessions_resend_their_history_and_share_the_system_prompt() -> None:
    shape = TraceShape(context=1024, output=16, block_size=64, sessions=3, turns=4, reuse=0.6)
    entries = generate(shape)
    by_session: dict[str, list[TraceEntry]] = {}
    for entry in entries:
        by_session.setdefault(entry.session_id or "", []).append(entry)
    system = entries[0].hash_ids[: round(1024 * 0.1 / 64)]
    for turns in by_session.values():
        assert [t.timestamp for t in turns] == sorted(t.timestamp for t in turns)
        assert all(t.hash_ids[: len(system)] == system for t in turns)
        for before, after in itertools.pairwise(turns):
            kept = 0
            while kept < min(len(before.hash_ids), len(after.hash_ids)) and \
                    before.hash_ids[kept] == after.hash_ids[kept]:
                kept += 1
            assert kept >= round(len(after.hash_ids) * shape.turn_reuse) - 1
    # Blocks are never shared across sessions beyond the system prompt.
    firsts = [set(turns[0].hash_ids) - set(system) for turns in by_session.values()]
    assert not set.intersection(*firsts)


def test_unreachable_reuse_is_refused() -> None:
    with pytest.raises(ValueError, match="out of reach"):
        _ = TraceShape(reuse=0.99, turns=2).turn_reuse


def test_write_read_round_trip_and_sidecar(tmp_path: Path) -> None:
    entries = generate(TraceShape(context=300, output=8, block_size=64, sessions=2, turns=2, reuse=0.4))
    path = tmp_path / "t.jsonl"
    write_trace(path, entries, {"block_size": 64})
    loaded, meta = read_trace(path)
    assert loaded == entries and meta["block_size"] == 64
    line = json.loads(path.read_text().splitlines()[0])
    assert set(line) == {"timestamp", "input_length", "output_length", "hash_ids", "session_id"}
    meta_path(path).unlink()
    with pytest.raises(ValueError, match="do not cover"):  # AIPerf's default block size does not fit this trace
        read_trace(path)


def test_plain_mooncake_lines_are_read(tmp_path: Path) -> None:
    path = tmp_path / "mooncake.jsonl"
    path.write_text('{"timestamp": 105, "input_length": 1800, "output_length": 26, "hash_ids": [0, 3, 4, 5]}\n'
                    '{"timestamp": 0, "input_length": 1200, "output_length": 52, "hash_ids": [0, 1, 2]}\n')
    entries, meta = read_trace(path)
    assert meta["block_size"] == 512 and [e.timestamp for e in entries] == [0, 105]
    assert entries[0].session_id is None and block_reuse(entries) == pytest.approx(1 / 7)
    path.write_text('{"timestamp": 0, "input_length": 0, "output_length": 5}\n')
    with pytest.raises(ValueError, match=":1:"):
        read_trace(path)


def test_sessions_subset_takes_whole_sessions_in_order() -> None:
    entries = generate(TraceShape(context=256, output=4, block_size=64, sessions=5, turns=4))
    subset = sessions_subset(entries, 2, max_turns=3)
    sessions = {e.session_id for e in subset}
    assert len(subset) == 6 and sessions == {"s0", "s1"}
    assert [e.timestamp for e in subset] == sorted(e.timestamp for e in subset)
    loose = [replace(e, session_id=None) for e in entries[:5]]
    assert sessions_subset(loose, 3) == loose[:3]


def test_shipped_cpu_trace_is_the_generator_output(tmp_path: Path) -> None:
    shipped, meta = read_trace(SHIPPED)
    assert generate_main(["--preset", "cpu", "-o", str(tmp_path / "cpu.jsonl")]) == 0
    regenerated, _ = read_trace(tmp_path / "cpu.jsonl")
    assert shipped == regenerated
    mean_in = sum(e.input_length for e in shipped) / len(shipped)
    mean_out = sum(e.output_length for e in shipped) / len(shipped)
    assert 1900 < mean_in < 2200 and 58 < mean_out < 72
    assert abs(meta["measured_block_reuse"] - 0.76) < 0.01


def test_growing_contexts_resend_the_history_and_reach_the_reuse() -> None:
    shape = PRESETS["cpu_agentic"]
    entries = generate(shape)
    assert abs(block_reuse(entries) - 0.76) < 0.005  # the solved kept share lands on the target
    by_session: dict[str, list[TraceEntry]] = {}
    for entry in entries:
        by_session.setdefault(entry.session_id or "", []).append(entry)
    system = entries[0].hash_ids[:4]  # half of the 512-token first turn, in 64-token blocks
    for turns in by_session.values():
        lengths = [t.input_length for t in turns]
        assert 460 <= lengths[0] <= 564 and 2300 <= lengths[-1] <= 2816
        assert sum(lengths[4:]) > sum(lengths[:4])  # later turns are longer
        assert all(t.hash_ids[:4] == system for t in turns)
        for before, after in itertools.pairwise(turns):  # most of the previous turn comes back, in order
            assert after.hash_ids[: len(before.hash_ids) // 2] == before.hash_ids[: len(before.hash_ids) // 2]
    with pytest.raises(ValueError, match="out of reach"):
        _ = replace(shape, turns=4).turn_reuse


def test_scaling_a_growing_trace_scales_its_first_context() -> None:
    shape = PRESETS["cpu_agentic"].scaled(0.5)
    assert (shape.first_context, shape.context, shape.output) == (256, 1280, 64)


@pytest.mark.parametrize("preset", ["cpu_agentic", "cpu_agentic_small"])
def test_shipped_agentic_traces_are_the_generator_output(tmp_path: Path, preset: str) -> None:
    shipped, meta = read_trace(SHIPPED.with_name(f"{preset}.jsonl"))
    assert generate_main(["--preset", preset, "-o", str(tmp_path / "agentic.jsonl")]) == 0
    regenerated, _ = read_trace(tmp_path / "agentic.jsonl")
    assert shipped == regenerated and meta["requests"] == 192
    assert abs(meta["measured_block_reuse"] - 0.76) < 0.01
