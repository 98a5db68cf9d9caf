"""Where the overhead bench's slow requests spend their time: warden_core's stalls, timed inside the server, set
against the requests the open-loop client saw (``--tail-probe``).

The server runs ``tail_probed_app_from_env``: ``warden serve``'s app, plus timelines of what can hold up its event
loop without being a request's own work, each noted with its start and length on ``time.perf_counter`` (the
machine's monotonic clock, which the client reads too):

  gc        every collection of the collector (generation, wall and CPU time)
  drain     every batch the audit writer's drain thread stores in the database; its CPU (the thread's, in this
            process) is what holds the interpreter's lock: with the drain process, only the spool read and the pipe
  record    every batch of the audit record thread (spool write and fsync): every request awaits one, so all of
            them overlap one; its wall time is what to read
  loop_lag  every time a task asking to wake after 1 ms woke more than 2 ms late: the loop was busy or starved

and, per request the app served (``requests``: its start, its time in the app, then each of ``WAITS``), how long it
awaited, from the await to the loop's resuming it:

  audit_wait  ``AuditWriter.record``: the record handed to the record thread, written and fsync'd in a batch, and
              the answer back in the loop; past the batch's own wall time it is the two hand-overs between threads
  limit_wait  the rate limiter's admission and settlement (``RedisRateLimiter.admit`` / ``settle``: Redis round trips)

and, for each stall of the loop (no wake-up of that task for over ``STALL_SAMPLED_S``), the stack its thread was in,
sampled once by a watcher thread: what the loop ran (a callback's own frames), or ``select`` when the loop waited
for the interpreter's lock or a core rather than running anything.

``tail_breakdown`` then says, for the requests above the run's 90th and 99th latency percentiles and for those
below its median, what share of them overlapped each kind of stall: a kind the slow ones overlap far more often than
the fast ones is a cause of the tail; and, over the requests the app was slowest and fastest with (its own time, so
each wait is the request's own, however many are in flight), how long they awaited each of ``WAITS``: a wait longer in
the slow ones by about what they are slower is where their time went. The sampling task costs the loop about 1,000
wake-ups per second, so a probed run's CPU per request is not the figure to quote.
"""

from __future__ import annotations

import asyncio
import bisect
import contextvars
import gc
import json
import os
import signal
import statistics
import sys
import threading
import time
import traceback
from pathlib import Path
from types import FrameType
from typing import Any

TAIL_PROBE_ENV = "WARDEN_BENCH_TAIL_PROBE"  # where tail_probed_app_from_env writes its timelines
LAG_PERIOD_S = 0.001
LAG_REPORTED_S = 0.002  # lateness below this is the timer's own jitter
KINDS = ("gc", "drain", "record", "loop_lag")
WAITS = ("audit_wait", "limit_wait")
STALL_SAMPLED_S = 0.003
SLOW_SYNC_S = 0.002  # a record batch (write and fsync) this long is a slow sync: ten times the quiet disk's median
_REQUEST_WAITS: contextvars.ContextVar[dict[str, float]] = contextvars.ContextVar("tail_probe_request_waits")
STACK_FRAMES = 8  # innermost frames kept of a stall's stack
TOP_STACKS = 12

Event = tuple[float, float]  # start (perf_counter seconds), length (seconds)


class Timelines:
    def __init__(self) -> None:
        self.events: dict[str, list[list[float]]] = {kind: [] for kind in (*KINDS, *WAITS, "requests")}
        self.stall_stacks: list[tuple[float, str]] = []  # (when sampled, the loop thread's stack)
        self.heartbeat = time.perf_counter()  # the lag sampler's last wake-up

    def clear(self) -> None:
        for events in self.events.values():
            events.clear()
        self.stall_stacks.clear()

    def dump(self, path: str) -> None:
        partial = Path(f"{path}.partial")  # the bench reads the file once it exists: whole, never half written
        partial.write_text(json.dumps({**self.events, "stall_stacks": self.stall_stacks}))
        os.replace(partial, path)


def tail_probed_app_from_env() -> Any:
    """``gateway.app.app_from_env`` with the stalls above timed, from a SIGUSR1 (which starts the timelines afresh)
    to a SIGUSR2 (which writes them to ``$WARDEN_BENCH_TAIL_PROBE``): the bench sends them around a measured
    phase."""
    from gateway.app import app_from_env
    from gateway.audit.writer import AuditWriter
    from gateway.ratelimit.redis_limiter import RedisRateLimiter

    timelines = Timelines()
    _time_collections(timelines)
    _time_audit_batches(AuditWriter, timelines)
    _time_awaits(AuditWriter, ("record",), "audit_wait", timelines.events["audit_wait"])
    _time_awaits(RedisRateLimiter, ("admit", "settle"), "limit_wait", timelines.events["limit_wait"])
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, timelines.clear)
    loop.add_signal_handler(signal.SIGUSR2, timelines.dump, os.environ[TAIL_PROBE_ENV])
    loop.call_soon(lambda: loop.create_task(sample_loop_lag(timelines)))
    threading.Thread(target=watch_stalls, args=(timelines, threading.get_ident(), threading.Event()),
                     name="tail-probe-watcher", daemon=True).start()
    return timing_requests(app_from_env(), timelines.events["requests"])


