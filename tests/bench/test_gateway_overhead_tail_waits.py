"""The tail probe's per-request waits: a wrapped coroutine method is timed from its await to its return and
credited to the request whose task awaited it, and the breakdown sets the app's slowest requests' waits against
its fastest ones'."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench.overhead_tail import WAITS, _time_awaits, app_request_waits, slow_syncs_in_drains, timing_requests


class _Store:
    async def record(self, delay_s: float) -> str:
        await asyncio.sleep(delay_s)
        return "kept"


async def _serve_two_requests(store: _Store, requests: list[list[float]]) -> list[str]:
    answers: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        answers.append(await store.record(scope["delay_s"]))
        await asyncio.sleep(0.01)  # the app's own time past the wait

    timed = timing_requests(app, requests)
    # Both in flight at once: each is credited with its own wait only.
    await asyncio.gather(timed({"type": "http", "delay_s": 0.05}, None, None),
                         timed({"type": "http", "delay_s": 0.002}, None, None))
    await timed({"type": "lifespan", "delay_s": 0.0}, None, None)  # not a request: not noted
    return answers


def test_each_request_is_credited_with_its_own_wait() -> None:
    events: list[list[float]] = []
    requests: list[list[float]] = []
    original = _Store.record
    _time_awaits(_Store, ("record",), "audit_wait", events)
    try:
        answers = asyncio.run(_serve_two_requests(_Store(), requests))
    finally:
        _Store.record = original  # type: ignore[method-assign]
    assert answers == ["kept", "kept", "kept"]
    assert len(events) == 3 and len(requests) == 2
    audit = WAITS.index("audit_wait") + 2
    fast, slow = sorted(requests, key=lambda request: request[1])
    assert 0.002 <= fast[audit] < 0.04 <= 0.05 <= slow[audit] < 0.5
    assert fast[1] >= fast[audit] + 0.01 and slow[1] >= slow[audit] + 0.01
    assert all(request[WAITS.index("limit_wait") + 2] == 0.0 for request in requests)


def test_the_slow_requests_waits_are_set_against_the_fast_ones() -> None:
    """100 requests; the twenty slow ones (6 ms in the app) awaited their audit record 5 ms, the others (1 ms)
    0.3 ms; the limiter's wait is 0.2 ms in every one."""
    requests = [[i * 0.01, 0.006 if i % 5 == 3 else 0.001, 0.005 if i % 5 == 3 else 0.0003, 0.0002]
                for i in range(100)]
    waits = app_request_waits(requests)
    assert waits["thresholds_ms"]["p99"] == pytest.approx(6.0) and waits["thresholds_ms"]["p50"] == pytest.approx(1.0)
    assert waits["above_p99"] == pytest.approx({"app_ms": 6.0, "audit_wait": 5.0, "limit_wait": 0.2, "rest_ms": 0.8})
    assert waits["below_p50"] == pytest.approx({"app_ms": 1.0, "audit_wait": 0.3, "limit_wait": 0.2, "rest_ms": 0.5})
    assert app_request_waits([]) == {}


def test_slow_syncs_are_set_against_the_time_drains_took() -> None:
    # A run of 10 s with two drain batches of 0.5 s (10% of the time); four record batches, three of them slow, two
    # of those during a drain (one starts before the drain and ends inside it).
    drains = [[2.0, 0.5, 0.001], [6.0, 0.5, 0.001]]
    records = [[1.0, 0.0003, 0.0001, 1], [1.9990, 0.003, 0.0002, 2], [6.2, 0.004, 0.0002, 1],
               [8.0, 0.005, 0.0002, 3]]
    slow = slow_syncs_in_drains(records, drains, 10.0)
    assert slow["count"] == 3
    assert slow["overlapping_drain_share"] == pytest.approx(2 / 3)
    assert slow["drain_time_share"] == pytest.approx(0.1)
    assert slow_syncs_in_drains(records[:1], drains, 10.0)["overlapping_drain_share"] is None
