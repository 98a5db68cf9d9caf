"""``ReplicaPool``: N engine replicas served as one ``engine.protocol.EngineClient``.

Each request goes to the replica ``affinity.choose`` picks (its prefix cache, within a load bound) and stays
there: deltas, abort and errors all come from that replica. The pool counts requests in flight per replica itself,
from the first delta requested to the stream's end, so routing needs no round trip to the engines.

Liveness: a replica is dead only when its engine has ended: its process exited, its connection closed, or the
watchdog below killed it for making no progress while it had work (``engine.core.client`` says what its client
counts as an end; a busy, slow or CPU-starved engine is none of these). The pool is alive while any replica is; new
requests go to live replicas only. A request on a replica that dies before it sent a single delta is sent again to a
live replica (the client has seen nothing, so nothing is duplicated); one that has streamed gets the replica's
``EngineDeadError``, as with a single engine. Given a ``restart`` callable, the pool brings dead replicas back
(``supervise``): without it a dead replica would stay dead while ``/healthz`` says 200 (degraded), and an
orchestrator that restarts on 503 would never restart the gateway. Restarts back off (1 s doubling to 60 s) while a
replica keeps dying young; a pool that only reconnects to hosts another process restarts
(``restart_backoff_s=RECONNECT_BACKOFF_S``) retries every 2 s at most, so it is back within seconds of the host's
socket answering again. Given ``watchdog_s``, the supervisor also kills a replica that has work and makes no
progress for that long (``watchdog.StepWatchdog``), which turns a hang into a restart. A pool of one replica is how
a single engine is supervised. ``stats()`` merges the replicas' snapshots, counting a replaced replica's last
counters so totals never go backwards.

Standby: given ``standby`` (a callable that starts one more engine, or returns None when none is to be kept, a
decision it may take late), the pool keeps one engine started and idle beside
the serving ones and promotes it into the slot of a replica that dies, at once and with no backoff: serving resumes
in about a second instead of after a model load, and a request that the dead replica had not started is sent to the
promoted engine. A new standby is then started in the background (backing off like a restart while standbys die
young). A cold restart that finishes after a promotion filled its slot becomes the standby instead, and while a
cold restart is under way no other standby starts. The first standby
starts ``standby_delay_s`` after the pool, so that a gateway (re)starting serves before a second model load competes
with it for the CPU. When the gateway begins to stop (``begin_shutdown``, at the start of its drain) the standby is
stopped and none is started again: a standby that dies then (a signal to the whole process group) is expected, and
not logged as a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

from engine.errors import EngineDeadError, InvalidRequestError
from engine.metrics import COUNTER_FIELDS, EngineStats, EngineStatsSource, EngineWaitingSource
from engine.outputs import RequestOutput
from engine.protocol import EngineClient
from engine.request import EngineRequest
from gateway.core.protocols import ClassCheck
from gateway.replicas import affinity
from gateway.replicas.watchdog import StepWatchdog

reports_stats = ClassCheck[EngineStatsSource](EngineStatsSource)
reads_waiting = ClassCheck[EngineWaitingSource](EngineWaitingSource)

log = logging.getLogger(__name__)
SUPERVISE_INTERVAL_S = 0.5  # how often the supervisor looks for dead replicas
RESTART_BACKOFF_S = (1.0, 60.0)  # first delay before a restart, and its cap (doubling while a replica dies young)
# A worker's pool reconnecting to an engine host that `warden serve` restarts: a connect attempt costs a refused
# connection, and the host's own restarts back off already, so the worker only has to notice it is back, promptly.
RECONNECT_BACKOFF_S = (0.5, 2.0)
STABLE_UPTIME_S = 60.0  # a replica that lived this long before dying restarts after the first delay again


def restart_delay(lived_s: float, backoff_s: float,
                  bounds: tuple[float, float] = RESTART_BACKOFF_S) -> tuple[float, float]:
    """How long to wait before restarting what died after ``lived_s`` seconds, and the backoff to keep for next
    time: the first delay (``bounds[0]``) after a stable run, else the current backoff, which doubles up to the cap
    (``bounds[1]``)."""
    delay = bounds[0] if lived_s >= STABLE_UPTIME_S else min(backoff_s, bounds[1])
    return delay, min(bounds[1], delay * 2)


class ReplicaPool:
    def __init__(self, replicas: Sequence[EngineClient], *, block_size: int,
                 spill_min: int = affinity.SPILL_MIN, spill_fraction: float = affinity.SPILL_FRACTION,
                 restart: Callable[[int], Awaitable[EngineClient]] | None = None,
                 watchdog_s: float | None = None,
                 standby: Callable[[], Awaitable[EngineClient | None]] | None = None,
                 standby_delay_s: float = 0.0,
                 restart_backoff_s: tuple[float, float] = RESTART_BACKOFF_S) -> None:
        assert replicas, "a pool needs at least one replica"
        first = replicas[0]
        assert all(r.model_name == first.model_name and r.max_model_len == first.max_model_len for r in replicas), \
            "replicas must serve the same model"
        self.replicas: list[EngineClient] = list(replicas)
        self.model_name = first.model_name
        self.max_model_len = first.max_model_len
        self.tokenizer = first.tokenizer
        self.vocab_size: int | None = getattr(first, "vocab_size", None)
        self.block_size = block_size
        self.spill_min = spill_min
        self.spill_fraction = spill_fraction
        self.in_flight = [0] * len(self.replicas)
        self.routed = [0] * len(self.replicas)  # requests sent to each replica, lifetime
        self._owner: dict[str, int] = {}  # request id -> replica, while its stream is open
        self._merged: tuple[tuple[Any, ...], EngineStats | None] = ((), None)
        self._restart = restart
        self.restarts = [0] * len(self.replicas)  # replicas brought back, per index, lifetime
        self._retired: list[EngineStats] = []  # the last snapshots of replaced replicas (their counters still count)
        self._started_at = [time.monotonic()] * len(self.replicas)
        self._restart_bounds = restart_backoff_s
        self._backoff = [restart_backoff_s[0]] * len(self.replicas)
        self._restarting: dict[int, asyncio.Task[None]] = {}
        self._supervisor: asyncio.Task[None] | None = None
        self.watchdog = StepWatchdog(watchdog_s, look_interval_s=SUPERVISE_INTERVAL_S) if watchdog_s else None
        self._open_standby = standby
        self.standby: EngineClient | None = None  # started, idle, promoted when a replica dies
        self.promotions = 0  # standbys promoted into a dead replica's slot, lifetime
        self._standby_since = time.monotonic()
        self._standby_keeper: asyncio.Task[None] | None = None
        self._standby_delay_s = standby_delay_s
        self._closing = False  # the gateway is stopping: no standby is kept, a dying one is expected
        self._reaping: set[asyncio.Task[None]] = set()  # dead engines being shut down (reaped, pipes closed)

    # --- routing --------------------------------------------------------------------------------------------------
    def live(self) -> list[bool]:
        return [r.is_alive() for r in self.replicas]

    def route(self, request: EngineRequest, exclude: set[int] | frozenset[int] = frozenset()) -> int:
        """The replica ``request`` would go to now (never one in ``exclude``). Raises ``EngineDeadError`` when none
        is live."""
        live = [alive and i not in exclude for i, alive in enumerate(self.live())]
        if not any(live):  # every candidate is dead: a standby takes a dead slot now, not at the supervisor's next look
            promoted = next((i for i, alive in enumerate(self.live()) if not alive and self._promote(i)), None)
            if promoted is not None:
                live[promoted] = True
        if sum(live) > 1:
            choice = affinity.choose(affinity.route_key(request, self.block_size), self.in_flight, live,
                                     spill_min=self.spill_min, spill_fraction=self.spill_fraction)
        else:
            choice = next((i for i, alive in enumerate(live) if alive), None)
        if choice is None:
            raise EngineDeadError("every engine replica is dead")
        return choice

    def replica_of(self, request_id: str) -> int | None:
        return self._owner.get(request_id)

    # --- EngineClient ---------------------------------------------------------------------------------------------
    async def generate(self, request: EngineRequest) -> AsyncIterator[RequestOutput]:
        rid = request.request_id
        if rid in self._owner:  # abort() must find one replica per id
            raise InvalidRequestError(f"request id {rid!r} is already running", param="request_id")
        tried: set[int] = set()
        while True:
            index = self.route(request, exclude=tried)
            tried.add(index)
            self._owner[rid] = index
            self.in_flight[index] += 1
            self.routed[index] += 1
            stream = self.replicas[index].generate(request)
            released = streamed = False
            try:
                async for output in stream:
                    streamed = True
                    if output.finished:
                        # The replica is done with it now; a caller that stops at the last delta may close us later.
                        released = self._release(index, rid)
                    yield output
                return
            except EngineDeadError:
                if streamed:
                    raise
                if self._promote(index):  # a fresh engine stands in that slot now: the request may go there
                    tried.discard(index)
                elif not any(alive and i not in tried for i, alive in enumerate(self.live())):
                    raise
                log.warning("engine replica %d died before request %s started; sending it to another", index, rid)
            finally:
                # Closed here, not when the garbage collector gets to it: an unfinished stream aborts its request on
                # close, which frees the replica's blocks now.
                await stream.aclose()  # type: ignore[attr-defined]
                if not released:
                    self._release(index, rid)

    def _release(self, index: int, request_id: str) -> bool:
        self.in_flight[index] -= 1
        del self._owner[request_id]
        return True

    async def abort(self, request_id: str) -> None:
        index = self._owner.get(request_id)
        if index is not None:  # unknown ids are ignored, as by an engine
            await self.replicas[index].abort(request_id)

    def is_alive(self) -> bool:
        return any(r.is_alive() for r in self.replicas)

    def begin_shutdown(self) -> None:
        """The gateway begins to stop: stop keeping a standby (one still loading is abandoned, an idle one is shut
        down in the background). The serving replicas stay supervised until ``shutdown``."""
        self._closing = True
        if self._standby_keeper is not None:
            self._standby_keeper.cancel()
        if self.standby is not None:
            spare, self.standby = self.standby, None
            self._reap(spare)

    async def shutdown(self) -> None:
        self._closing = True
        tasks = [t for t in (self._supervisor, self._standby_keeper, *self._restarting.values()) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, *self._reaping, return_exceptions=True)
        engines = [*self.replicas, *([self.standby] if self.standby is not None else [])]
        self.standby = None
        results = await asyncio.gather(*(r.shutdown() for r in engines), return_exceptions=True)
        errors = [e for e in results if isinstance(e, BaseException)]
        if errors:
            raise errors[0]

    # --- restarts -------------------------------------------------------------------------------------------------
    def supervise(self) -> None:
        """Start watching the replicas: bring dead ones back (given ``restart``), kill hung ones (given
        ``watchdog_s``). Needs a running event loop; ``shutdown`` stops it."""
        if (self._restart is not None or self.watchdog is not None) and self._supervisor is None:
            self._supervisor = asyncio.get_running_loop().create_task(self._watch(), name="replica-supervisor")
        if self._open_standby is not None and self._standby_keeper is None:
            self._standby_keeper = asyncio.get_running_loop().create_task(self._keep_standby(), name="engine-standby")

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(SUPERVISE_INTERVAL_S)
            for index, replica in enumerate(self.replicas):
                if self.watchdog is not None and self.watchdog.hung(index, replica):
                    self.watchdog.kill(index, replica)  # its reader sees the process die; replaced below
                # A standby may take the slot of one whose cold restart is still under way (that one then becomes
                # the standby when it is up).
                if replica.is_alive() or self._promote(index) or index in self._restarting:
                    continue
                if self._restart is not None:
                    self._restarting[index] = asyncio.create_task(self._bring_back(index))

    def _promote(self, index: int) -> bool:
        """Put a live standby in dead replica ``index``'s slot; False when there is none ready."""
        spare, dead = self.standby, self.replicas[index]
        if spare is None or not spare.is_alive() or dead.is_alive():
            return False
        self.standby = None
        self._retire(dead)
        self._reap(dead)
        self.replicas[index] = spare
        self._started_at[index] = time.monotonic()
        self.restarts[index] += 1
        self.promotions += 1
        log.warning("engine replica %d died; the standby engine took its place (%d restarts)", index,
                    self.restarts[index])
        return True

    def _retire(self, dead: EngineClient) -> None:
        last = dead.stats() if isinstance(dead, EngineStatsSource) else None
        if last is not None:
            self._retired.append(last)

    def _reap(self, dead: EngineClient) -> None:
        """Shut a dead engine down in the background (reap its process, close its pipes)."""
        async def shut() -> None:
            with contextlib.suppress(Exception):
                await dead.shutdown()

        task = asyncio.get_running_loop().create_task(shut())
        self._reaping.add(task)
        task.add_done_callback(self._reaping.discard)

    async def _keep_standby(self) -> None:
        """Keep one standby engine started: a new one after each promotion, another (after a backoff) when one
        dies while idle or fails to start."""
        assert self._open_standby is not None
        backoff = RESTART_BACKOFF_S[0]
        await asyncio.sleep(self._standby_delay_s)
        while not self._closing:
            spare = self.standby
            if spare is not None and not spare.is_alive():
                self.standby = None
                self._reap(spare)
                delay, backoff = restart_delay(time.monotonic() - self._standby_since, backoff)
                if await self._stopping_within(SUPERVISE_INTERVAL_S):
                    return  # a signal to the whole process group: it died as the gateway began to stop
                log.error("the standby engine died; starting another in %.0f s", delay)
                await asyncio.sleep(max(0.0, delay - SUPERVISE_INTERVAL_S))
                continue
            if spare is None and self._restarting:
                # A cold restart under way comes first: its engine takes its slot back, or becomes the standby if a
                # promotion filled the slot meanwhile; a second model load beside it would compete for the CPU.
                await asyncio.sleep(SUPERVISE_INTERVAL_S)
                continue
            if spare is None:
                try:
                    fresh = await self._open_standby()
                except Exception:
                    if await self._stopping_within(SUPERVISE_INTERVAL_S):
                        return
                    log.exception("the standby engine failed to start; trying again in %.0f s", backoff)
                    await asyncio.sleep(max(0.0, backoff - SUPERVISE_INTERVAL_S))
                    backoff = min(RESTART_BACKOFF_S[1], backoff * 2)
                    continue
                if fresh is None:
                    return  # no standby is kept (decided by the opener: an engine on a GPU)
                self._offer_standby(fresh)
            await asyncio.sleep(SUPERVISE_INTERVAL_S)

    async def _stopping_within(self, seconds: float) -> bool:
        """Whether the gateway begins to stop within ``seconds``: a standby killed by a signal sent to the whole
        process group dies at the moment the gateway receives it, and the gateway's drain may begin just after."""
        await asyncio.sleep(seconds)
        return self._closing

    def _offer_standby(self, fresh: EngineClient) -> None:
        """Keep ``fresh`` as the standby, or shut it down when there is one already or the gateway is stopping."""
        if self.standby is None and fresh.is_alive() and not self._closing:
            self.standby = fresh
            self._standby_since = time.monotonic()
        else:
            self._reap(fresh)

    async def _bring_back(self, index: int) -> None:
        assert self._restart is not None
        dead = self.replicas[index]
        lived = time.monotonic() - self._started_at[index]
        delay, self._backoff[index] = restart_delay(lived, self._backoff[index], self._restart_bounds)
        log.error("engine replica %d is dead (up %.0f s: %s); restarting it in %.1f s", index, lived,
                  getattr(dead, "dead_reason", None) or "its process ended", delay)
        try:
            await asyncio.sleep(delay)
            with contextlib.suppress(Exception):  # reap the dead process and close its pipes
                await dead.shutdown()
            try:
                fresh = await self._restart(index)
            except EngineDeadError as exc:  # nothing answers yet (a host still loading): its message says enough
                log.error("engine replica %d failed to restart (%s); trying again", index, exc)
                self._started_at[index] = time.monotonic()
                return
            except Exception:
                log.exception("engine replica %d failed to restart; trying again", index)
                self._started_at[index] = time.monotonic()  # a failed start counts as dying young
                return
            if self.replicas[index] is not dead:  # a standby was promoted into the slot meanwhile
                if self._open_standby is not None:
                    self._offer_standby(fresh)
                else:
                    self._reap(fresh)
                return
            self._retire(dead)
            self.replicas[index] = fresh
            self._started_at[index] = time.monotonic()
            self.restarts[index] += 1
            log.warning("engine replica %d restarted (%d restarts)", index, self.restarts[index])
        finally:
            self._restarting.pop(index, None)

    # --- stats ----------------------------------------------------------------------------------------------------
    def replica_stats(self) -> list[EngineStats | None]:
        return [r.stats() if reports_stats(r) else None for r in self.replicas]

    def waiting_requests(self) -> int | None:
        """Requests waiting over the live replicas (``engine.metrics.EngineWaitingSource``); None when none tells."""
        counts = [r.waiting_requests() for r, alive in zip(self.replicas, self.live(), strict=True)
                  if alive and reads_waiting(r)]
        known = [count for count in counts if count is not None]
        return sum(known) if known else None

    def stats(self) -> EngineStats | None:
        """One snapshot for the whole pool: counters summed over every replica that ever reported (a dead one's
        last counters stay in, so the totals never go backwards, which a reader would take for a restart); gauges
        over live replicas, requests summed and KV usage the fullest replica's (as the gauge means with several
        gateway workers). The same object again while no replica sent a new snapshot."""
        snapshots, live = self.replica_stats(), self.live()
        state = (*snapshots, *live, *self._retired)
        cached_for, merged = self._merged
        if len(cached_for) == len(state) and all(a is b for a, b in zip(cached_for, state, strict=True)):
            return merged
        merged = _merge(snapshots, live, self._retired)
        self._merged = (state, merged)
        return merged


def _merge(snapshots: Sequence[EngineStats | None], live: Sequence[bool],
           retired: Sequence[EngineStats] = ()) -> EngineStats | None:
    """``retired``: the last snapshots of replicas since replaced; their counters count, their gauges do not."""
    current = [s for s, alive in zip(snapshots, live, strict=True) if s is not None and alive]
    present = [s for s in snapshots if s is not None] + list(retired)
    if not present:
        return None
    counters: dict[str, Any] = {name: sum(getattr(s, name) for s in present) for name in COUNTER_FIELDS}
    return EngineStats(
        num_requests_running=sum(s.num_requests_running for s in current),
        num_requests_waiting=sum(s.num_requests_waiting for s in current),
        kv_cache_usage=max((s.kv_cache_usage for s in current), default=0.0),
        num_blocks=sum(s.num_blocks for s in current), block_size=max((s.block_size for s in current), default=0),
        timestamp_ns=max(s.timestamp_ns for s in present), **counters)
