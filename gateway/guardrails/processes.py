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

Each worker is its own one-process pool, lent to one scan at a time. A scan takes one worker (waiting for one) and,
one more for each ``SHARE_MIN_CHARS`` of its text, the workers idle at that moment: its texts are shared out among
them by size, the longest first, each to the worker with the least text so far, run at once, and their findings
merged back in order. The analyzer reads each text on its own (a text's findings do not depend on the texts analysed
with it, NER's included), so with two workers free a 2 KB message and its boundary windows' readings take as long
as the message, not both. A scan's CPU budget is the sum over its workers: a scan that overruns it (``budget``)
stops at the analyzer's next check between detectors, and its workers still busy once their CPU together passes the
budget (inside one detector call on a long text) are killed and replaced, which touches no other scan. A worker that
dies otherwise (killed, out of memory) fails the scan it had with ``AnalysisUnavailable`` (the request is refused,
never forwarded unscanned); scans that draw its place are refused the same way for ``RESPAWN_BACKOFF_S``, then the
next one starts a fresh worker: workers that cannot start are retried once a second, not once per request.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing.context import ForkServerContext

from gateway.core import forkserver
from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.budget import ScanBudget, ScanBudgetExceeded, scanning
from gateway.guardrails.findings import Finding
from gateway.guardrails.phones import judgements_shared

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
# A scan takes one more idle worker for each this many characters of its text (~5 ms of analysis). A hop to another
# worker costs the serving process ~0.6-1 ms of CPU (bench.guarded_overhead, 2 workers, 2 KB prompts on 2 shared
# cores: 7.8 -> 8.7 ms a request, and a worse p50, when the boundary windows' ~400 characters went to a second
# worker): a share must save the request much more than that.
SHARE_MIN_CHARS = 4096


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


def _analyze_parts(parts: list[list[str]], ner_flags: list[bool],
                   budget_s: float | None) -> tuple[list[list[list[Finding]]], float]:  # fmt: skip
    """``_analyze_many`` of each part (a scan's batch, with NER on or off as ``ner_flags`` says; an empty one is not
    analysed), within one budget; the phone judgements shared by them all (``phones.judgements_shared``)."""
    assert _analyzer is not None, "the pool's initializer builds the analyzer"
    with scanning(ScanBudget(budget_s)) as budget, judgements_shared():
        findings = [_analyzer.analyze_many(texts, ner_enabled=ner_enabled) if texts else []
                    for texts, ner_enabled in zip(parts, ner_flags, strict=True)]
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
        """Raises ``ScanBudgetExceeded`` when the scan overruns ``budget`` (its workers' CPU is charged to it), and
        ``AnalysisUnavailable`` when a worker of it died."""
        return self.analyze_batches([(texts, ner_enabled)], budget=budget)[0]

    def analyze_batches(self, batches: Sequence[tuple[Sequence[str], bool]], *, budget: ScanBudget | None = None,
                        meanwhile: Callable[[], object] | None = None) -> list[list[list[Finding]]]:
        """``analyze_many`` of each (texts, ner_enabled) batch of one scan: on one worker, or shared out among it and
        the workers idle as it starts (``_shares``). ``meanwhile``: called on this thread while the workers run (the
        scan's work that needs no findings); what it raises is raised once the workers are done with the scan."""
        units = [(batch, index, text) for batch, (texts, _) in enumerate(batches) for index, text in enumerate(texts)]
        results: list[list[list[Finding]]] = [[[] for _ in texts] for texts, _ in batches]
        if not units:
            if meanwhile is not None:
                meanwhile()
            return results
        workers = [self._take()]
        wanted = min(len(units), 1 + sum(len(text) for _, _, text in units) // SHARE_MIN_CHARS)
        while len(workers) < wanted:
            try:
                extra = self._idle.get_nowait()
            except queue.Empty:
                break
            if extra is None:  # a dead worker's place: a new worker is started there, for the scans that follow
                with self._lock:
                    backing_off = time.monotonic() - self._broke_at < RESPAWN_BACKOFF_S
                self._idle.put(None if backing_off or self._closed else self._new_worker())
                break
            workers.append(extra)
        jobs = [_Job(worker, [[(index, text) for batch, index, text in share if batch == number]
                              for number in range(len(batches))])
                for worker, share in zip(workers, _shares(units, len(workers)), strict=True)]
        self._run(jobs, [ner_enabled for _, ner_enabled in batches], budget, meanwhile)
        for job in jobs:
            assert job.findings is not None
            for number, (part, found) in enumerate(zip(job.parts, job.findings, strict=True)):
                for (index, _), findings in zip(part, found, strict=True):
                    results[number][index] = findings
        return results

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

    def _run(self, jobs: list[_Job], ner_flags: list[bool], budget: ScanBudget | None,
             meanwhile: Callable[[], object] | None) -> None:
        """Each job's findings, its worker running at the same time as the others'. Every worker is given back (or
        replaced) before this returns or raises: a worker that died fails the scan (``AnalysisUnavailable``); workers
        still busy once the scan's workers together have spent its budget are killed (``ScanBudgetExceeded``)."""
        limit = budget.remaining() if budget is not None else None
        try:
            if budget is not None and limit is not None and limit <= 0:
                budget.check()
        except BaseException:
            for job in jobs:
                self._idle.put(job.worker)
            raise
        for job in jobs:
            try:
                if limit is not None:
                    job.worker.ready.result()  # a new worker's start-up (imports, models) is not the scan's CPU
                    job.pid = job.worker.pid()
                    job.before = process_cpu_s(job.pid) if job.pid is not None else None
                texts = [[text for _, text in part] for part in job.parts]
                job.future = job.worker.pool.submit(_analyze_parts, texts, ner_flags, limit)
            except BaseException as exc:  # a worker that died before the scan (BrokenProcessPool)
                job.error = exc
        failure: BaseException | None = None
        if meanwhile is not None:
            try:
                meanwhile()
            except BaseException as exc:
                failure = exc
        self._wait(jobs, limit, budget)
        broken = [job for job in jobs if isinstance(job.error, BrokenProcessPool)]
        for job in jobs:
            if job in broken:
                self._retire(job.worker)
                self._idle.put(None)
            elif job.overran:
                self._retire(job.worker)
                self._idle.put(None if self._closed else self._new_worker())
            else:
                self._idle.put(job.worker)
        if broken:
            with self._lock:
                self._broke_at = time.monotonic()
            raise AnalysisUnavailable("an input analysis process died during the scan")
        if any(job.overran for job in jobs):
            assert budget is not None and budget.seconds is not None
            raise ScanBudgetExceeded(budget.seconds)
        for job in jobs:
            if isinstance(job.error, ScanBudgetExceeded):  # the worker stopped itself at a check between detectors
                assert budget is not None and limit is not None
                budget.charge(limit)
                budget.check()
                raise job.error
        for job in jobs:
            if job.error is not None:
                raise job.error
        if failure is not None:
            raise failure
        if budget is not None:
            budget.charge(sum(job.cpu_s for job in jobs))

    @staticmethod
    def _wait(jobs: list[_Job], limit: float | None, budget: ScanBudget | None) -> None:
        """Wait for the jobs' results; with a budget, read the busy workers' CPU every ``POLL_S`` and mark them
        ``overran`` (to be killed) once the scan's workers together are ``KILL_GRACE_S`` past it, or it is given up."""
        running = [job for job in jobs if job.future is not None]
        while running:
            wait_futures([job.future for job in running if job.future is not None],
                         timeout=None if limit is None else POLL_S)
            for job in running:
                assert job.future is not None
                if job.future.done():
                    try:
                        job.findings, job.cpu_s = job.future.result()
                    except BaseException as exc:
                        job.error = exc
            running = [job for job in running if job.future is not None and not job.future.done()]
            if not running or limit is None or budget is None:
                continue
            spent = sum(job.cpu_s for job in jobs)
            for job in running:
                now = process_cpu_s(job.pid) if job.pid is not None else None
                if job.before is not None and now is not None:
                    spent += now - job.before
            if budget.cancelled or spent > limit + KILL_GRACE_S:
                for job in running:
                    job.overran = True
                return

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


@dataclass(slots=True)
class _Job:
    """One worker's share of a scan: per batch, the (index in the batch, text) it analyses; and how it went."""

    worker: _Worker
    parts: list[list[tuple[int, str]]]
    future: Future[tuple[list[list[list[Finding]]], float]] | None = None
    pid: int | None = None
    before: float | None = None  # the worker's CPU time as the job was handed to it
    findings: list[list[list[Finding]]] | None = None
    cpu_s: float = 0.0  # as the worker reported it
    error: BaseException | None = None
    overran: bool = False


def _shares(units: list[tuple[int, int, str]], count: int) -> list[list[tuple[int, int, str]]]:
    """``units`` shared out into ``count`` shares (``count`` at most ``len(units)``: none is empty): the longest text
    first, each to the share with the fewest characters so far (the first of those); each share in the units' order."""
    shares: list[list[int]] = [[] for _ in range(count)]
    sizes = [0] * count
    for position in sorted(range(len(units)), key=lambda position: -len(units[position][2])):
        smallest = sizes.index(min(sizes))
        shares[smallest].append(position)
        sizes[smallest] += len(units[position][2])
    return [[units[position] for position in sorted(share)] for share in shares]
