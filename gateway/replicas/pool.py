"""``ReplicaPool``: N engine replicas served as one ``engine.protocol.EngineClient``.

Each request goes to the replica ``affinity.choose`` picks (its prefix cache, within a load bound) and stays
there: deltas, abort and errors all come from that replica. The pool counts requests in flight per replica itself,
from the first delta requested to the stream's end, so routing needs no round trip to the engines.

Liveness: the pool is alive while any replica is; new requests go to live replicas only, and requests already on a
replica that dies get its ``EngineDeadError`` as with a single engine. ``stats()`` merges the replicas' snapshots.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Any

from engine.errors import EngineDeadError, InvalidRequestError
from engine.metrics import EngineStats, EngineStatsSource
from engine.outputs import RequestOutput
from engine.protocol import EngineClient
from engine.request import EngineRequest
from gateway.replicas import affinity

log = logging.getLogger(__name__)


class ReplicaPool:
    def __init__(self, replicas: Sequence[EngineClient], *, block_size: int,
                 spill_min: int = affinity.SPILL_MIN, spill_fraction: float = affinity.SPILL_FRACTION) -> None:
        assert replicas, "a pool needs at least one replica"
        first = replicas[0]
        assert all(r.model_name == first.model_name and r.max_model_len == first.max_model_len for r in replicas), \
            "replicas must serve the same model"
        self.replicas: tuple[EngineClient, ...] = tuple(replicas)
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

    # --- routing --------------------------------------------------------------------------------------------------
    def live(self) -> list[bool]:
        return [r.is_alive() for r in self.replicas]

    def route(self, request: EngineRequest) -> int:
        """The replica ``request`` would go to now. Raises ``EngineDeadError`` when none is live."""
        live = self.live()
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
        index = self.route(request)
        self._owner[rid] = index
        self.in_flight[index] += 1
        self.routed[index] += 1
        stream = self.replicas[index].generate(request)
        released = False
        try:
            async for output in stream:
                if output.finished:
                    # The replica is done with it now; a caller that stops at the last delta may close us later.
                    released = self._release(index, rid)
                yield output
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

    async def shutdown(self) -> None:
        results = await asyncio.gather(*(r.shutdown() for r in self.replicas), return_exceptions=True)
        errors = [e for e in results if isinstance(e, BaseException)]
        if errors:
            raise errors[0]

    # --- stats ----------------------------------------------------------------------------------------------------
    def replica_stats(self) -> list[EngineStats | None]:
        return [r.stats() if isinstance(r, EngineStatsSource) else None for r in self.replicas]

    def stats(self) -> EngineStats | None:
        """One snapshot for the whole pool: counters summed over every replica that ever reported (a dead one's
        last counters stay in, so the totals never go backwards, which a reader would take for a restart); gauges
        over live replicas, requests summed and KV usage the fullest replica's (as the gauge means with several
        gateway workers). The same object again while no replica sent a new snapshot."""
        snapshots, live = self.replica_stats(), self.live()
        state = (*snapshots, *live)
        cached_for, merged = self._merged
        if len(cached_for) == len(state) and all(a is b for a, b in zip(cached_for, state, strict=True)):
            return merged
        merged = _merge(snapshots, live)
        self._merged = (state, merged)
        return merged


def _merge(snapshots: Sequence[EngineStats | None], live: Sequence[bool]) -> EngineStats | None:
    present = [s for s in snapshots if s is not None]
    if not present:
        return None
    current = [s for s, alive in zip(snapshots, live, strict=True) if s is not None and alive]
    counters: dict[str, Any] = {name: sum(getattr(s, name) for s in present) for name in (
        "prefix_cache_queries", "prefix_cache_hits", "prompt_tokens", "generation_tokens", "num_preemptions",
        "spec_draft_tokens", "spec_accepted_tokens")}
    return EngineStats(
        num_requests_running=sum(s.num_requests_running for s in current),
        num_requests_waiting=sum(s.num_requests_waiting for s in current),
        kv_cache_usage=max((s.kv_cache_usage for s in current), default=0.0),
        timestamp_ns=max(s.timestamp_ns for s in present), **counters)
