"""Start-up progress: one line on stderr per phase of an engine's start, with its time.

An operator starting ``warden serve`` otherwise sees nothing between the gateway's first lines and "ready" while the
engine builds its C++ kernels, loads weights and compiles the decoder (minutes, the first time). Each phase prints
``warden: <phase>: <what happened> in <seconds> s`` when it ends; a long one also prints a line when it begins, with
the time it is expected to take. Plain lines on stderr, like the weight loader's progress bar, and gated the same
way (``EngineConfig.show_progress``): logging is at WARNING in the engine process, and these lines are for a person
watching a start, not for the log pipeline.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from engine.config import EngineConfig

PREFIX = "warden: "


def say(line: str, *, enabled: bool = True) -> None:
    """One start-up line on stderr (flushed: the engine process's stderr is a pipe or a file as often as a tty)."""
    if enabled:
        print(PREFIX + line, file=sys.stderr, flush=True)


@dataclass(slots=True)
class Phase:
    """A phase in progress; ``outcome`` (what it did: "cache hit", "built", a count) goes into its closing line."""

    name: str
    outcome: str = "done"
    started: float = 0.0

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started


@contextmanager
def phase(name: str, *, enabled: bool = True, announce: str | None = None) -> Iterator[Phase]:
    """Time the block as the phase ``name``; ``announce``: a line printed when it begins (an estimate, for a long
    phase). A phase that raises prints nothing more: the error says what went wrong."""
    if announce is not None:
        say(f"{name}: {announce}", enabled=enabled)
    current = Phase(name, started=time.perf_counter())
    yield current
    say(f"{name}: {current.outcome} in {current.elapsed:.1f} s", enabled=enabled)


def prepare_kernels(device: torch.device, *, enabled: bool = True) -> None:
    """Build or load ``kernels.cpu`` now, as its own timed phase (the model runner would otherwise do it inside its
    own start, where a first build's minutes go unexplained). A build is announced with its estimate and reports
    each source compiled (``kernels.cpu.build``). A no-op off CPU and under ``WARDEN_KERNELS=reference``."""
    from kernels import dispatch

    if device.type != "cpu" or os.environ.get("WARDEN_KERNELS") == "reference":
        return
    from kernels.cpu import build

    with phase("C++ kernels", enabled=enabled) as current:
        current.outcome = build.build_or_load(lambda line: say(f"C++ kernels: {line}", enabled=enabled))
        dispatch.prepare(device)


def describe_serving(config: EngineConfig) -> str:
    """The resolved serving configuration in words, for the first start-up line: what "auto" chose."""
    quantization = f"{config.quantization} weights" if config.quantization else "unquantized"
    compiled = "compiled decoder" if config.compile_model else "eager"
    return f"{config.dtype}, {quantization}, {compiled} (profile {config.profile})"
