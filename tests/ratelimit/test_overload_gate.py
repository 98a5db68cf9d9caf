"""The worker's admission gate: the in-flight bound, the FIFO wait queue, its timeout, the engine-queue bound, and
that no exit path (timeout, cancellation, double release) loses or duplicates a slot."""

from __future__ import annotations

import asyncio
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.ratelimit.overload import (
    OVERLOAD_RETRY_AFTER_S,
    AdmissionGate,
    Deadline,
    GateSlot,
    Overloaded,
    overloaded_error,
)


async def test_slots_beyond_the_bound_wait_in_line_and_are_handed_on_in_order() -> None:
    gate = AdmissionGate(max_inflight=2, max_queued=2, queue_timeout_s=5)
    first, second = await gate.acquire(), await gate.acquire()
    assert gate.try_acquire() is None  # never waits
    order: list[str] = []

    async def waiter(name: str) -> None:
        slot = await gate.acquire()
        order.append(name)
        await asyncio.sleep(0.01)
        slot.release()

    waiters = [asyncio.create_task(waiter("a")), asyncio.create_task(waiter("b"))]
    await asyncio.sleep(0.01)
    assert (gate.in_flight, gate.queued) == (2, 2)
    with pytest.raises(Overloaded) as refused:
        await gate.acquire()  # the line is full: refused at once
    assert refused.value.reason == "queue_full" and refused.value.retry_after_s == OVERLOAD_RETRY_AFTER_S
    first.release()
    first.release()  # idempotent: a second release frees nothing more
    await asyncio.gather(*waiters)
    assert order == ["a", "b"]
    assert (gate.in_flight, gate.queued) == (1, 0)
    second.release()
    assert gate.in_flight == 0


async def test_a_wait_past_the_queue_timeout_is_refused_and_leaves_the_line() -> None:
    gate = AdmissionGate(max_inflight=1, max_queued=4, queue_timeout_s=0.1)
    held = await gate.acquire()
    started = time.monotonic()
    with pytest.raises(Overloaded) as refused:
        await gate.acquire()
    assert refused.value.reason == "queue_timeout"
    assert 0.09 <= time.monotonic() - started < 1.0
    assert gate.queued == 0
    held.release()
    assert gate.in_flight == 0
    (await gate.acquire()).release()  # the freed slot is really free


async def test_a_cancelled_waiter_gives_up_its_place_without_taking_a_slot() -> None:
    gate = AdmissionGate(max_inflight=1, max_queued=4, queue_timeout_s=5)
    held = await gate.acquire()
    cancelled = asyncio.create_task(gate.acquire())
    patient = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0.01)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    held.release()
    slot = await asyncio.wait_for(patient, 1)  # the slot skipped the cancelled waiter
    assert gate.in_flight == 1
    slot.release()
    assert (gate.in_flight, gate.queued) == (0, 0)


async def test_a_slot_handed_over_as_the_wait_ends_is_passed_on_not_lost() -> None:
    gate = AdmissionGate(max_inflight=1, max_queued=4, queue_timeout_s=5)
    held = await gate.acquire()
    leaving = asyncio.create_task(gate.acquire())
    patient = asyncio.create_task(gate.acquire())
    await asyncio.sleep(0.01)
    held.release()  # hands the slot to the first waiter ...
    leaving.cancel()  # ... which gives up before it runs again: the slot must go on to the next in line
    with pytest.raises(asyncio.CancelledError):
        await leaving
    (await asyncio.wait_for(patient, 1)).release()
    assert (gate.in_flight, gate.queued) == (0, 0)


async def test_an_engine_queue_past_its_bound_refuses_at_once() -> None:
    waiting: list[int | None] = [None]
    gate = AdmissionGate(max_inflight=8, max_queued=8, queue_timeout_s=1, max_engine_waiting=3,
                         engine_waiting=lambda: waiting[0])
    (await gate.acquire()).release()  # no stats yet: no engine bound to apply
    waiting[0] = 2
    (await gate.acquire()).release()
    waiting[0] = 3
    with pytest.raises(Overloaded) as refused:
        await gate.acquire()
    assert refused.value.reason == "engine_queue_full"
    assert gate.in_flight == 0


