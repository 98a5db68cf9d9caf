"""The tail probe's stall watcher: a stall of the event loop is sampled once, with the stack that held the loop."""

from __future__ import annotations

import asyncio
import threading
import time

from bench.overhead_tail import Timelines, sample_loop_lag, tail_breakdown, watch_stalls


def _hold_the_loop() -> None:
    time.sleep(0.1)  # blocks the loop's thread (without the interpreter lock, so the watcher runs meanwhile)


async def _run_with_one_stall() -> Timelines:
    timelines = Timelines()
    stop = threading.Event()
    watcher = threading.Thread(target=watch_stalls, args=(timelines, threading.get_ident(), stop))
    sampler = asyncio.get_running_loop().create_task(sample_loop_lag(timelines))
    watcher.start()
    try:
        await asyncio.sleep(0.05)
        _hold_the_loop()
        await asyncio.sleep(0.05)
    finally:
        sampler.cancel()
        stop.set()
        watcher.join()
    return timelines


def test_a_stall_is_sampled_once_with_the_stack_that_held_the_loop() -> None:
    timelines = asyncio.run(_run_with_one_stall())
    held = [stack for _, stack in timelines.stall_stacks if "_hold_the_loop" in stack]
    assert len(held) == 1  # one sample per stall, however long it lasts
    assert held[0].startswith("bench/test_bench_overhead_tail.py:")  # innermost frame first
    assert any(late >= 0.05 for _, late in timelines.events["loop_lag"])
    # The breakdown counts the sampled stacks, most frequent first.
    stacks = [[at, stack] for at, stack in timelines.stall_stacks]
    tail = tail_breakdown([(0.0, 0.001), (0.0, 0.002)], {**timelines.events, "stall_stacks": stacks})  # type: ignore[dict-item]
    assert tail["stall_stacks"]["count"] == len(stacks)
    assert any("_hold_the_loop" in stack for stack, _ in tail["stall_stacks"]["top"])
