"""Input analysis in worker processes: the pattern detectors and NER off the gateway process's GIL.

The detectors are pure Python (regexes, phonenumbers, gazetteer lookups): on guard threads they hold the same GIL as
the event loop, so one gateway process spends at most one core on the loop and its scans together, and under a
steady stream of 2 KB prompts the scans (~8 ms each) take the GIL from the loop until requests queue without bound.
In a worker process a scan runs on another core; the guard thread that asked only waits on the result, which
releases the GIL. Workers are forked from the gateway process's fork server (``gateway.core.forkserver``: started
clean, in a fresh interpreter, so a worker inherits none of the serving process's threads or locks), which imports
``warm_analyzer`` once: its ``PiiAnalyzer`` (the same detectors and models as in this process, so the same
findings), NER models loaded, is every worker's from the moment it is forked, and a new worker costs a fork, not
seconds of imports and model loads. Where the fork server was started before the workers' first pool (by the audit
drain) it lacks that module, and each worker builds its own analyzer at its start, as a spawned one would. As for
any child started through a fresh interpreter, the program's main module must be safe to import (its work under
``if __name__ == "__main__"``, as uvicorn's, ``warden``'s and pytest's are), or every worker fails to start and
every scan is refused.

Each worker is its own one-process pool, lent to one scan at a time: a scan that overruns its CPU budget
(``budget``) stops at the analyzer's next check between detectors, and a worker still busy past the budget (inside
one detector call on a long text) is killed and replaced, which touches no other scan. A worker that dies otherwise
(killed, out of memory) fails the scan it had with ``AnalysisUnavailable`` (the request is refused, never forwarded
unscanned); scans that draw its place are refused the same way for ``RESPAWN_BACKOFF_S``, then the next one starts a
fresh worker: workers that cannot start are retried once a second, not once per request.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext

from gateway.core import forkserver
from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.budget import ScanBudget, ScanBudgetExceeded, scanning
from gateway.guardrails.findings import Finding

_analyzer: PiiAnalyzer | None = None  # a worker process's own
_inherited = False  # whether it came built from the fork server
RESPAWN_BACKOFF_S = 1.0
# How often a scan with a budget reads its worker's CPU time; and how far past the budget the worker may run before
# it is killed (its own check between detectors usually stops it first, without the cost of a new worker).
POLL_S = 0.02
KILL_GRACE_S = 0.05
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# How long start-up waits for the workers to be ready: long enough for workers that build their own analyzer (a few
# seconds each, more on a loaded machine); a start-up that waited longer would look hung.
READY_TIMEOUT_S = 120.0


class AnalysisUnavailable(RuntimeError):
    """The analysis workers died during a scan: the scan has no result (its request must be refused)."""


WARM_ANALYZER_MODULE = "gateway.guardrails.warm_analyzer"


def _start_worker() -> None:
    global _analyzer, _inherited
    # Imported here, never in the serving process: importing it builds an analyzer (done already in the fork server
    # when it preloaded the module, so this costs nothing there).
    from gateway.guardrails import warm_analyzer

    _analyzer = warm_analyzer.ANALYZER or PiiAnalyzer()
    _inherited = warm_analyzer.ANALYZER is not None and os.getpid() != warm_analyzer.BUILT_IN_PID


def _analyze_many(texts: list[str], ner_enabled: bool,
                  budget_s: float | None) -> tuple[list[list[Finding]], float]:  # fmt: skip
    """The findings and the CPU seconds they took (charged to the scan's budget): the worker's budget reading, so
    without its garbage collections (``budget``)."""
    assert _analyzer is not None, "the pool's initializer builds the analyzer"
    with scanning(ScanBudget(budget_s)) as budget:
        findings = _analyzer.analyze_many(texts, ner_enabled=ner_enabled)
    return findings, budget.spent()


def _ready() -> bool:
    """Whether the worker's analyzer came built from the fork server (False: it built its own)."""
    assert _analyzer is not None, "the pool's initializer builds the analyzer"
    return _inherited


def process_cpu_s(pid: int) -> float | None:
    """A process's CPU time (user + system, in clock ticks' resolution), or None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            data = stat.read()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()  # the command name may hold spaces; the fields after it do not
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


class _Worker:
    """One analysis process, in a pool of its own: killing it for an overrun breaks no other scan's pool."""

    def __init__(self, context: ForkServerContext) -> None:
        self.pool = ProcessPoolExecutor(1, mp_context=context, initializer=_start_worker)
        # Started now (a worker the fork server has no analyzer for builds its own: seconds), not on the first request.
        self.ready = self.pool.submit(_ready)

    def pid(self) -> int | None:
        processes = list(self.pool._processes.values()) if self.pool._processes else []
        return processes[0].pid if processes else None

    def kill(self) -> None:
        for process in list(self.pool._processes.values()) if self.pool._processes else []:
            process.kill()
        self.pool.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True, slots=True)