def timing_requests(app: Any, requests: list[list[float]]) -> Any:
    """The ASGI ``app``, each HTTP request's start, time in it and waits (``WAITS``, in order) noted in ``requests``:
    the waits of the request's own task (a context variable, which the awaits it makes see)."""

    async def timed_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        waits = dict.fromkeys(WAITS, 0.0)
        token = _REQUEST_WAITS.set(waits)
        started = time.perf_counter()
        try:
            await app(scope, receive, send)
        finally:
            _REQUEST_WAITS.reset(token)
            requests.append([started, time.perf_counter() - started, *(waits[kind] for kind in WAITS)])

    return timed_app


def _time_collections(timelines: Timelines) -> None:
    started: list[float] = [0.0, 0.0]

    def on_collection(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[:] = [time.perf_counter(), time.thread_time()]
            return
        timelines.events["gc"].append([started[0], time.perf_counter() - started[0], info["generation"],
                                       time.thread_time() - started[1]])

    gc.callbacks.append(on_collection)


def _time_audit_batches(writer: Any, timelines: Timelines) -> None:
    """Wraps the writer class's batch methods (in this bench process only)."""
    drain_once, record_batch_sync = writer._drain_once, writer.record_batch_sync

    def timed_drain(self: Any) -> bool:
        started, cpu = time.perf_counter(), time.thread_time()
        more: bool = drain_once(self)
        timelines.events["drain"].append([started, time.perf_counter() - started, time.thread_time() - cpu])
        return more

    def timed_record(self: Any, events: list[Any]) -> list[BaseException | None]:
        started, cpu = time.perf_counter(), time.thread_time()
        outcomes: list[BaseException | None] = record_batch_sync(self, events)
        timelines.events["record"].append([started, time.perf_counter() - started, time.thread_time() - cpu,
                                           len(events)])
        return outcomes

    writer._drain_once = timed_drain
    writer.record_batch_sync = timed_record


def _time_awaits(owner: Any, names: tuple[str, ...], kind: str, events: list[list[float]]) -> None:
    """Wraps the class's coroutine methods ``names`` (in this bench process only): each call's start and length in
    ``events``, its length added to the calling request's ``kind`` (``timing_requests``)."""
    for name in names:
        method = getattr(owner, name)

        async def timed(self: Any, *args: Any, __method: Any = method, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await __method(self, *args, **kwargs)
            finally:
                length = time.perf_counter() - started
                events.append([started, length])
                waits = _REQUEST_WAITS.get(None)
                if waits is not None:
                    waits[kind] += length

        setattr(owner, name, timed)


async def sample_loop_lag(timelines: Timelines) -> None:
    loop = asyncio.get_running_loop()
    while True:
        asked = loop.time()
        await asyncio.sleep(LAG_PERIOD_S)
        timelines.heartbeat = time.perf_counter()
        late = loop.time() - asked - LAG_PERIOD_S
        if late > LAG_REPORTED_S:
            timelines.events["loop_lag"].append([time.perf_counter() - late, late])


def watch_stalls(timelines: Timelines, loop_thread: int, stop: threading.Event) -> None:
    """The watcher thread, until ``stop``: one stack sample of the loop's thread per stall."""
    sampled_beat = 0.0
    while not stop.wait(LAG_PERIOD_S):
        beat = timelines.heartbeat
        if beat == sampled_beat or time.perf_counter() - beat < STALL_SAMPLED_S:
            continue
        sampled_beat = beat
        frame = sys._current_frames().get(loop_thread)
        if frame is not None:
            timelines.stall_stacks.append((time.perf_counter(), _stack_text(frame)))


def _stack_text(frame: FrameType) -> str:
    """The innermost frames, innermost first, each as ``dir/file.py:line function``."""
    parts = []
    for summary in reversed(traceback.extract_stack(frame)[-STACK_FRAMES:]):
        path = Path(summary.filename)
        parts.append(f"{path.parent.name}/{path.name}:{summary.lineno} {summary.name}")
    return " < ".join(parts)


def collect_timelines(pid: int, path: Path, timeout_s: float = 30.0) -> dict[str, list[list[float]]]:
    """Asks the probed server ``pid`` to write its timelines (SIGUSR2) and reads them."""
    path.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR2)
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the probed server did not write {path}")
        time.sleep(0.05)
    return {kind: events for kind, events in json.loads(path.read_text()).items()
            if kind in KINDS or kind in WAITS or kind in ("requests", "stall_stacks")}


def _overlaps(request: tuple[float, float], starts: list[float], events: list[list[float]],
              longest: float) -> bool:
    sent, done = request
    # Only events that start before the request ends and no earlier than the longest one could reach back.
    for i in range(bisect.bisect_left(starts, sent - longest), bisect.bisect_left(starts, done)):
        if starts[i] + events[i][1] > sent:
            return True
    return False


def tail_breakdown(timeline: list[tuple[float, float]], timelines: dict[str, list[list[float]]]) -> dict[str, Any]:
    """For each stall kind: the share of the slowest requests (above p99, above p90) and of the fastest half whose
    time in flight (``timeline``: sent, done) overlapped one; and each kind's count, wall and CPU lengths."""
    if not timeline:
        return {}
    ordered = sorted(done - sent for sent, done in timeline)
    p50, p90, p99 = (ordered[int(q * (len(ordered) - 1))] for q in (0.5, 0.9, 0.99))
    groups = {"above_p99": [r for r in timeline if r[1] - r[0] >= p99],
              "above_p90": [r for r in timeline if r[1] - r[0] >= p90],
              "below_p50": [r for r in timeline if r[1] - r[0] <= p50]}
    result: dict[str, Any] = {"thresholds_ms": {"p50": p50 * 1e3, "p90": p90 * 1e3, "p99": p99 * 1e3},
                              "requests": {name: len(group) for name, group in groups.items()}}
    window = max(done for _, done in timeline) - min(sent for sent, _ in timeline)
    for kind in KINDS:
        events = sorted(timelines.get(kind, []))
        starts = [event[0] for event in events]
        longest = max((event[1] for event in events), default=0.0)
        row: dict[str, Any] = {
            "count": len(events), "per_s": len(events) / window if window > 0 else None,
            "wall_ms": _spread([event[1] * 1e3 for event in events]),
            "overlapped_share": {name: (sum(_overlaps(r, starts, events, longest) for r in group) / len(group)
                                        if group else None) for name, group in groups.items()},
        }
        if kind in ("gc", "drain", "record"):
            cpu_at = 3 if kind == "gc" else 2
            row["cpu_ms"] = _spread([event[cpu_at] * 1e3 for event in events])
        if kind == "gc":
            row["by_generation"] = {str(g): sum(1 for event in events if event[2] == g) for g in (0, 1, 2)}
        if kind == "record":
            row["records_per_batch_p50"] = statistics.median(event[3] for event in events) if events else None
            row["slow_syncs"] = slow_syncs_in_drains(events, sorted(timelines.get("drain", [])), window)
        result[kind] = row
    for kind in WAITS:
        result[kind] = {"count": len(timelines.get(kind, [])),
                        "wall_ms": _spread([event[1] * 1e3 for event in timelines.get(kind, [])])}
    result["app_requests"] = app_request_waits(timelines.get("requests", []))
    stacks: dict[str, int] = {}
    for _, stack in timelines.get("stall_stacks", []):
        stacks[str(stack)] = stacks.get(str(stack), 0) + 1
    result["stall_stacks"] = {"count": sum(stacks.values()),
                              "top": sorted(stacks.items(), key=lambda item: -item[1])[:TOP_STACKS]}
    return result


def slow_syncs_in_drains(records: list[list[float]], drains: list[list[float]], window: float) -> dict[str, Any]:
    """How many record batches took ``SLOW_SYNC_S`` or more, and the share of them that overlapped a drain batch,
    next to the share of the run's time drain batches took (what overlapping by chance alone would give): a slow
    sync share far above it says the drain (its CPU, its database's commits on the same disk) slows the spool's
    fsyncs, which every request awaits."""
    slow = [(event[0], event[0] + event[1]) for event in records if event[1] >= SLOW_SYNC_S]
    starts = [event[0] for event in drains]
    longest = max((event[1] for event in drains), default=0.0)
    drain_time = sum(event[1] for event in drains)
    return {"count": len(slow), "threshold_ms": SLOW_SYNC_S * 1e3,
            "overlapping_drain_share": (sum(_overlaps(sync, starts, drains, longest) for sync in slow) / len(slow)
                                        if slow else None),
            "drain_time_share": drain_time / window if window > 0 else None}


def app_request_waits(requests: list[list[float]]) -> dict[str, Any]:
    """The app's own time per request (``timing_requests``): its p50 / p90 / p99, and for the requests at or above
    p99, at or above p90 and at or below p50, the median of that time and of each wait, and of the rest (the time
    in the app that was none of ``WAITS``)."""
    if not requests:
        return {}
    ordered = sorted(request[1] for request in requests)
    p50, p90, p99 = (ordered[int(q * (len(ordered) - 1))] for q in (0.5, 0.9, 0.99))
    groups = {"above_p99": [r for r in requests if r[1] >= p99], "above_p90": [r for r in requests if r[1] >= p90],
              "below_p50": [r for r in requests if r[1] <= p50]}
    result: dict[str, Any] = {"count": len(requests),
                              "thresholds_ms": {"p50": p50 * 1e3, "p90": p90 * 1e3, "p99": p99 * 1e3}}
    for name, group in groups.items():
        row = {"app_ms": _median([r[1] * 1e3 for r in group])}
        row.update({kind: _median([r[2 + i] * 1e3 for r in group]) for i, kind in enumerate(WAITS)})
        row["rest_ms"] = _median([(r[1] - sum(r[2:2 + len(WAITS)])) * 1e3 for r in group])
        result[name] = row
    return result


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def _spread(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "max": None, "sum": 0.0}
    return {"p50": statistics.median(values), "max": max(values), "sum": sum(values)}
