"""Which engine host caller reports the engine's stats (``engine.core.stats_route``): the oldest, until it stops
confirming what it reads; then the oldest that keeps up, for good while it does. Whoever reports, the callers'
counters add up to the engine's, each caller's only grow, and a caller passed over drops its gauges to zero."""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Iterator

import pytest

from engine.core.engine_core import ClientPort
from engine.core.stats_route import StatsRoute
from engine.metrics import EngineStats

STALL_S = 2.0


def engine_stats(tokens: int, running: int = 3) -> EngineStats:
    return EngineStats(num_requests_running=running, num_requests_waiting=1, kv_cache_usage=0.5,
                       prefix_cache_queries=2 * tokens, prefix_cache_hits=tokens, prompt_tokens=4 * tokens,
                       generation_tokens=tokens, num_preemptions=0, timestamp_ns=tokens, num_blocks=64, block_size=16)


@pytest.fixture
def ports() -> Iterator[list[ClientPort]]:
    pipes = [mp.Pipe() for _ in range(3)]
    yield [ClientPort(inbox, outbox) for inbox, outbox in pipes]
    for ends in pipes:
        for end in ends:
            end.close()


class Callers:
    """The route, and what each caller last holds, as a worker's stats reader would."""

    def __init__(self, ports: list[ClientPort]) -> None:
        self.route = StatsRoute[ClientPort](stall_s=STALL_S)
        self.ports = ports
        self.held: dict[int, EngineStats] = {}

    def report(self, stats: EngineStats, now: float) -> list[tuple[int, tuple]]:
        sent = [(self.ports.index(port), message) for port, message in self.route.route(self.ports, stats, now)]
        for index, message in sent:
            previous = self.held.get(index)
            if previous is not None:  # each caller's counters only grow: a reader never takes them for a restart
                assert message[1].generation_tokens >= previous.generation_tokens
            self.held[index] = message[1]
        return sent

    def confirm(self, index: int, message: tuple, now: float) -> None:
        self.route.confirmed(self.ports[index], message[2], now)

    def counted(self) -> int:
        return sum(stats.generation_tokens for stats in self.held.values())


def test_the_oldest_caller_reports_while_it_confirms(ports: list[ClientPort]) -> None:
    callers = Callers(ports)
    for step in range(20):
        sent = callers.report(engine_stats(10 * step), now=float(step))
        assert [index for index, _ in sent] == [0]
        callers.confirm(0, sent[0][1], now=float(step))
    assert callers.counted() == 190


def test_a_stalled_reporter_is_passed_over_and_the_counters_still_add_up(ports: list[ClientPort]) -> None:
    callers = Callers(ports)
    first = callers.report(engine_stats(10), now=0.0)
    callers.confirm(0, first[0][1], now=0.0)
    # Caller 0 stops reading: its snapshots go unconfirmed; within the stall bound it keeps the role.
    assert [i for i, _ in callers.report(engine_stats(20), now=0.5)] == [0]
    assert [i for i, _ in callers.report(engine_stats(30), now=2.5)] == [0]
    sent = callers.report(engine_stats(40), now=2.6)
    assert [i for i, _ in sent] == [0, 1]  # a last snapshot to the one passed over, then the new reporter's
    standing_down, taking_over = sent[0][1], sent[1][1]
    assert len(standing_down) == 2  # not numbered: nothing to confirm
    assert (standing_down[1].num_requests_running, standing_down[1].num_requests_waiting,
            standing_down[1].kv_cache_usage) == (0, 0, 0.0)
    assert standing_down[1].generation_tokens == 30
    assert taking_over[1].generation_tokens == 10 and taking_over[1].num_requests_running == 3  # live gauges
    assert callers.counted() == 40


def test_the_role_stays_with_the_new_reporter_until_it_stalls_in_turn(ports: list[ClientPort]) -> None:
    callers = Callers(ports)
    callers.report(engine_stats(10), now=0.0)  # caller 0 never confirms
    sent = callers.report(engine_stats(20), now=3.0)
    assert [i for i, _ in sent] == [0, 1]
    callers.confirm(0, (None, None, 1), now=3.5)  # caller 0 reads again (its one numbered snapshot)
    for step in range(4, 10):
        sent = callers.report(engine_stats(10 * step), now=float(step))
        assert [i for i, _ in sent] == [1]  # no switching back while the reporter reads
        callers.confirm(1, sent[0][1], now=float(step))
    # Caller 1 stops reading: the oldest caller keeping up is 0 again, and its series carries on from its 10.
    callers.report(engine_stats(100), now=10.0)
    sent = callers.report(engine_stats(110), now=12.5)
    assert [i for i, _ in sent] == [1, 0]
    assert callers.held[0].generation_tokens == 10 + 110 - 100
    assert callers.counted() == 110


def test_a_caller_with_a_backlog_is_not_made_reporter(ports: list[ClientPort]) -> None:
    class Backlogged(ClientPort):
        backlog = 1024

    stuck = Backlogged(ports[1].inbox, ports[1].outbox)
    callers = Callers([ports[0], stuck, ports[2]])
    callers.report(engine_stats(10), now=0.0)
    sent = callers.report(engine_stats(20), now=3.0)
    assert [i for i, _ in sent] == [0, 2]


