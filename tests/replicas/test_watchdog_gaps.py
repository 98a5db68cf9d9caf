"""The step watchdog charges an engine only for time it watched: when its own looks come late (the gateway's process
was frozen or starved, so it read nothing the engine sent and an engine blocked sending to it could not turn), the
sighting starts afresh; at its steady interval a standing counter with work waiting is still a hang. The timing
rules on a fake clock; killing a real stopped engine is ``tests/gateway/test_engine_supervision.py``."""

from __future__ import annotations

from collections.abc import Callable

from engine.core.heartbeat import Heartbeat
from gateway.replicas.pool import SUPERVISE_INTERVAL_S
from gateway.replicas.watchdog import StepWatchdog

BOUND_S = 30.0


class _Replica:
    """The parts of an engine client the watchdog reads."""

    def __init__(self) -> None:
        self.heartbeat = Heartbeat.shared()
        self.core_pid = 1
        self.work = True

    def has_work(self) -> bool:
        return self.work

    def is_alive(self) -> bool:
        return True


def _watched() -> tuple[_Replica, Callable[[float], bool]]:
    """A working replica and ``hung_at(t)``: the watchdog's look at it at time ``t`` (on the pool's look interval)."""
    now = [0.0]
    watchdog = StepWatchdog(BOUND_S, clock=lambda: now[0], look_interval_s=SUPERVISE_INTERVAL_S)
    replica = _Replica()

    def hung_at(t: float) -> bool:
        now[0] = t
        return watchdog.hung(0, replica)

    return replica, hung_at


def test_a_standing_counter_watched_at_the_interval_is_a_hang_after_the_bound() -> None:
    _, hung_at = _watched()
    assert not any(hung_at(i * SUPERVISE_INTERVAL_S) for i in range(int(BOUND_S / SUPERVISE_INTERVAL_S)))
    assert hung_at(BOUND_S)


def test_a_gap_in_the_watchdogs_own_looks_is_not_charged_to_the_engine() -> None:
    replica, hung_at = _watched()
    assert not hung_at(0.0) and not hung_at(0.5)
    # Our process was frozen for longer than the bound; the engine, blocked sending to us, did not beat.
    assert not hung_at(0.5 + BOUND_S + 10)
    # Once we look (and read) again, the engine beats: never killed.
    replica.heartbeat.beat()
    assert not hung_at(41.0) and not hung_at(41.5)
    # A hang after the gap is still found, one bound after the looks resumed.
    t = 41.5
    while not hung_at(t):
        t += SUPERVISE_INTERVAL_S
        assert t < 41.5 + BOUND_S + 1
    assert t >= 41.5 + BOUND_S - SUPERVISE_INTERVAL_S


def test_a_late_look_within_half_the_bound_keeps_the_clock_running() -> None:
    _, hung_at = _watched()
    # A starved supervisor looking every 10 s (a third of the bound) still finds a real hang.
    assert not hung_at(0.0) and not hung_at(10.0) and not hung_at(20.0) and hung_at(30.0)


def test_without_an_interval_every_look_counts() -> None:
    now = [0.0]
    watchdog = StepWatchdog(BOUND_S, clock=lambda: now[0])
    replica = _Replica()
    now[0] = 0.0
    assert not watchdog.hung(0, replica)
    now[0] = 31.0
    assert watchdog.hung(0, replica)
