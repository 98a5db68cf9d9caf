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

A garbage collection that runs on the scanning thread is not the scan's CPU: the collector walks every tracked object
of the process (a full pass over a big gateway process took 0.2-0.5 s), and runs where an allocation happens to cross
its threshold, so it would be charged to whichever scan was allocating then. ``gc.callbacks`` tells this thread when a
collection starts and stops; a budget's clock stands still in between (``_collection``).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

BUDGET_EXCEEDED_CODE = "guardrail_budget_exceeded"
# How far a thread's CPU clock may read ahead of the wall time it ran (where the kernel accounts CPU in ticks):
# ``ScanBudget.check`` reads the clock once the budget is within this much of being spent, however the wall clock
# bounds it.
CLOCK_SLACK_S = 0.01


class ScanBudgetExceeded(Exception):
    """The scan spent its CPU budget before it finished: the request must be refused."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds

    def __str__(self) -> str:
        return (f"scanning this request's text took more than the guardrails' {self.seconds:g} s CPU budget; "
                "shorten or split the text")


class ScanBudget:
    """The CPU a scan may spend: the scanning thread's CPU since ``start`` less its garbage collections, plus what
    ``charge`` adds (CPU spent for it in an analysis worker process). ``seconds`` of None: no limit. Thread-safe:
    ``spent`` and ``cancel`` may be called from another thread while the scanning thread runs."""

    __slots__ = ("_charged", "_clock", "_final", "_outer", "_paused_at", "_reading", "_start", "cancelled", "seconds")

    def __init__(self, seconds: float | None) -> None:
        if seconds is not None and seconds <= 0:
            raise ValueError("a scan budget must be positive (None: no limit)")
        self.seconds = seconds
        self._clock: int | None = None  # the scanning thread's CPU clock
        self._start = 0.0
        self._charged = 0.0
        self._final: float | None = None
        # The scanning thread's clock when a garbage collection on it started (None: none is running); ``spent``
        # reads the clock as standing there until the collection ends and its CPU is taken out of ``_charged``.
        self._paused_at: float | None = None
        self._outer: ScanBudget | None = None  # the budget of a scan this one runs inside, on the same thread
        # The scanning thread's clock as last read, and the monotonic time just before that read (one tuple: ``spent``
        # may be called from another thread).
        self._reading = (0.0, 0.0)
        self.cancelled = False  # set by a waiter that refused the request: the scan stops at its next check

    def start(self) -> None:
        """On the scanning thread, as the scan begins."""
        self._clock = time.pthread_getcpuclockid(threading.get_ident())
        at = time.monotonic()
        self._start = time.clock_gettime(self._clock)
        self._reading = (self._start, at)

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
        if self._clock is None:
            return self._charged
        # Read once: the scanning thread may end a collection between two reads (an undercount for one reading then,
        # never an overcount that would refuse the request).
        paused_at = self._paused_at
        if paused_at is None:
            at = time.monotonic()
            now = time.clock_gettime(self._clock)
            self._reading = (now, at)
        else:
            now = paused_at
        return now - self._start + self._charged

    def _pause(self) -> None:
        """On the scanning thread, as a garbage collection starts on it."""
        if self._clock is not None and self._final is None:
            self._paused_at = time.clock_gettime(self._clock)

    def _resume(self) -> None:
        """On the scanning thread, as that collection ends: its CPU is not the scan's."""
        paused_at = self._paused_at
        if paused_at is not None and self._clock is not None:
            self._charged -= time.clock_gettime(self._clock) - paused_at
            self._paused_at = None

    def remaining(self) -> float | None:
        return None if self.seconds is None else self.seconds - self.spent()

    def exceeded(self) -> bool:
        return self.cancelled or (self.seconds is not None and self.spent() > self.seconds)

    def check(self) -> None:
        """On the scanning thread, between units of work: raise ``ScanBudgetExceeded`` once the budget is spent.

        A scan checks about a hundred times (between detectors, at each phone candidate), and reading a thread's CPU
        clock is a system call (1-3 us, against well under 1 us for the monotonic clock). A thread's CPU time never
        runs ahead of the wall time it ran, so while the last reading plus the wall time since it stays within the
        budget, the budget cannot be spent yet and the clock is not read: the same answer, without the call."""
        if self.cancelled:
            raise ScanBudgetExceeded(self.seconds or 0.0)
        if self.seconds is None:
            return
        if self._clock is not None and self._final is None:
            read, at = self._reading
            if read - self._start + (time.monotonic() - at) + self._charged + CLOCK_SLACK_S <= self.seconds:
                return
        if self.exceeded():
            raise ScanBudgetExceeded(self.seconds or 0.0)


_active = threading.local()  # the budget of the scan running on this thread, if any


@contextmanager
def scanning(budget: ScanBudget) -> Iterator[ScanBudget]:
    """Run a scan on this thread within ``budget``: ``check`` raises once it is spent."""
    budget.start()
    budget._outer = getattr(_active, "budget", None)
    _active.budget = budget
    try:
        yield budget
    finally:
        _active.budget = budget._outer
        budget.finish()


def check() -> None:
    """Raise ``ScanBudgetExceeded`` if the scan running on this thread has spent its budget (no scan: nothing)."""
    budget: ScanBudget | None = getattr(_active, "budget", None)
    if budget is not None:
        budget.check()


def current() -> ScanBudget | None:
    """The budget of the scan running on this thread (None: no scan): a loop that checks it between many small
    units of work (the analyzer's detectors) looks it up once, not at each ``check``."""
    return getattr(_active, "budget", None)


@contextmanager
def unmetered() -> Iterator[None]:
    """CPU spent inside is not the scan's: a model the first scan that needs it loads once for every later request
    (NER, ~0.7 s) would otherwise count against that one request."""
    budget: ScanBudget | None = getattr(_active, "budget", None)
    if budget is None:
        yield
        return
    # The budget's own reading, not the thread's clock: a collection inside is taken out already (``_collection``).
    started = budget.spent()
    try:
        yield
    finally:
        budget.charge(-(budget.spent() - started))


def _collection(phase: str, _info: dict[str, int]) -> None:
    """``gc.callbacks``: called on the thread that runs the collection, at its start and at its stop. Every scan
    running on this thread (an inner one and those it runs inside) stops counting CPU until the collection ends.
    Nothing to do where no scan runs: a thread's collections cost one thread-local lookup more."""
    budget: ScanBudget | None = getattr(_active, "budget", None)
    while budget is not None:
        if phase == "start":
            budget._pause()
        else:
            budget._resume()
        budget = budget._outer


gc.callbacks.append(_collection)
