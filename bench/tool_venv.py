"""Comparison tools (LiteLLM's proxy, AIPerf) run from virtualenvs of their own, installed from hash locks, so their
dependencies never meet Warden's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PIP_LOCK = REPO / "requirements-pip.lock"


def ensure_tool(venv: Path, lock: Path, executable: str, *, label: str) -> Path:
    """``venv``'s ``executable``, creating the virtualenv and installing ``lock`` into it first if it is missing."""
    path = venv / "bin" / executable
    if not path.exists():
        print(f"installing {label} into {venv} from {lock.name} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # The locked pip first (requirements-pip.lock: the bundled one mis-resolves extras under --require-hashes).
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--require-hashes", "-r",
                        str(PIP_LOCK)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--require-hashes", "-r", str(lock)],
                       check=True)
    return path