class Readiness:
    """The workers' start, as start-up waited for it."""

    workers: int
    ready: int  # started, their analyzer built
    inherited: int  # of those, forked with it built (the others built their own)
    failed: int  # died before they were ready
    seconds: float

    def describe(self) -> str:
        """One line for start-up's output."""
        if self.ready == self.workers:
            built_own = self.workers - self.inherited
            how = f"{built_own} built their own analyzer" if built_own else "forked with the analyzer built"
            return f"{self.workers} ready in {self.seconds:.1f} s ({how})"
        return (f"{self.ready} of {self.workers} ready after {self.seconds:.1f} s ({self.failed} failed to start): "
                "a scan waits for its worker, and a scan whose worker failed is refused with 503")


class AnalysisProcesses:
    """``PiiAnalyzer.analyze_many`` run by ``processes`` worker processes, one scan per worker at a time;
    thread-safe."""

    def __init__(self, processes: int) -> None:
        if processes < 1:
            raise ValueError("processes must be >= 1")
        self._started = time.perf_counter()
        forkserver.preload([__name__, WARM_ANALYZER_MODULE])
        self._context = forkserver.context()
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []  # every live worker, for shutdown and tests
        # The places a scan may take: a worker, or None where one died and a new one is not started yet.
        self._idle: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        for _ in range(processes):
            self._idle.put(self._new_worker())
        self._broke_at = 0.0  # when a worker last died (monotonic)
        self._closed = False

    def wait_ready(self, timeout_s: float | None = None) -> Readiness:
        """Wait, up to ``timeout_s`` (None: ``READY_TIMEOUT_S``), for the workers started with the pool to be ready:
        start-up waits here, so the first requests do not wait for a slow fork server or for workers building their
        own analyzer. The readiness counts its seconds from the pool's start."""
        with self._lock:
            workers = list(self._workers)
        wait_futures([worker.ready for worker in workers], READY_TIMEOUT_S if timeout_s is None else timeout_s)
        ready = [w.ready for w in workers if w.ready.done() and w.ready.exception() is None]
        failed = sum(1 for w in workers if w.ready.done() and w.ready.exception() is not None)
        return Readiness(len(workers), len(ready), sum(1 for future in ready if future.result()), failed,
                         time.perf_counter() - self._started)

    def _new_worker(self) -> _Worker:
        worker = _Worker(self._context)
        with self._lock:
            self._workers.append(worker)
        return worker

    def _retire(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)

    def analyze_many(self, texts: Sequence[str], *, ner_enabled: bool,
                     budget: ScanBudget | None = None) -> list[list[Finding]]:
        """Raises ``ScanBudgetExceeded`` when the scan overruns ``budget`` (its worker's CPU is charged to it), and
        ``AnalysisUnavailable`` when its worker died."""
        worker = self._take()
        try:
            findings = self._run(worker, list(texts), ner_enabled, budget)
        except BrokenProcessPool:
            self._retire(worker)
            with self._lock:
                self._broke_at = time.monotonic()
            self._idle.put(None)
            raise AnalysisUnavailable("an input analysis process died during the scan") from None
        except _Overran:
            self._retire(worker)
            self._idle.put(None if self._closed else self._new_worker())
            assert budget is not None and budget.seconds is not None
            raise ScanBudgetExceeded(budget.seconds) from None
        except BaseException:
            self._idle.put(worker)
            raise
        self._idle.put(worker)
        return findings

    def _take(self) -> _Worker:
        """An idle worker (waiting for one, as scans waited for a pool's worker); a new one in the place of one that
        died, once ``RESPAWN_BACKOFF_S`` has passed."""
        worker = self._idle.get()
        if worker is not None:
            return worker
        with self._lock:
            backing_off = time.monotonic() - self._broke_at < RESPAWN_BACKOFF_S
        if backing_off or self._closed:
            self._idle.put(None)
            raise AnalysisUnavailable("the input analysis processes are restarting")
        return self._new_worker()

    def _run(self, worker: _Worker, texts: list[str], ner_enabled: bool,
             budget: ScanBudget | None) -> list[list[Finding]]:  # fmt: skip
        limit = budget.remaining() if budget is not None else None
        if limit is None:
            findings, _ = worker.pool.submit(_analyze_many, texts, ner_enabled, None).result()
            return findings
        assert budget is not None
        if limit <= 0:
            budget.check()
        worker.ready.result()  # a new worker's start-up (imports, models) is not the scan's CPU
        pid = worker.pid()
        before = process_cpu_s(pid) if pid is not None else None
        future = worker.pool.submit(_analyze_many, texts, ner_enabled, limit)
        while True:
            try:
                findings, cpu_s = future.result(timeout=POLL_S)
            except TimeoutError:
                now = process_cpu_s(pid) if pid is not None else None
                if budget.cancelled or (before is not None and now is not None
                                        and now - before > limit + KILL_GRACE_S):
                    raise _Overran from None
                continue
            except ScanBudgetExceeded:  # the worker stopped itself at a check between detectors
                budget.charge(limit)
                budget.check()
                raise
            budget.charge(cpu_s)
            return findings

    def worker_pids(self) -> list[int]:
        """The live workers' process ids (tests kill one to check that a scan fails closed)."""
        with self._lock:
            workers = list(self._workers)
        return [pid for pid in (worker.pid() for worker in workers) if pid is not None]

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._workers = self._workers, []
        for worker in workers:
            worker.pool.shutdown(wait=True, cancel_futures=True)


class _Overran(Exception):
    """A worker ran past its scan's budget (or the scan was given up): it is killed."""
