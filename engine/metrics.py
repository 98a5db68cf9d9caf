"""What the engine measures about itself, as plain data that crosses the process pipe.

* ``RequestTimings``: one request's phases, stamped in the engine process (wall clock, ns) and attached to its
  final ``RequestOutput``. The gateway turns them into the queue / prefill / decode spans of the request's trace
  and the queue-time histogram, so the engine needs no tracing library (it never imports the gateway's stack).
* ``EngineStats``: a snapshot of the engine's gauges and lifetime counters (vLLM's names), sent by ``EngineCore``
  at most every ``STATS_INTERVAL_S`` while busy and once when it goes idle. Counters are cumulative so a lost
  or coalesced snapshot loses nothing: the reader takes differences.
* ``StatsCollector``: the counters ``LLMEngine`` keeps, and ``snapshot()``.

Wall clock (``time.time_ns``) rather than a monotonic clock: spans need epoch timestamps, and both processes
read the same system clock.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

STATS_INTERVAL_S = 0.5


def now_ns() -> int:
    return time.time_ns()


@dataclass(slots=True)
class RequestTimings:
    arrival_ns: int  # the engine accepted the request
    scheduled_ns: int = 0  # first step that computed any of its tokens (0: never scheduled)
    first_token_ns: int = 0  # first output token sampled
    finished_ns: int = 0
    cached_tokens: int = 0  # prompt tokens served from the prefix cache at admission

    @property
    def queue_s(self) -> float | None:
        return (self.scheduled_ns - self.arrival_ns) / 1e9 if self.scheduled_ns else None

    @property
    def prefill_s(self) -> float | None:
        """Scheduling to first token: the prompt's (possibly chunked) prefill, batched with others' decodes."""
        return (self.first_token_ns - self.scheduled_ns) / 1e9 if self.first_token_ns and self.scheduled_ns else None

    @property
    def decode_s(self) -> float | None:
        return (self.finished_ns - self.first_token_ns) / 1e9 if self.finished_ns and self.first_token_ns else None


@dataclass(frozen=True, slots=True)
class EngineStats:
    num_requests_running: int
    num_requests_waiting: int
    kv_cache_usage: float  # fraction of KV blocks held by live sequences, 0..1
    # lifetime counters
    prefix_cache_queries: int  # prompt tokens looked up in the prefix cache at admission
    prefix_cache_hits: int  # of those, tokens found cached
    prompt_tokens: int  # prompt tokens of requests that produced their first token
    generation_tokens: int
    num_preemptions: int
    timestamp_ns: int
    spec_draft_tokens: int = 0  # draft tokens verified
    spec_accepted_tokens: int = 0  # of those, accepted
    spec_proposed_tokens: int = 0  # draft tokens proposed; the adaptive budget verifies those expected to pay
    # the KV cache's shape (capacity, not counters): what an endpoint picker reads from vllm:cache_config_info
    num_blocks: int = 0
    block_size: int = 0


# The lifetime counters, in the order of EngineStats (merging replicas and exporting metrics go through this list).
COUNTER_FIELDS = ("prefix_cache_queries", "prefix_cache_hits", "prompt_tokens", "generation_tokens", "num_preemptions",
                  "spec_draft_tokens", "spec_accepted_tokens", "spec_proposed_tokens")


def counters_since(stats: EngineStats, baseline: EngineStats) -> EngineStats:
    """``stats`` with its lifetime counters counted from ``baseline`` instead of the engine's start (gauges as they
    are): what a caller that starts reporting an engine mid-life must add up."""
    return replace(stats, **{name: getattr(stats, name) - getattr(baseline, name) for name in COUNTER_FIELDS})


@runtime_checkable
class EngineStatsSource(Protocol):
    """Implemented by engine clients that can report ``EngineStats`` (the gateway checks with isinstance)."""

    def stats(self) -> EngineStats | None: ...


@runtime_checkable
class EngineWaitingSource(Protocol):
    """Implemented by engine clients that read the engine's waiting-queue length live, whether or not they are sent
    its stats (an engine host sends those to one caller only); the gateway admits by it."""

    def waiting_requests(self) -> int | None:
        """Requests waiting in the engine's queue now; None when this client cannot tell."""
        ...


class StatsCollector:
    """Counters kept by ``LLMEngine``; gauges are read from the scheduler and block pool at snapshot time."""

    __slots__ = ("generation_tokens", "prompt_tokens", "spec_accepted_tokens", "spec_draft_tokens",
                 "spec_proposed_tokens")

    def __init__(self) -> None:
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.spec_draft_tokens = 0  # draft tokens verified (speculative decoding)
        self.spec_accepted_tokens = 0  # of those, accepted
        self.spec_proposed_tokens = 0  # draft tokens proposed (verified or not)

    def snapshot(self, *, running: int, waiting: int, used_blocks: int, num_blocks: int, prefix_queries: int,
                 prefix_hits: int, preemptions: int, block_size: int = 0) -> EngineStats:
        return EngineStats(
            num_requests_running=running, num_requests_waiting=waiting,
            kv_cache_usage=used_blocks / num_blocks if num_blocks else 0.0,
            prefix_cache_queries=prefix_queries, prefix_cache_hits=prefix_hits,
            prompt_tokens=self.prompt_tokens, generation_tokens=self.generation_tokens,
            num_preemptions=preemptions, timestamp_ns=now_ns(),
            spec_draft_tokens=self.spec_draft_tokens, spec_accepted_tokens=self.spec_accepted_tokens,
            spec_proposed_tokens=self.spec_proposed_tokens, num_blocks=num_blocks, block_size=block_size,
        )
