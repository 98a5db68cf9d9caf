"""A first start that serves before its decoder is compiled: the compile runs in a separate process, and the graphs
it saves are swapped in at a step boundary.

Compiling the four graphs of the decoder and the LM head takes minutes the first time on a small CPU, and a start
that waits for them keeps every request waiting too. Where the graphs can be saved whole (``engine.worker.
precompiled``: unfrozen, every linear an opaque kernel), the runner instead serves uncompiled at once, on the same
weights and kernels the graphs call, while a child process (``python -m engine.worker.background_compile``) builds
the same model, compiles the same graphs through the same warm-up a foreground start runs (``CompiledModel.
warm_up``), saves them into the same compile cache, and exits. A thread of the engine then reads the saved graphs
(seconds, off the step loop), and the step loop adopts them before its next step: their guards are checked there,
and the runner's ``compiled`` is replaced in one assignment, so a step runs wholly uncompiled or wholly compiled.
Engines starting side by side on one cache (a standby beside the serving engine) compile once: their children take
turns on a lock per configuration, and a later one finds the graphs saved and exits.

A failed compile (the child's exit status, a graph missing or refused) leaves the engine serving uncompiled, with
a warning naming the child's log. The child is killed with the engine: ``stop`` (the engine shutting down, the
runner collected, the interpreter exiting) kills its process group; if the engine dies without running any of
that, the kernel kills the child (``PR_SET_PDEATHSIG``, asked for by the child against the thread that waits for
it), and the child's own compile workers follow it.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import fcntl
import logging
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from engine.core.startup import say
from engine.worker.compilation import CompiledModel, CompileTimes, compile_cache_root, first_compile_estimate

if TYPE_CHECKING:
    from engine.config import EngineConfig
    from engine.worker import precompiled

log = logging.getLogger(__name__)

LOG_FILE = "warden-background-compile.log"  # the child's output, beside inductor's cache
_PR_SET_PDEATHSIG = 1


def should_compile_in_background(compiled: CompiledModel, config: EngineConfig, num_tokens: int) -> bool:
    """Whether this start serves uncompiled while a child compiles: asked for (``compile_in_background``), one rank
    (the child rebuilds the model from the configuration alone), graphs that can be saved whole and handed over,
    and not all of them saved already (then loading them takes seconds)."""
    return bool(config.compile_in_background) and config.tensor_parallel_size == 1 \
        and compiled.whole_graph_store() is not None and not compiled.all_saved(num_tokens)


@dataclasses.dataclass(eq=False)
class _Job:
    """What the waiting thread shares with the engine: not the ``BackgroundCompile`` itself, so a runner dropped
    while its child compiles is collected, and its finalizer kills the child."""

    compiled: CompiledModel
    num_tokens: int
    log_path: Path
    show_progress: bool
    started: float
    process: subprocess.Popen[bytes] | None = None
    spawned: threading.Event = dataclasses.field(default_factory=threading.Event)
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    loaded: dict[str, precompiled.AotFunction] | None = None
    failure: str | None = None


class BackgroundCompile:
    """The child compiling ``compiled``'s graphs, and the thread waiting for it and reading what it saved."""

    def __init__(self, compiled: CompiledModel, config: EngineConfig, num_tokens: int, num_blocks: int,
                 max_position: int) -> None:
        self.compiled = compiled
        self.num_tokens = num_tokens
        self._job = _Job(compiled, num_tokens, compile_cache_root() / LOG_FILE, config.show_progress,
                         time.perf_counter())
        store = compiled.whole_graph_store()
        assert store is not None, "should_compile_in_background checks the graphs can be saved whole"
        files = [store.path(name) for name in compiled.graph_names(num_tokens)]
        request = pickle.dumps((dataclasses.replace(config, compile_in_background=False, show_progress=False),
                                num_blocks, max_position, files))
        recorded = CompileTimes(compile_cache_root()).get(compiled.signature(num_tokens))
        expected = recorded if recorded is not None else first_compile_estimate(compiled.model)
        say(f"compilation and warm-up: serving uncompiled while compiling in the background (est. {expected:.0f} s "
            "on an idle CPU, more on a busy one)", enabled=config.show_progress)
        threading.Thread(target=_wait_for, args=(self._job, request), name="warden-background-compile",
                         daemon=True).start()
        self._job.spawned.wait()
        self._finalizer = weakref.finalize(self, _kill_group, self._job)

    @property
    def log_path(self) -> Path:
        return self._job.log_path

    @property
    def pid(self) -> int | None:
        """The child's process id (None if it did not start)."""
        return self._job.process.pid if self._job.process is not None else None

    @property
    def finished(self) -> bool:
        """Whether the child is done and its graphs are read (or the compile failed): ``take`` will not wait."""
        return self._job.done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until ``finished`` (tests, benchmarks); False on timeout."""
        return self._job.done.wait(timeout)

    def take(self, kv_caches: list[tuple[torch.Tensor, torch.Tensor]]) -> CompiledModel | None:
        """On the step loop's thread, once ``finished``: the compiled model to serve from now on, its graphs'
        guards checked, or None (warned) if the compile failed and the engine keeps serving uncompiled."""
        loaded = self._job.loaded
        if loaded is None or not self.compiled.adopt(loaded, self.num_tokens, kv_caches):
            log.warning("compiling in the background failed (%s); serving uncompiled (the child's output: %s)",
                        self._job.failure or "a saved graph refused this engine's inputs", self.log_path)
            say(f"compilation and warm-up: failed in the background, serving uncompiled (see {self.log_path})",
                enabled=self._job.show_progress)
            return None
        self.compiled.compile_seconds = time.perf_counter() - self._job.started
        say(f"compilation and warm-up: compiled graphs swapped in ({len(loaded)} graphs compiled in the "
            f"background) in {self.compiled.compile_seconds:.1f} s", enabled=self._job.show_progress)
        return self.compiled

    def stop(self) -> None:
        """Kill the child and its compile workers, if still running."""
        self._finalizer()


def _wait_for(job: _Job, request: bytes) -> None:
    """The waiting thread. It starts the child itself: the child's parent-death signal follows the thread that
    forked it, and this one lives exactly as long as the child is wanted."""
    try:
        job.log_path.parent.mkdir(parents=True, exist_ok=True)
        with job.log_path.open("wb") as output:
            job.process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [sys.executable, "-m", __name__, str(os.getpid())], stdin=subprocess.PIPE, stdout=output,
                stderr=subprocess.STDOUT, start_new_session=True, env=_child_environment())
    except OSError as exc:
        job.failure = f"the compiler process did not start: {exc}"
        job.spawned.set()
        job.done.set()
        return
    job.spawned.set()
    try:
        assert job.process.stdin is not None
        job.process.stdin.write(request)
        job.process.stdin.close()
    except OSError:  # it died at once: its exit status and log say why
        pass
    code = job.process.wait()
    if code == 0:
        job.loaded = job.compiled.load_saved(job.num_tokens)
        if job.loaded is None:
            job.failure = "its saved graphs could not be read"
        else:  # an idle engine swaps them in at its next step, maybe much later: say when they are ready
            say(f"compilation and warm-up: {len(job.loaded)} graphs compiled in the background in "
                f"{time.perf_counter() - job.started:.1f} s; served from the next step", enabled=job.show_progress)
    else:
        job.failure = f"the compiler process exited with status {code}"
    job.done.set()


def _kill_group(job: _Job) -> None:
    process = job.process
    if process is None or process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)  # its own session: the child and inductor's compile workers
    except ProcessLookupError:
        return
    process.wait()


def _child_environment() -> dict[str, str]:
    """The engine's environment (its compile cache directories among it), with this checkout importable."""
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    return env


