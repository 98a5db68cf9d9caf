"""The guardrails' per-request CPU budget: it counts the scanning thread's CPU (not its waits), the request is refused
with 422 guardrail_budget_exceeded (never forwarded unscanned), and the scan stops: a guard thread at its next check
between detectors, an analysis worker the same way or, when it is still busy past the budget inside one detector
call, killed and replaced; the next request is served."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Iterator

import psutil
import pytest

from bench.guard_budget import digit_groups
from gateway.guardrails import GuardConfig, GuardrailInputError, InputGuard, PiiAnalyzer
from gateway.guardrails.budget import ScanBudget, ScanBudgetExceeded, check, current, scanning, unmetered
from policies import Policy

SECRET = b"test-server-secret"
NORMAL = [{"role": "user", "content": "Call Dana on (415) 555-0132 about the March invoice."}]


def _burn(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


def test_the_budget_counts_the_threads_cpu_not_its_waits() -> None:
    with scanning(ScanBudget(0.05)) as budget:
        time.sleep(0.2)  # four budgets of wall time, no CPU
        check()
        _burn(0.08)
        with pytest.raises(ScanBudgetExceeded):
            check()
    assert 0.08 <= budget.spent() < 0.2
    check()  # no scan on this thread now: nothing to check


def test_checks_far_from_the_budget_do_not_read_the_threads_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    reads = []
    clock_gettime = time.clock_gettime

    def counted(clock: int) -> float:
        reads.append(clock)
        return clock_gettime(clock)

    monkeypatch.setattr(time, "clock_gettime", counted)
    with scanning(ScanBudget(5.0)) as budget:
        started = len(reads)
        for _ in range(1000):
            check()
        assert len(reads) == started  # a thousand checks, seconds from the budget: the monotonic clock told them
        budget.cancelled = True
        with pytest.raises(ScanBudgetExceeded):
            check()
    with scanning(ScanBudget(0.05)):
        _burn(0.08)
        with pytest.raises(ScanBudgetExceeded):  # near the budget the clock is read, and tells it is spent
            check()


def test_cpu_spent_unmetered_is_not_the_scans() -> None:
    with scanning(ScanBudget(0.05)) as budget:
        with unmetered():
            _burn(0.1)
        check()
        assert budget.spent() < 0.05


def test_another_thread_reads_the_scanning_threads_clock() -> None:
    budget = ScanBudget(10.0)
    started, stop = threading.Event(), threading.Event()

    def scan() -> None:
        with scanning(budget):
            started.set()
            while not stop.is_set():
                pass

    thread = threading.Thread(target=scan)
    thread.start()
    started.wait()
    time.sleep(0.3)
    midway = budget.spent()
    stop.set()
    thread.join()
    assert 0 < midway <= budget.spent()
    final = budget.spent()
    time.sleep(0.05)
    assert budget.spent() == final  # frozen once the scan ended


def _many_digit_messages(count: int, chars: int) -> list[dict[str, str]]:
    """Texts no guard has seen (each its own seed): every one is analysed, one detector call each of a few 0.1 s."""
    return [{"role": "user", "content": digit_groups(chars, seed=seed)} for seed in range(count)]


def test_a_guard_thread_over_budget_is_refused_and_stops_at_its_next_check(analyzer: PiiAnalyzer) -> None:
    guard = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(scan_budget_s=0.3, workers=1))
    messages = _many_digit_messages(60, 1_000)  # unbounded: several seconds of phone matching
    cpu = time.process_time()
    with pytest.raises(GuardrailInputError) as refused:
        asyncio.run(guard.scan_messages("budget-threads", messages, Policy()))
    assert refused.value.status_code == 422 and refused.value.code == "guardrail_budget_exceeded"
    assert "budget" in str(refused.value) and "415" not in str(refused.value)
    # The one guard thread is free again (a later scan runs on it) after at most one more detector call.
    result = asyncio.run(guard.scan_messages("budget-threads", NORMAL, Policy()))
    assert result.scanned_chars > 0
    assert time.process_time() - cpu < 1.5, "the scan went on well past its budget"


def test_the_sync_scan_is_refused_the_same_way(analyzer: PiiAnalyzer) -> None:
    guard = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(scan_budget_s=0.2))
    with pytest.raises(GuardrailInputError) as refused:
        guard.scan_messages_sync("budget-sync", _many_digit_messages(40, 1_000), Policy())
    assert refused.value.status_code == 422 and refused.value.code == "guardrail_budget_exceeded"


def test_no_budget_scans_to_the_end(analyzer: PiiAnalyzer) -> None:
    guard = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(scan_budget_s=None))
    result = guard.scan_messages_sync("budget-none", _many_digit_messages(3, 1_000), Policy())
    assert result.scanned_chars - result.boundary_chars == 3_000


@pytest.fixture(scope="module")
def pooled() -> Iterator[InputGuard]:
    guard = InputGuard(SECRET, config=GuardConfig(analysis_processes=1, scan_budget_s=0.3))
    guard.scan_messages_sync("warm", NORMAL, Policy())  # the worker is up
    yield guard
    guard.close()


def _worker_pid(guard: InputGuard) -> int:
    assert guard._processes is not None
    (pid,) = guard._processes.worker_pids()
    return pid


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_worker_over_budget_between_detectors_stops_itself(pooled: InputGuard) -> None:
    pid = _worker_pid(pooled)
    with pytest.raises(GuardrailInputError) as refused:
        asyncio.run(pooled.scan_messages("budget-worker", _many_digit_messages(60, 1_000), Policy()))
    assert refused.value.status_code == 422 and refused.value.code == "guardrail_budget_exceeded"
    assert _worker_pid(pooled) == pid  # it stopped at a check: no worker was killed
    assert pooled.scan_messages_sync("budget-worker-next", NORMAL, Policy()).scanned_chars > 0


def test_a_worker_still_busy_past_the_budget_is_killed_and_replaced(pooled: InputGuard) -> None:
    pid = _worker_pid(pooled)
    text = digit_groups(200_000, seed=7)  # one phone-detector call of tens of seconds
    with pytest.raises(GuardrailInputError) as refused:
        asyncio.run(pooled.scan_messages("budget-kill", [{"role": "user", "content": text}], Policy()))
    assert refused.value.status_code == 422 and refused.value.code == "guardrail_budget_exceeded"
    deadline = time.monotonic() + 10
    while not _gone(pid):  # killed, not burning on
        assert time.monotonic() < deadline, "the worker past its budget is still running"
        time.sleep(0.05)
    result = pooled.scan_messages_sync("budget-kill-next", NORMAL, Policy())  # a fresh worker serves it
    assert result.scanned_chars > 0 and _worker_pid(pooled) not in (pid, os.getpid())


@pytest.mark.parametrize(("setting", "budget"), [(0.25, 0.25), (0.0, None)])
def test_the_gateway_setting_reaches_the_scan(setting, budget):
    from gateway.app import _build_guardrails
    from gateway.core.settings import Settings

    guard_in, _guard_out, close = _build_guardrails(b"secret", Settings(_env_file=None,
                                                                        guardrail_scan_budget_s=setting))
    try:
        assert guard_in._guard.config.scan_budget_s == budget  # 0 is no limit
    finally:
        close()


def test_the_phone_detector_stops_inside_one_call_at_its_budget():
    # One detector call over digit groups runs for seconds; it must stop at its next candidate, not at the text's end.
    from gateway.guardrails.phones import PhoneNumberRecognizer

    text = digit_groups(20_000)
    recognizer = PhoneNumberRecognizer()
    with pytest.raises(ScanBudgetExceeded), scanning(ScanBudget(0.05)):
        recognizer.analyze(text, ["PHONE_NUMBER"])


def test_current_is_the_budget_of_the_scan_on_this_thread() -> None:
    """The analyzer looks the budget up once per call (``budget.current``) and checks it between its detectors."""
    assert current() is None
    outer, inner = ScanBudget(5.0), ScanBudget(None)
    with scanning(outer):
        assert current() is outer
        with scanning(inner):
            assert current() is inner
        assert current() is outer
    assert current() is None


def test_the_analyzer_checks_the_budget_it_looked_up(analyzer: PiiAnalyzer) -> None:
    spent = ScanBudget(5.0)
    spent.cancelled = True  # as a waiter that refused the request leaves it: the next check raises
    with scanning(spent), pytest.raises(ScanBudgetExceeded):
        analyzer.analyze_many(["mail dana.k@example.org"], ner_enabled=False)
    assert analyzer.analyze_many(["mail dana.k@example.org"], ner_enabled=False)[0]  # no scan: no budget to check
