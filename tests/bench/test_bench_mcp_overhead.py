"""The MCP overhead benchmark: a small run end to end (an SDK upstream and a Warden, each in its own process)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.mcp_overhead import TARGETS, main


@pytest.mark.slow
def test_a_small_run_writes_paired_figures_naming_the_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "mcp_overhead.json"
    monkeypatch.delenv("WARDEN_DATABASE_URL", raising=False)  # its own SQLite file
    monkeypatch.setattr(sys, "argv", ["mcp_overhead", "--rounds", "6", "--warmup", "1", "--out", str(out)])
    main()
    report = json.loads(out.read_text())
    assert report["machine"]["cpus"] >= 1 and report["rounds"] == 6
    assert set(report["targets"]) == set(TARGETS)
    for target in ("warden_core", "warden_guarded"):
        added = report["targets"][target]["added"]
        assert set(added) == {"p50_ms", "p90_ms", "p99_ms", "mean_ms"}
        assert report["targets"][target]["latency"]["p50_ms"] > 0
    for entry in report["targets"].values():
        cpu = entry["cpu_ms_per_call"]
        assert set(cpu) == {"warden", "upstream"} and min(cpu.values()) >= 0


def test_the_command_line_refuses_nonsense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["mcp_overhead", "--rounds", "0"])
    with pytest.raises(SystemExit):
        main()