def _die_with_parent(parent: int) -> None:
    """Ask the kernel to kill this process when the thread that started it ends; exit if it already has."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the engine's stop() is the only guard
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        sys.exit(3)


def main() -> None:
    """The child: rebuild the engine's model and runner from its configuration, compiling and saving the graphs."""
    _die_with_parent(int(sys.argv[1]))
    config, num_blocks, max_position, files = pickle.load(sys.stdin.buffer)  # noqa: S301 - from our own parent
    # One compile per configuration at a time: engines starting side by side (a standby beside the serving engine)
    # each start a child, and the later ones wait here and find the graphs saved (the lock dies with its holder).
    lock = files[0].parent.with_suffix(".compiling")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not all(path.is_file() for path in files):
            _compile(config, num_blocks, max_position)


def _compile(config: EngineConfig, num_blocks: int, max_position: int) -> None:
    from engine.distributed.executor import configure_process
    from engine.llm_engine import resolve_dtype
    from engine.loader.model_loader import load_model
    from engine.loader.source import resolve_model
    from engine.worker.model_runner import ModelRunner

    device = torch.device("cpu")
    configure_process(config, device)
    dtype = resolve_dtype(config.dtype, device)
    model = load_model(resolve_model(config.model), dtype=dtype, device=device, max_position=max_position,
                       show_progress=False)
    ModelRunner(config, model, device, dtype, num_blocks)  # compiles in the foreground and saves the graphs


if __name__ == "__main__":
    main()
