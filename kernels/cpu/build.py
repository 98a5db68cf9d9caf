"""The first build of ``kernels.cpu`` made visible and movable: its progress while it runs, an estimate before it
starts, and a way to run it ahead of the first start.

The build compiles every source with ``-O3 -march=native`` against torch's headers (most of each source's compile
time is parsing them), minutes of a small CPU. An engine that starts without the build prints when it begins, with
the estimate, and one line per source compiled (``BuildProgress``), so a person watching the start sees where the
time goes. ``python -m kernels.cpu.build`` builds it now, into torch's extension cache: ``make install`` runs it, and
a first ``warden serve`` copies the finished build into its compile cache (``engine.worker.compilation.
use_compile_cache``) and loads it in seconds. Where no C++ toolchain can build it, that command warns and exits 0:
the torch reference serves there.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from kernels import cpu

# The compilers' CPU seconds for a whole build on an AVX-512 EPYC (bench/results/start_time.json, the "installed"
# arm's "install_build"): only for the estimate printed before a build; the wall time divides it among the cores.
BUILD_CPU_S = 110.0
POLL_S = 1.0  # how often BuildProgress looks for new object files


def library_path() -> Path:
    """The shared library the build produces (under ``TORCH_EXTENSIONS_DIR``)."""
    return cpu.build_directory() / f"{cpu.library_name()}.so"


def parallel_jobs() -> int:
    """How many sources compile at once: torch's builder runs ninja with ``MAX_JOBS`` jobs, else ninja's default
    (more than the cores), so the cores this process may use bound it."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    try:
        jobs = int(os.environ.get("MAX_JOBS", "0"))
    except ValueError:
        jobs = 0
    return max(1, min(cores, jobs) if jobs > 0 else cores)


def estimate_seconds() -> float:
    """The build's wall time on an idle machine of the reference kind: its CPU seconds over the parallel jobs."""
    return BUILD_CPU_S / parallel_jobs()


def describe_build() -> str:
    """The line announcing a build: what compiles, how wide, and how long it should take."""
    return (f"building {len(cpu.SOURCES)} sources with {parallel_jobs()} parallel jobs (est. "
            f"{estimate_seconds():.0f} s on an idle CPU, more on a busy one; `make install` builds them ahead of the "
            "first start)")


class BuildProgress:
    """While a build runs, reports each source compiled (``"3 of 9 sources compiled (41 s)"``), from the object
    files torch's builder writes into ``directory``: the builder itself says nothing until it ends. Only objects
    written since this watcher was made count (not those of an earlier or killed build, which ninja may compile
    again). ``poll`` reports what is new; as a context manager a thread polls every ``POLL_S`` until the block ends."""

    def __init__(self, directory: Path, report: Callable[[str], None]) -> None:
        self.directory = directory
        self.report = report
        self.objects = [directory / f"{Path(source).stem}.o" for source in cpu.SOURCES]
        self.reported = 0
        # Modification times are wall-clock times from the kernel's coarse clock, up to a tick behind time.time().
        self.since = time.time() - 1.0
        self.started = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="warden-kernel-build-progress", daemon=True)

    def compiled(self) -> int:
        """How many of the sources have been compiled into the build directory since this watcher was made."""
        return sum(1 for path in self.objects if (_mtime(path) or 0.0) >= self.since)

    def poll(self) -> None:
        count = self.compiled()
        if count > self.reported:
            self.reported = count
            self.report(f"{count} of {len(self.objects)} sources compiled ({time.perf_counter() - self.started:.0f} s)")

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            self.poll()

    def __enter__(self) -> BuildProgress:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join()


def build_or_load(report: Callable[[str], None]) -> str:
    """Build (announced, with each source compiled reported) or find the kernels, and load them; what happened, in
    the words of a start-up line: ``cache hit (<dir>)``, ``built into <dir>``, or ``unavailable (...)``. An engine's
    start and ``make install`` say the same."""
    try:
        library = library_path()
    except OSError as exc:  # the extension cache cannot be created (a read-only home without TORCH_EXTENSIONS_DIR)
        return f"unavailable (no extension cache: {exc}; the torch reference serves)"
    before = _mtime(library)
    if before is None or _newest_source() > before:  # none yet, or ninja will compile changed sources again
        report(describe_build())
    # Watched even when the library exists: sources with newer modification times (a branch switched and back)
    # are compiled again, and that build reports its progress too.
    with BuildProgress(library.parent, report):
        ok = cpu.load()
    if not ok:  # cpu.load warned why
        return "unavailable (no C++ toolchain or a failed build: the torch reference serves)"
    return f"cache hit ({library.parent})" if _mtime(library) == before else f"built into {library.parent}"


def _newest_source() -> float:
    """The latest modification time among the kernels' sources and headers (what ninja compares to its outputs)."""
    return max((_mtime(path) or 0.0) for path in Path(cpu.__file__).parent.glob("*.[ch]*"))


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def main() -> int:
    """Build (or find) the kernels now, saying so on stderr as an engine's start would; exit status 0 even where
    they cannot be built (the torch reference serves there)."""
    def say(line: str) -> None:
        print(f"warden: C++ kernels: {line}", file=sys.stderr, flush=True)

    if os.environ.get("WARDEN_KERNELS") == "reference":
        say("not built (WARDEN_KERNELS=reference)")
        return 0
    started = time.perf_counter()
    outcome = build_or_load(say)
    say(f"{outcome} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
