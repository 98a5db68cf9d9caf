"""llama.cpp's ``llama-server`` as an arm of the serving benchmark: the field's CPU server on its fastest format,
with the same CPU threads as Warden's engine, replayed through the same client.

The server is built by ``bench.llamacpp_server`` (hash-pinned source, once) and serves the shipped GGUF requantized
to Q4_0, the 4-bit format llama.cpp's fast CPU matmuls cover (``bench.llamacpp`` measured it faster than the shipped
Q4_1). One slot per concurrent stream with continuous batching; each slot keeps its last prompt's KV and a new
request goes to the slot whose cached prompt it shares most with (llama.cpp's prompt cache, on by default), so an
agent session's resent history is reused where the slot still holds it. Plain HTTP on loopback: llama-server is
built without OpenSSL and has no guardrails, keys or audit, so it does less per request than Warden's gateway.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench import llamacpp_server
from engine.loader.source import default_gguf_path
from gateway.background_server import free_port

QUANT = "Q4_0"
MODEL_ALIAS = "smollm2-135m-instruct"


@dataclass
class RunningLlamaServer:
    base_url: str  # http://127.0.0.1:PORT/v1
    model: str
    process: subprocess.Popen[bytes]
    log: Path
    command: list[str]
    api_key: str = "none"  # llama-server without --api-key takes any bearer token
    cert: Path | None = None  # plain HTTP

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _terminate_with_parent() -> None:
    """In the child before exec (Linux): SIGTERM when the benchmark dies, so a killed run leaves no server."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def context_per_slot(longest_prompt: int, longest_output: int, *, margin: int = 64, granularity: int = 256) -> int:
    """Tokens each slot must hold: the longest prompt plus the longest answer, with room for the chat template's
    rendering differences, rounded up (llama.cpp splits ``--ctx-size`` evenly between the slots)."""
    need = longest_prompt + longest_output + margin
    return -(-need // granularity) * granularity


def start_llamacpp(workdir: Path, *, threads: int, parallel: int, context: int,
                   ready_timeout_s: float = 300.0) -> RunningLlamaServer:
    """``llama-server`` on the Q4_0 copy of the shipped GGUF, started and waited for until /health answers 200."""
    bin_dir = llamacpp_server.ensure_built()
    model = llamacpp_server.requantized(bin_dir, default_gguf_path(), QUANT)
    port = free_port()
    command = llamacpp_server.command(bin_dir / "llama-server", model, port=port, threads=threads, parallel=parallel,
                                      context_per_sequence=context)
    log = workdir / "llama-server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, env=dict(os.environ),
                                   preexec_fn=_terminate_with_parent)
    server = RunningLlamaServer(base_url=f"http://127.0.0.1:{port}/v1", model=MODEL_ALIAS, process=process, log=log,
                                command=command)
    deadline = time.monotonic() + ready_timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2.0).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"llama-server not ready after {ready_timeout_s:.0f} s: {log.read_text()[-2000:]}")