def test_when_none_keeps_up_the_reporter_keeps_the_role(ports: list[ClientPort]) -> None:
    callers = Callers(ports[:1])
    callers.report(engine_stats(10), now=0.0)
    assert [i for i, _ in callers.report(engine_stats(20), now=5.0)] == [0]


def test_a_reporter_that_leaves_hands_over_from_its_last_snapshot(ports: list[ClientPort]) -> None:
    callers = Callers(ports)
    sent = callers.report(engine_stats(10), now=0.0)
    callers.confirm(0, sent[0][1], now=0.0)
    callers.route.forget(ports[0])
    callers.ports = ports[1:]
    sent = callers.report(engine_stats(25), now=0.5)
    assert [message[1].generation_tokens for _, message in sent] == [15]



class Readers:
    """The route and what each caller has read: a caller holds only the snapshots it read (a killed worker's counter
    file stays at the last one), so the counts in any it never read must reach the sum through another caller."""

    def __init__(self, ports: list[ClientPort]) -> None:
        self.route = StatsRoute[ClientPort](stall_s=STALL_S)
        self.ports = list(ports)
        self.queued: dict[ClientPort, list[tuple]] = {port: [] for port in ports}
        self.held: dict[ClientPort, EngineStats] = {}

    def report(self, stats: EngineStats, now: float) -> list[ClientPort]:
        sent = self.route.route(self.ports, stats, now)
        for port, message in sent:
            self.queued[port].append(message)
        return [port for port, _ in sent]

    def read(self, port: ClientPort, now: float, count: int | None = None) -> None:
        """``port`` reads ``count`` of its queued snapshots (None: all), confirming the numbered ones."""
        queue = self.queued[port]
        taken = queue[:count]
        del queue[:len(taken)]
        for message in taken:
            previous = self.held.get(port)
            assert previous is None or message[1].generation_tokens >= previous.generation_tokens  # only grows
            self.held[port] = message[1]
            if len(message) > 2:
                self.route.confirmed(port, message[2], now)

    def leave(self, port: ClientPort) -> None:
        """``port`` is gone (its worker killed): what it read stays in the sum, its queue is never read."""
        self.route.forget(port)
        self.ports.remove(port)

    def counted(self) -> int:
        return sum(stats.generation_tokens for stats in self.held.values())


def _stall_until_passed_over(readers: Readers, a: ClientPort, b: ClientPort) -> None:
    """``a`` reports and reads 10 tokens, then stops reading while the engine counts to 30; at 40 ``b`` takes over."""
    assert readers.report(engine_stats(10), now=0.0) == [a]
    readers.read(a, now=0.0)
    assert readers.report(engine_stats(20), now=0.5) == [a]
    assert readers.report(engine_stats(30), now=2.5) == [a]
    assert readers.report(engine_stats(40), now=2.6) == [a, b]
    readers.read(b, now=2.6)
    assert readers.counted() == 10 + 10  # a read its 10; b's series starts with the 10 counted since a's last


def test_a_reporter_that_stalls_then_leaves_unread_hands_its_unread_counts_on(ports: list[ClientPort]) -> None:
    readers = Readers(ports)
    a, b = ports[0], ports[1]
    _stall_until_passed_over(readers, a, b)
    readers.leave(a)
    # The engine is idle: the snapshot after a leaves still carries a's unread 20 in b's series.
    assert readers.report(engine_stats(40), now=8.0) == [b]
    readers.read(b, now=8.0)
    assert readers.counted() == 40


def test_a_stalled_reporter_that_leaves_still_the_reporter_hands_its_unread_counts_on(
        ports: list[ClientPort]) -> None:
    readers = Readers(ports)
    a, b = ports[0], ports[1]
    assert readers.report(engine_stats(10), now=0.0) == [a]
    readers.read(a, now=0.0)
    assert readers.report(engine_stats(25), now=0.5) == [a]  # never read: a is killed within the stall bound
    readers.leave(a)
    assert readers.report(engine_stats(25), now=1.0) == [b]
    readers.read(b, now=1.0)
    assert readers.counted() == 25


@pytest.mark.parametrize("read", [None, 1], ids=["reads-all", "reads-one"])
def test_a_stalled_reporter_that_reads_again_before_it_leaves_is_not_counted_twice(
        ports: list[ClientPort], read: int | None) -> None:
    readers = Readers(ports)
    a, b = ports[0], ports[1]
    _stall_until_passed_over(readers, a, b)
    readers.read(a, now=3.0, count=read)  # a resumes: all its queued snapshots, or only the first (20)
    readers.leave(a)
    assert readers.report(engine_stats(50), now=8.0) == [b]
    readers.read(b, now=8.0)
    # b counts the engine's 10 since, and whatever a was sent but did not read (none, or 30 - 20).
    assert readers.held[b].generation_tokens == 10 + 10 + (0 if read is None else 10)
    assert readers.counted() == 50
