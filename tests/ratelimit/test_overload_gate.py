"""The worker's admission gate: the in-flight bound, the FIFO wait queue, its timeout, the engine-queue bound, and
that no exit path (timeout, cancellation, double release) loses or duplicates a slot."""

from __future__ import annotations

import asyncio
import time

import pytest

from gateway.ratelimit.overload import OVERLOAD_RETRY_AFTER_S, AdmissionGate, Deadline, Overloaded, overloaded_error


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
