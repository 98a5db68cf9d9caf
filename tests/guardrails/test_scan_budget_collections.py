"""A garbage collection that runs on the scanning thread is not charged to the scan's CPU budget: the collector walks
the whole process's objects wherever an allocation crosses its threshold, so a request must not be refused for it.
The scan's own work is still charged, and CPU that ``unmetered`` takes out is not taken out twice when a collection
runs inside it."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from typing import Any

import pytest

from gateway.guardrails import PiiAnalyzer, processes
from gateway.guardrails.budget import ScanBudget, ScanBudgetExceeded, check, scanning, unmetered

TINY_BUDGET_S = 0.02
GARBAGE = 400_000  # cyclic objects for one collection to free: tens to hundreds of milliseconds of its CPU


def _burn(seconds: float) -> None:
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass


def _cyclic_garbage(count: int) -> None:
    """``count`` objects that only the collector can free (each refers to itself), left for the next collection."""
    for _ in range(count):
        node: list[Any] = []
        node.append(node)


@pytest.fixture
def collections_held() -> Iterator[None]:
    """No automatic collection while the test lays out its garbage: the test's own ``gc.collect`` frees it."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


def _expensive_collection() -> float:
    """Collect the garbage laid out before (``_cyclic_garbage``) on this thread; the thread CPU it took."""
    started = time.thread_time()
    gc.collect()
    took = time.thread_time() - started
    assert took > 2 * TINY_BUDGET_S, "the collection was too cheap to tell anything"
    return took


@pytest.mark.usefixtures("collections_held")
def test_a_collection_on_the_scanning_thread_is_not_charged_but_the_scans_work_is() -> None:
    _cyclic_garbage(GARBAGE)
    with scanning(ScanBudget(TINY_BUDGET_S)) as budget:
        _expensive_collection()
        check()  # not refused: the collection's CPU is not the scan's
        assert budget.spent() < TINY_BUDGET_S
        _burn(2 * TINY_BUDGET_S)  # the scan's own work still counts
        with pytest.raises(ScanBudgetExceeded):
            check()
    assert 2 * TINY_BUDGET_S <= budget.spent() < 4 * TINY_BUDGET_S


@pytest.mark.usefixtures("collections_held")
def test_the_budget_stands_still_while_a_collection_runs() -> None:
    """What a waiter on another thread reads (``spent``) during a long collection: not the collection's CPU."""
    seen: list[float] = []

    def during(phase: str, _info: dict[str, int]) -> None:  # runs after the budget's own callback at "start"
        if phase == "start":
            _burn(2 * TINY_BUDGET_S)  # work inside the collection, as the collector's own walk would be
            seen.append(budget.spent())

    with scanning(ScanBudget(TINY_BUDGET_S)) as budget:
        gc.callbacks.append(during)
        try:
            gc.collect()
        finally:
            gc.callbacks.remove(during)
        assert seen and seen[0] < TINY_BUDGET_S
        assert budget.spent() < TINY_BUDGET_S


@pytest.mark.usefixtures("collections_held")
def test_a_collection_inside_unmetered_work_is_taken_out_once() -> None:
    _cyclic_garbage(GARBAGE)
    with scanning(ScanBudget(10.0)) as budget:
        with unmetered():
            _expensive_collection()
        _burn(2 * TINY_BUDGET_S)
        assert budget.spent() >= 2 * TINY_BUDGET_S  # not less by the collection a second time


@pytest.mark.usefixtures("collections_held")
def test_every_scan_running_on_the_thread_stops_counting() -> None:
    _cyclic_garbage(GARBAGE)
    with scanning(ScanBudget(TINY_BUDGET_S)) as outer:
        with scanning(ScanBudget(TINY_BUDGET_S)) as inner:
            _expensive_collection()
            check()
        assert inner.spent() < TINY_BUDGET_S and outer.spent() < TINY_BUDGET_S


def test_an_analysis_worker_charges_its_scan_without_its_collections(analyzer: PiiAnalyzer,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """What a worker process reports as its scan's CPU (``processes._analyze_many``, run here in this process with
    the real analyzer): with young collections made frequent and each made as costly as a full one over a big heap
    (5 ms inside the collection), most of the scan's thread CPU is collections, and none of it is charged."""
    monkeypatch.setattr(processes, "_analyzer", analyzer)
    text = "Call Dana on (415) 555-0132 about the March invoice; mail dana@example.org. " * 20
    processes._analyze_many([text], False, None)  # this text's lazily built parts are built before measuring
    collections = 0

    def costly(phase: str, _info: dict[str, int]) -> None:
        nonlocal collections
        if phase == "start":
            collections += 1
            _burn(0.005)

    threshold = gc.get_threshold()
    gc.set_threshold(50)  # a young collection about every 50 container objects allocated net
    gc.callbacks.append(costly)
    try:
        started = time.thread_time()
        _, charged = processes._analyze_many([text], False, None)
        took = time.thread_time() - started
    finally:
        gc.callbacks.remove(costly)
        gc.set_threshold(*threshold)
    assert collections >= 5, "too few collections ran during the scan to tell anything"
    assert charged < took - 0.8 * collections * 0.005
