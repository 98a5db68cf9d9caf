"""Which caller of an engine host reports the engine's stats, and what each caller is sent.

A host's callers are one gateway's workers, whose metrics add up (Prometheus' multiprocess mode sums the workers'
gauges and counters): were each to report the engine, ``/metrics`` would count it once per worker. So one caller
reports at a time, and it must be one that reads: a worker that has stopped (SIGSTOP, a frozen event loop) would hold
the snapshots unread while every worker's ``/metrics``, and whatever else reads the engine's stats, went stale.

The reporter confirms each snapshot it reads (``("stats_read", sequence)``, ``engine.core.client``). One that has
left a snapshot unconfirmed for ``stall_s`` is passed over for the oldest caller that keeps up (no snapshot
unconfirmed that long, nothing waiting in its backlog). The new reporter keeps the role until it, in turn, stalls or
leaves: the role does not go back and forth while both read.

Counters: each caller's series only grows, and the callers' series add up to the engine's. A caller that becomes the
reporter carries on its own series from where it last stood, by what the engine counted since the last snapshot any
reporter was sent. A caller passed over is sent one last snapshot with its gauges at zero and its counters where they
stood, so that once it reads again its share of the summed gauges is gone and its counters stay.

A caller that leaves (its worker killed) keeps, in the summed counters, only what it confirmed it read: the counts in
snapshots it was sent but never read would be lost from the sum. So each caller's unconfirmed snapshots are kept by
sequence, and when it leaves, what it was sent beyond what it confirmed goes into the series of whoever reports next
(its next snapshot carries them). A caller that reads again before it leaves confirms them itself: nothing moves, so
nothing is counted twice. Past ``PENDING_LIMIT`` unread snapshots the oldest counts as read: a caller that far behind
may lose those counts from the sum, never count them twice.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from engine.metrics import COUNTER_FIELDS, EngineStats, now_ns

REPORTER_STALL_S = 2.0  # four busy snapshots' time: a reporter whose loop is merely busy confirms well within it
PENDING_LIMIT = 256  # unconfirmed snapshots kept per caller: two minutes of busy snapshots

Counters = dict[str, int]  # EngineStats' lifetime counters by name (engine.metrics.COUNTER_FIELDS)


def _counters(stats: EngineStats | None) -> Counters:
    return {name: getattr(stats, name) if stats is not None else 0 for name in COUNTER_FIELDS}


def _minus(a: Counters, b: Counters) -> Counters:
    return {name: a[name] - b[name] for name in COUNTER_FIELDS}


@dataclass
class _Share:
    """What one caller has been sent, and what it confirmed it read."""

    sent: EngineStats | None = None  # the last snapshot it got: its counters are its series
    offset: Counters = field(default_factory=lambda: _counters(None))  # taken off the engine's counters for it
    last_sequence: int = 0  # the last snapshot sent to it
    unconfirmed_since: float | None = None  # since when a snapshot sent to it waits for its confirmation
    confirmed: Counters = field(default_factory=lambda: _counters(None))  # its series as of its last confirmation
    pending: deque[tuple[int, Counters]] = field(default_factory=deque)  # sent, unconfirmed: (sequence, counters)


class Caller(Protocol):
    """A caller as the route sees it (``engine.core.engine_core.ClientPort``)."""

    @property
    def backlog(self) -> int:
        """Bytes sent to it that its socket had no room for yet."""
        ...


C = TypeVar("C", bound=Caller)


class StatsRoute(Generic[C]):
    def __init__(self, stall_s: float = REPORTER_STALL_S) -> None:
        self.stall_s = stall_s
        self.reporter: C | None = None
        self._shares: dict[C, _Share] = {}
        self._last_reported: EngineStats | None = None  # the engine's snapshot last sent to a reporter
        self._sequence = 0
        self._unclaimed = _counters(None)  # sent to callers that left without reading: the next reporter's to add

    def route(self, ports: list[C], stats: EngineStats,
              now: float) -> list[tuple[C, tuple[Any, ...]]]:
        """The messages that carry the engine's snapshot ``stats`` to ``ports`` (oldest first), in order: a last one
        to a reporter just passed over, then the reporter's."""
        messages: list[tuple[C, tuple[Any, ...]]] = []
        reporter = self._choose(ports, now)
        if reporter is not self.reporter:
            if self.reporter is not None and self.reporter in ports:
                messages.append((self.reporter, ("stats", self._stand_down(self.reporter))))
            self._take_over(reporter)
        share = self._shares.setdefault(reporter, _Share())
        if any(self._unclaimed.values()):
            share.offset = _minus(share.offset, self._unclaimed)
            self._unclaimed = _counters(None)
        snapshot = dataclasses.replace(stats, **_minus(_counters(stats), share.offset))
        self._sequence += 1
        share.sent, share.last_sequence = snapshot, self._sequence
        share.pending.append((self._sequence, _counters(snapshot)))
        if len(share.pending) > PENDING_LIMIT:
            share.confirmed = share.pending.popleft()[1]
        if share.unconfirmed_since is None:
            share.unconfirmed_since = now
        self._last_reported = stats
        messages.append((reporter, ("stats", snapshot, self._sequence)))
        return messages

    def confirmed(self, port: C, sequence: int, now: float) -> None:
        """``port`` read the snapshot numbered ``sequence`` (and every one before it)."""
        share = self._shares.get(port)
        if share is None:
            return
        while share.pending and share.pending[0][0] <= sequence:
            share.confirmed = share.pending.popleft()[1]
        # Snapshots sent after it still wait; it reads, so their wait counts from now.
        share.unconfirmed_since = None if sequence >= share.last_sequence else now

    def forget(self, port: C) -> None:
        """``port`` has left: what it was sent but never confirmed goes to whoever reports next."""
        share = self._shares.pop(port, None)
        if share is not None:
            lost = _minus(_counters(share.sent), share.confirmed)
            self._unclaimed = {name: self._unclaimed[name] + lost[name] for name in COUNTER_FIELDS}
        if port is self.reporter:
            self.reporter = None

    def _stalled(self, port: C, now: float) -> bool:
        share = self._shares.get(port)
        since = share.unconfirmed_since if share is not None else None
        return since is not None and now - since > self.stall_s

    def _choose(self, ports: list[C], now: float) -> C:
        current = self.reporter if self.reporter in ports else None
        if current is not None and not self._stalled(current, now):
            return current
        for port in ports:
            if port is not current and not port.backlog and not self._stalled(port, now):
                return port
        return current if current is not None else ports[0]  # none keeps up: the snapshot waits where it is

    def _take_over(self, port: C) -> None:
        share = self._shares.setdefault(port, _Share())
        last = self._last_reported
        # Its series goes on from share.sent by what the engine counted since `last`.
        share.offset = _minus(_counters(last), _counters(share.sent))
        self.reporter = port

    def _stand_down(self, port: C) -> EngineStats:
        share = self._shares[port]
        assert share.sent is not None  # a reporter has been sent a snapshot
        share.sent = dataclasses.replace(share.sent, num_requests_running=0, num_requests_waiting=0,
                                         kv_cache_usage=0.0, timestamp_ns=now_ns())
        return share.sent
