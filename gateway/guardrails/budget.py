"""A CPU-time budget for one request's input scan, and the refusal when a scan overruns it.

The detectors are linear, but some cost tens of microseconds a character on text built for them (one long run of
digit groups keeps the phone matcher busy at every offset); admission bounds a request's text by the model's
context, so with a long context a tenant could buy seconds of guard CPU per request and starve everyone else's
scans. The budget bounds that: a scan is refused (never forwarded unscanned) once it has spent ``seconds`` of CPU.

CPU time, not wall time: the refusal says the request's *content* costs too much to scan, and that must not turn
true because the machine is busy (a scan waiting for the GIL or a core spends no budget); and a retry of the same
text is refused again at the same cost, so clients should not retry it.

The scanning thread checks the budget between detectors and texts (``check``: the budget of the scan running on this
thread, set by ``scanning``, so the analyzer's callers need not pass it); the detectors' own loops do not, so
one detector call on one long text can run past it. Whoever waits on the scan therefore reads the scanning thread's
CPU clock from outside (``spent``) and refuses at the budget; an analysis worker process that overruns is killed
(``processes``), and a guard thread stops at its next check.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

BUDGET_EXCEEDED_CODE = "guardrail_budget_exceeded"


class ScanBudgetExceeded(Exception):
    """The scan spent its CPU budget before it finished: the request must be refused."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds

    def __str__(self) -> str:
        return (f"scanning this request's text took more than the guardrails' {self.seconds:g} s CPU budget; "
                "shorten or split the text")


class ScanBudget:
    """The CPU a scan may spend: the scanning thread's CPU since ``start``, plus what ``charge`` adds (CPU spent for
    it in an analysis worker process). ``seconds`` of None: no limit. Thread-safe: ``spent`` and ``cancel`` may be
    called from another thread while the scanning thread runs."""

    __slots__ = ("_charged", "_clock", "_final", "_start", "cancelled", "seconds")

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and seconds <= 0:
            raise ValueError("a scan budget must be positive (None: no limit)")
        self.seconds = seconds
        self._clock: int | None = None  # the scanning thread's CPU clock
        self._start = 0.0
        self._charged = 0.0
        self._final: float | None = None
        self.cancelled = False  # set by a waiter that refused the request: the scan stops at its next check

    def start(self) -> None:
        """On the scanning thread, as the scan begins."""
        self._clock = time.pthread_getcpuclockid(threading.get_ident())
        self._start = time.clock_gettime(self._clock)

    def finish(self) -> None:
        """On the scanning thread, as the scan ends: ``spent`` stays what it is now (the thread goes on to others'
        work)."""
        self._final = self.spent()

    def charge(self, seconds: float) -> None:
        """Add CPU spent for the scan elsewhere (a worker process); negative: take out CPU spent on this thread that
        is not the scan's (``unmetered``)."""
        self._charged += seconds

    def spent(self) -> float:
        if self._final is not None:
            return self._final
        own = time.clock_gettime(self._clock) - self._start if self._clock is not None else 0.0
        return own + self._charged

    def remaining(self) -> float | None:
        return None if self.seconds is None else self.seconds - self.spent()

    def exceeded(self) -> bool:
        return self.cancelled or (self.seconds is not None and self.spent() > self.seconds)

    def check(self) -> None:
        """On the scanning thread, between units of work: raise ``ScanBudgetExceeded`` once the budget is spent."""
        if self.exceeded():
            raise ScanBudgetExceeded(self.seconds or 0.0)


_active = threading.local()  # the budget of the scan running on this thread, if any


@contextmanager
def scanning(budget: ScanBudget) -> Iterator[ScanBudget]:
    """Run a scan on this thread within ``budget``: ``check`` raises once it is spent."""
    budget.start()
    outer = getattr(_active, "budget", None)
    _active.budget = budget
    try:
        yield budget
    finally:
        _active.budget = outer
        budget.finish()


def check() -> None:
    """Raise ``ScanBudgetExceeded`` if the scan running on this thread has spent its budget (no scan: nothing)."""
    budget: ScanBudget | None = getattr(_active, "budget", None)
    if budget is not None:
        budget.check()


@contextmanager
def unmetered() -> Iterator[None]:
    """CPU spent inside is not the scan's: a model the first scan that needs it loads once for every later request
    (NER, ~0.7 s) would otherwise count against that one request."""
    budget: ScanBudget | None = getattr(_active, "budget", None)
    started = time.thread_time()
    try:
        yield
    finally:
        if budget is not None:
            budget.charge(-(time.thread_time() - started))
