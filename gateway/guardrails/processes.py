"""Input analysis in worker processes: the pattern detectors and NER off the gateway process's GIL.

The detectors are pure Python (regexes, phonenumbers, gazetteer lookups): on guard threads they hold the same GIL as
the event loop, so one gateway process spends at most one core on the loop and its scans together, and under a
steady stream of 2 KB prompts the scans (~8 ms each) take the GIL from the loop until requests queue without bound.
In a worker process a scan runs on another core; the guard thread that asked only waits on the result, which
releases the GIL. A worker builds its own ``PiiAnalyzer`` (the same detectors and models, so the same findings) when
it starts, in a fresh interpreter (``spawn``: forking a process whose other threads may hold locks is unsafe); so, as
for any spawned process, the program's main module must be safe to import (its work under ``if __name__ ==
"__main__"``, as uvicorn's, ``warden``'s and pytest's are), or every worker fails to start and every scan is refused.

A worker that dies (killed, out of memory) fails the scans it had with ``AnalysisUnavailable`` (the request is
refused, never forwarded unscanned); scans are refused the same way for ``RESPAWN_BACKOFF_S``, then the next one
starts a fresh pool: workers that cannot start are retried once a second, not once per request.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.findings import Finding

_analyzer: PiiAnalyzer | None = None  # a worker process's own
RESPAWN_BACKOFF_S = 1.0


class AnalysisUnavailable(RuntimeError):
    """The analysis workers died during a scan: the scan has no result (its request must be refused)."""


def _start_worker() -> None:
    global _analyzer
    _analyzer = PiiAnalyzer()


def _analyze_many(texts: list[str], ner_enabled: bool) -> list[list[Finding]]:
    assert _analyzer is not None, "the pool's initializer builds the analyzer"
    return _analyzer.analyze_many(texts, ner_enabled=ner_enabled)


def _ready() -> bool:
    return _analyzer is not None


class AnalysisProcesses:
    """``PiiAnalyzer.analyze_many`` run by ``processes`` worker processes; thread-safe."""

    def __init__(self, processes: int) -> None:
        if processes < 1:
            raise ValueError("processes must be >= 1")
        self._processes = processes
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = self._new_pool()
        self._broke_at = 0.0  # when the last pool broke (monotonic)

    def _new_pool(self) -> ProcessPoolExecutor:
        pool = ProcessPoolExecutor(self._processes, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_start_worker)
        # Start the workers now (importing the detectors takes a second or two), not on the first request.
        for _ in range(self._processes):
            pool.submit(_ready)
        return pool

    def analyze_many(self, texts: Sequence[str], *, ner_enabled: bool) -> list[list[Finding]]:
        pool = self._live_pool()
        try:
            return pool.submit(_analyze_many, list(texts), ner_enabled).result()
        except BrokenProcessPool:
            with self._lock:
                if self._pool is pool:
                    self._pool, self._broke_at = None, time.monotonic()
            pool.shutdown(wait=False, cancel_futures=True)
            raise AnalysisUnavailable("an input analysis process died during the scan") from None

    def _live_pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                if time.monotonic() - self._broke_at < RESPAWN_BACKOFF_S:
                    raise AnalysisUnavailable("the input analysis processes are restarting")
                self._pool = self._new_pool()
            return self._pool

    def worker_pids(self) -> list[int]:
        """The live workers' process ids (tests kill one to check that a scan fails closed)."""
        pool = self._pool
        processes = list(pool._processes.values()) if pool is not None and pool._processes else []
        return [process.pid for process in processes if process.pid is not None]

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
