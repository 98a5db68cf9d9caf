"""`warden serve` tells a person watching its start what it is doing: one line per phase with its time (migrations,
the engine's configuration, C++ kernels, weights), then the address it actually bound, which is the port the OS
picked for ``--port 0``. A real server process on the exact profile (float32 eager: nothing to compile)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from tests.engine.tiny_models import write_tiny_checkpoint

ROOT = Path(__file__).resolve().parents[2]
SECONDS = r"in \d+\.\d s"
READY = re.compile(r"warden: ready: serving http://127\.0\.0\.1:(\d+)/v1 \(\d+\.\d s after `warden serve` started\)")


def test_serve_prints_each_phase_and_the_bound_address(tmp_path: Path) -> None:
    model = write_tiny_checkpoint(tmp_path / "model")
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_")}
    env.update({
        "WARDEN_DATA_DIR": str(tmp_path / "data"), "WARDEN_DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}",
        "WARDEN_MODEL": str(model), "WARDEN_ENGINE_SERVED_MODEL_NAME": "tiny", "WARDEN_ENGINE_PROFILE": "exact",
        "WARDEN_ENGINE_NUM_THREADS": "1", "WARDEN_ENGINE_STANDBY": "false", "WARDEN_ENGINE_ORPHAN_S": "0",
        "WARDEN_GUARDRAILS": "false", "WARDEN_LOG_FORMAT": "text", "WARDEN_SHUTDOWN_UNREADY_S": "0",
        "WARDEN_SHUTDOWN_GRACE_S": "1",
    })
    process = subprocess.Popen([sys.executable, "-m", "gateway.cli", "serve", "--http", "--port", "0"], env=env,
                               cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line.rstrip("\n"))
            if READY.fullmatch(lines[-1]):
                ready.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert ready.wait(300), "\n".join(lines[-40:])
        match = READY.fullmatch(lines[-1])
        assert match is not None
        port = int(match.group(1))
        assert port != 0
        assert httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=10).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    reader.join(10)
    phases = [line for line in lines if line.startswith("warden: ")]
    assert re.fullmatch(rf"warden: migrations: done {SECONDS}", phases[0])
    assert "warden: engine: tiny on cpu, float32, unquantized, eager (profile exact)" in phases
    assert any(re.fullmatch(rf"warden: C\+\+ kernels: (cache hit|built into|unavailable).* {SECONDS}", line)
               for line in phases)
    assert any(re.fullmatch(rf"warden: weights: \d+ tensors of model loaded \(\d+ MB as float32\) {SECONDS}", line)
               for line in phases)
    assert READY.fullmatch(phases[-1]) or any(READY.fullmatch(line) for line in phases)
    # The gateway's start-up line says where it starts, before the bound address is known.
    assert any(line.startswith("warden: starting the gateway for http://127.0.0.1:0/v1") for line in phases)
    assert not any("compilation" in line for line in phases)


def test_a_start_up_failure_exits_nonzero(tmp_path: Path) -> None:
    """The server that prints the bound address keeps uvicorn's contract: an app whose start-up fails exits 3."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WARDEN_")}
    env.update({"WARDEN_DATA_DIR": str(tmp_path / "data"), "WARDEN_DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}",
                "WARDEN_MODEL": str(tmp_path / "missing.gguf"), "WARDEN_ENGINE_IN_PROCESS": "true",
                "WARDEN_GUARDRAILS": "false", "WARDEN_LOG_FORMAT": "text"})
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "gateway.cli", "serve", "--http", "--port", "0"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 3, done.stderr[-3000:]
    assert "warden: ready" not in done.stderr
    assert time.monotonic() - started < 180