def test_the_overload_error_is_a_503_in_openai_shape_with_retry_after() -> None:
    error = overloaded_error(Overloaded("queue_full", "The server is overloaded"))
    assert error.status == 503
    assert error.body() == {"error": {"message": "The server is overloaded", "type": "service_unavailable_error",
                                      "param": None, "code": "overloaded"}}
    assert error.headers == {"retry-after": str(OVERLOAD_RETRY_AFTER_S)}
    assert error.decision == {"stage": "admission", "decision": "refused", "reason": "queue_full"}


def test_bounds_are_validated() -> None:
    with pytest.raises(ValueError, match="max_inflight"):
        AdmissionGate(0, 1, 1)
    with pytest.raises(ValueError, match="max_queued"):
        AdmissionGate(1, -1, 1)


def test_a_deadline_counts_from_the_request_arrival() -> None:
    arrived = time.perf_counter_ns() - 2_000_000_000  # two seconds ago
    deadline = Deadline.after(5.0, started_ns=arrived)
    assert 2.5 < deadline.remaining() <= 3.0 and not deadline.expired
    assert Deadline.after(1.0, started_ns=arrived).expired
    assert Deadline.after(1.0, started_ns=arrived).remaining() == 0.0


# -- the live count of waiters ----------------------------------------------------------------------------------------
# Random arrivals (some with a queue timeout that fires on the next loop step), releases, cancellations of waiting
# tasks, releases and cancellations of the same waiter back to back, and loop steps between them: after every one the
# gate's kept count must equal the walk over the line it replaces (the waiters in line not yet done), including just
# after a cancel, before the cancelled task has run its cleanup.
GATE_OPS = st.lists(st.sampled_from(["arrive", "arrive_timing_out", "release", "cancel", "release_then_cancel",
                                     "step"]), min_size=1, max_size=60)


def _waiting_by_walk(gate: AdmissionGate) -> int:
    return sum(1 for waiter in gate._waiters if not waiter.done())


async def _run_gate_ops(ops: list[str], choices: list[int], max_inflight: int, max_queued: int) -> None:
    gate = AdmissionGate(max_inflight=max_inflight, max_queued=max_queued, queue_timeout_s=60)
    held: list[GateSlot] = []
    tasks: list[asyncio.Task[GateSlot]] = []
    picks = iter(choices)

    def pick(n: int) -> int:
        return next(picks, 0) % n

    def collect() -> None:
        for task in [t for t in tasks if t.done()]:
            tasks.remove(task)
            if not task.cancelled() and task.exception() is None:
                held.append(task.result())
            elif not task.cancelled():
                assert isinstance(task.exception(), Overloaded)

    def check() -> None:
        assert gate.queued == _waiting_by_walk(gate)
        assert 0 <= gate.queued <= max_queued

    for op in ops:
        if op in ("arrive", "arrive_timing_out"):
            gate.queue_timeout_s = 0 if op == "arrive_timing_out" else 60
            tasks.append(asyncio.create_task(gate.acquire()))
            await asyncio.sleep(0)  # the arrival runs up to its wait (the timeout is read as it starts waiting)
            gate.queue_timeout_s = 60
        elif op == "release" and held:
            held.pop(pick(len(held))).release()
        elif op == "cancel" and tasks:
            tasks[pick(len(tasks))].cancel()
        elif op == "release_then_cancel" and held and tasks:
            held.pop(pick(len(held))).release()  # hands the slot to the first waiter ...
            tasks[0].cancel()  # ... whose task may be cancelled before it runs again
        elif op == "step":
            await asyncio.sleep(0)
        check()
        collect()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    collect()
    check()
    assert gate.queued == 0
    assert gate.in_flight == len(held)  # no slot lost or duplicated on any path
    for slot in held:
        slot.release()
    assert (gate.in_flight, gate.queued) == (0, 0)


@settings(max_examples=300, deadline=None)
@given(ops=GATE_OPS, choices=st.lists(st.integers(min_value=0, max_value=1000), max_size=60),
       max_inflight=st.integers(min_value=1, max_value=3), max_queued=st.integers(min_value=0, max_value=6))
def test_the_live_waiter_count_equals_a_walk_over_the_line(ops: list[str], choices: list[int], max_inflight: int,
                                                             max_queued: int) -> None:
    asyncio.run(_run_gate_ops(ops, choices, max_inflight, max_queued))
