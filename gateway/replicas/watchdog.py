"""The step watchdog: an engine that has work and makes no progress for ``timeout_s`` is killed, so that the
supervisor restarts it instead of leaving its requests waiting forever.

Progress is the engine's heartbeat (``engine.core.heartbeat``: a counter its loop bumps every turn, read from shared
memory). "Has work" is the client's view (``has_work``: requests sent whose last delta has not arrived), so an idle
engine, whose loop sleeps until a message comes, is never taken for a hung one; nor is one still loading its model
or compiling at start, since a client exists only once the engine said it is ready. The clock starts when work
appears or the counter last moved, whichever is later, so the bound is "no turn of the loop for ``timeout_s`` while
requests wait": one long step (a long prompt's prefill chunk on a CPU, a recompilation) must fit in it.

Hung is the only judgement made here: an engine starved of CPU still turns its loop, only slower, so its counter
moves and it is never killed; a slow answer, a full pipe or a late reply is neither a hang nor (for its client,
``engine.core.client``) a death.

The bound counts only time the watchdog saw: given the interval it is called at (``look_interval_s``), a look that
comes much later than that (this process was stopped, frozen with its container, or starved: its loop neither looked
nor read what the engine sent, and an engine blocked sending to it could not turn) starts the sighting afresh, so an
engine is never charged for a gap that was ours.

Only an engine in its own process can be killed (SIGKILL, which also ends a stopped process); one running in a thread
of this process is not watched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class _Sighting:
    replica: Any
    count: int
    working: bool
    since: float  # when the counter was last seen moving, or work was first seen
    looked: float  # when the watchdog last looked


class StepWatchdog:
    def __init__(self, timeout_s: float, *, clock: Callable[[], float] = time.monotonic,
                 look_interval_s: float | None = None) -> None:
        self.timeout_s = timeout_s
        self._clock = clock
        # A gap between looks longer than this was not watched: half the bound, and several intervals at least.
        self._longest_gap_s = max(timeout_s / 2, 4 * look_interval_s) if look_interval_s else float("inf")
        self._seen: dict[int, _Sighting] = {}
        self.kills = 0  # engines killed for hanging, lifetime

    @staticmethod
    def watchable(replica: Any) -> bool:
        return (getattr(replica, "heartbeat", None) is not None and getattr(replica, "core_pid", None) is not None
                and callable(getattr(replica, "has_work", None)))

    def hung(self, index: int, replica: Any) -> bool:
        """Whether replica ``index`` (the client now in that slot) has had work and no progress for the bound.
        Call it at a steady interval; a new client in the slot starts afresh."""
        if not self.watchable(replica) or not replica.is_alive():
            self._seen.pop(index, None)
            return False
        now, count, working = self._clock(), replica.heartbeat.count, replica.has_work()
        seen = self._seen.get(index)
        if (seen is None or seen.replica is not replica or seen.count != count or not (working and seen.working)
                or now - seen.looked > self._longest_gap_s):
            self._seen[index] = _Sighting(replica, count, working, now, now)
            return False
        seen.looked = now
        return now - seen.since >= self.timeout_s

    def kill(self, index: int, replica: Any) -> None:
        """SIGKILL the replica's engine process; its client then fails its requests as the engine's death."""
        pid: int = replica.core_pid
        log.error("engine replica %d (pid %d) made no progress in %.0f s with requests waiting: killing it to restart "
                  "it", index, pid, self.timeout_s)
        self._seen.pop(index, None)
        self.kills += 1
        with contextlib.suppress(ProcessLookupError):  # it died on its own meanwhile
            os.kill(pid, signal.SIGKILL)
