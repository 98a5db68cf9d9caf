"""An installed Warden is a wheel, not a checkout: every file the runtime packages keep beside their modules (name
lists, the injection model, the C++ kernel sources built at first use) must be inside it."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_PACKAGES = ("gateway", "engine", "policies", "kernels")


def _tracked_data_files() -> set[str]:
    listed = subprocess.run(["git", "ls-files", *RUNTIME_PACKAGES], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return {name for name in listed if not name.endswith(".py") and "/__pycache__/" not in name}


def test_the_wheel_carries_every_runtime_data_file(tmp_path: Path) -> None:
    data_files = _tracked_data_files()
    assert "gateway/guardrails/injection/data/model.npz" in data_files  # the listing itself works
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("warden-*.whl")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    assert data_files - in_wheel == set()
