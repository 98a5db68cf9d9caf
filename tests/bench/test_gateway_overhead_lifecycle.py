"""The stub-engine overhead bench's lifecycle: every arm is warmed at its measured rate before any arm is measured
(a fresh server's first seconds are slower, which the arm measured first would otherwise carry), and SIGTERM or
SIGINT stops every process the bench started (its servers run in sessions of their own, out of reach of a signal to
the bench's group)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.gateway_overhead import main

REPO = Path(__file__).resolve().parents[2]
# SQLite and the in-process limiter: the bench's own stores, whatever the environment names.
SMALL_RUN = ["--stub-engine", "--only-core", "--no-litellm", "--database-url", "", "--redis-url", "",
             "--rate", "40", "--warmup-s", "0.5"]


@pytest.mark.slow
def test_every_arm_is_warmed_at_its_measured_rate_before_any_arm_is_measured(tmp_path: Path) -> None:
    out = tmp_path / "overhead.json"
    assert main([*SMALL_RUN, "--duration", "1", "--arm-warmup-s", "1.5", "--out", str(out)]) == 0
    result = json.loads(out.read_text())["stub_engine"]
    assert result["arm_order"] == ["floor", "warden_core"]
    assert result["arm_warmup_s"] == 1.5
    phases = result["phases"]
    first_measured = next(i for i, phase in enumerate(phases) if phase["kind"] == "measured")
    warmed = {phase["arm"]: phase for phase in phases[:first_measured] if phase["kind"] == "warm-up"}
    assert set(warmed) == set(result["arm_order"])
    for arm, phase in warmed.items():
        assert phase["rate"] == result["load"][arm]["target_rate"] == 40
        assert phase["duration_s"] == 1.5
        assert phase["sent"] == 60 and phase["errors"] == 0
    measured = [phase["arm"] for phase in phases if phase["kind"] == "measured"]
    assert measured == result["arm_order"]
    starts = [phase["started_s"] for phase in phases]
    assert starts == sorted(starts)


def _descendants(root: int) -> set[int]:
    """Every process under ``root`` now (by parent links in /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie waiting for its (new) parent to reap it."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _ignore_sigint() -> None:
    # As a background job of a non-interactive shell starts it; Python then leaves SIGINT ignored.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "exit_code"), [(signal.SIGTERM, 128 + signal.SIGTERM),
                                                    (signal.SIGINT, 128 + signal.SIGINT)])
def test_a_signal_to_the_bench_stops_every_process_it_started(tmp_path: Path, signum: int, exit_code: int) -> None:
    log = tmp_path / "bench.log"
    with log.open("wb") as sink:
        bench = subprocess.Popen([sys.executable, "-m", "bench.gateway_overhead", *SMALL_RUN, "--duration", "120",
                                  "--arm-warmup-s", "0", "--out", str(tmp_path / "overhead.json")],
                                 cwd=REPO, stdout=sink, stderr=subprocess.STDOUT, preexec_fn=_ignore_sigint)
    started: set[int] = set()
    try:
        deadline = time.monotonic() + 120
        while b"ready:" not in log.read_bytes():  # every server answers: the load phase is under way
            assert bench.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        time.sleep(2.0)  # into the measured phase: the gateway's audit drain process has started too
        started = _descendants(bench.pid)
        groups = {os.getpgid(pid) for pid in started if _running(pid)}
        assert len(groups) >= 3, started  # the floor, the stub engine and the gateway, each in its own group
        bench.send_signal(signum)
        assert bench.wait(60) == exit_code, log.read_text()
        deadline = time.monotonic() + 5  # the last ones killed are reaped by init
        while any(_running(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in started if _running(pid)] == []
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        for pid in started:  # a failed run leaves nothing behind either
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        workdir = re.search(rb"logs in (\S+)\)", log.read_bytes())  # kept by an interrupted run, for its logs
        if workdir is not None:
            shutil.rmtree(workdir.group(1).decode(), ignore_errors=True)
