"""bench.guarded_overhead: every phase's prompts are new to the server, and a phase's CPU is its medians'."""

from __future__ import annotations

import json

from bench.guarded_overhead import _medians, fresh_bodies, parse_args


def _user_texts(bodies: list[bytes]) -> set[str]:
    return {json.loads(body)["messages"][-1]["content"] for body in bodies}


def test_each_seed_sends_prompts_no_other_seed_sends() -> None:
    first, second = _user_texts(fresh_bodies(40, seed=1)), _user_texts(fresh_bodies(40, seed=2))
    assert len(first) == len(second) == 40
    assert not first & second


def _phase(cpu: float, loop: float, errors: int) -> dict[str, object]:
    return {"server_cpu_ms_per_request": cpu, "loop_cpu_ms_per_request": loop, "errors": errors,
            "reported_overhead_ms": {"p50": 1.0, "p99": 2.0}, "service_ms": {"p50": 3.0},
            "achieved_rate": 50.0, "load_average": {"before": [1.5, 1.0, 1.0]}}


def test_a_rate_reads_the_median_of_its_rounds_and_sums_their_errors() -> None:
    row = _medians([_phase(12.0, 3.0, 0), _phase(10.0, 2.0, 1), _phase(30.0, 9.0, 2)])
    assert row["server_cpu_ms_per_request"] == 12.0 and row["loop_cpu_ms_per_request"] == 3.0
    assert row["errors"] == 3 and row["load_before"] == [1.5, 1.5, 1.5]


def test_the_unguarded_arm_and_the_loop_profile_are_asked_for_by_flags() -> None:
    assert not parse_args([]).unguarded and parse_args([]).profile is None
    args = parse_args(["--unguarded", "--profile", "/tmp/loop.prof"])
    assert args.unguarded and str(args.profile) == "/tmp/loop.prof"
