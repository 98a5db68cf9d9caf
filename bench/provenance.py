"""Where a benchmark's figures came from: the command that reproduces them and the machine they ran on.

Every results JSON a benchmark writes carries a ``provenance`` object ``{"command", "machine"}``; docs/benchmarks.md
prints both beside each table (``tests/bench/test_results_provenance.py`` fails on a results file without them).
The machine is one line a reader can compare across runs: CPU model, architecture, the vector ISA torch dispatches
to (when the benchmark uses torch), logical CPUs, and the GPU where one served.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import sys
from pathlib import Path
from typing import Any


def _cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def describe_machine() -> str:
    """e.g. ``AMD EPYC, x86_64 AVX512, 2 CPUs`` or ``Intel Xeon …, x86_64 AVX512, 16 CPUs, NVIDIA H200``.

    torch is consulted only when the benchmark has already imported it: a benchmark of the rate limiter or the
    gateway should not pay torch's import to describe its machine, and its figures do not depend on torch's ISA.
    """
    parts = [_cpu_model()]
    torch = sys.modules.get("torch")
    isa = torch.backends.cpu.get_cpu_capability() if torch is not None else ""
    parts.append(f"{platform.machine()} {isa}".strip())
    parts.append(f"{os.cpu_count()} CPUs")
    if torch is not None and torch.cuda.is_available():
        parts.append(torch.cuda.get_device_name())
    return ", ".join(parts)


def invoked_command(argv: list[str] | None = None) -> str:
    """The command line that ran this benchmark, as ``python -m bench.x ARGS`` (run from the repository root)."""
    argv = sys.argv if argv is None else argv
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    program = f"python -m {spec.name}" if spec is not None and spec.name else f"python {Path(argv[0]).name}"
    return " ".join([program, *(shlex.quote(arg) for arg in argv[1:])])


def with_provenance(report: dict[str, Any], *, command: str | None = None) -> dict[str, Any]:
    """``report`` with its ``provenance`` (this process's command line unless ``command`` is given)."""
    return {**report, "provenance": {"command": command or invoked_command(), "machine": describe_machine()}}


def write_results(path: Path, report: dict[str, Any], *, command: str | None = None) -> None:
    """Write a benchmark's results JSON with its provenance, and say where."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(with_provenance(report, command=command), indent=2) + "\n")
    print(f"\nwrote {path}")
