"""Which engine replica serves a request: prefix-cache affinity within a tenant, bounded by load.

The engine's prefix cache is per replica, so a request only reuses KV that was computed on the replica it lands
on. The route key is what decides cache sharing in the engine itself (``engine.scheduling.block_manager``): the
isolation domain of the first block (the tenant's ``cache_salt``, or the public domain for a published public prefix)
and the prompt's first tokens. Requests with equal keys could share those blocks, and only they could; so equal keys go
to one replica and different keys spread.

The key covers the first ``AFFINITY_PREFIX_TOKENS`` tokens (whole blocks, at least one). Why that length: a
conversation's later turns extend its first prompt, and they only land where its cache is if the first prompt
already held the whole key span. The shortest real chat prompts (a chat template's preamble plus a short first
message) are about 30 tokens, so a longer span would move many conversations to a cold replica at turn two. A
span much shorter would hash nothing but the template's preamble, and all of a tenant's chats would pile onto one
replica. 32 tokens covers the preamble and the first words of the user's message: chats of a tenant that share a
system prompt longer than that land together (they share its blocks), other conversations spread.

Replicas are ranked per key by rendezvous (highest-random-weight) hashing over the live ones: a dead replica's
keys move to the next in their own ranking, every other key stays where its cache is.

Load bound: the preferred replica is skipped when its in-flight count exceeds the least-loaded live replica's by
more than ``max(SPILL_MIN, SPILL_FRACTION * least)``; the request then goes to the next replica in the key's ranking
that is within the bound (the least loaded always is), so a hot key's overflow also warms one cache, not all.
The slack is small on purpose: a loose bound never triggers at a handful of requests in flight, so one replica
queues while another idles, and an idle replica costs every step while a cold prefill of a system prompt on a
second replica costs once. ``python -m bench.replica_routing`` measures the bound against round-robin and
least-busy routing (``bench/results/replica_routing.json``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from engine.request import EngineRequest

AFFINITY_PREFIX_TOKENS = 32
SPILL_MIN = 2
SPILL_FRACTION = 0.25

_PUBLIC = b"public"  # the engine's public domain; tenant domains are tagged, as in engine.scheduling.block_manager
_NO_SALT = b"none"  # offline callers that send no salt


def affinity_span(block_size: int) -> int:
    """Prompt tokens the route key covers: ``AFFINITY_PREFIX_TOKENS`` rounded down to whole blocks, at least one
    block (the cache hits nothing shorter)."""
    return max(1, AFFINITY_PREFIX_TOKENS // block_size) * block_size


def route_key(request: EngineRequest, block_size: int) -> bytes:
    """A digest of the request's first-block domain and leading tokens. It contains the tenant's salt: never log
    it."""
    span = affinity_span(block_size)
    tokens = request.prompt_token_ids
    public = request.public_prefix_len // block_size * block_size  # only whole public blocks are shared
    if public:
        domain, tokens = _PUBLIC, tokens[:min(public, span)]
    else:
        salt = request.cache_salt
        domain, tokens = (b"salt:" + salt.encode()) if salt is not None else _NO_SALT, tokens[:span]
    h = hashlib.blake2b(digest_size=16)
    h.update(len(domain).to_bytes(4, "little") + domain)
    h.update(",".join(map(str, tokens)).encode())  # any int, so a bad id fails in validation, not here
    return h.digest()


def ranking(key: bytes, replicas: Sequence[int]) -> list[int]:
    """``replicas`` (indexes) from most to least preferred for ``key`` (rendezvous hashing)."""
    def weight(index: int) -> bytes:
        return hashlib.blake2b(key + index.to_bytes(4, "little"), digest_size=8).digest()
    return sorted(replicas, key=weight, reverse=True)


def spill_allowance(least: int, *, spill_min: int = SPILL_MIN, spill_fraction: float = SPILL_FRACTION) -> int:
    return max(spill_min, int(spill_fraction * least))


def choose(key: bytes, loads: Sequence[int], live: Sequence[bool], *, spill_min: int = SPILL_MIN,
           spill_fraction: float = SPILL_FRACTION) -> int | None:
    """The replica for ``key`` given each replica's in-flight count and liveness; None when none is live."""
    candidates = [i for i, alive in enumerate(live) if alive]
    if not candidates:
        return None
    least = min(loads[i] for i in candidates)
    bound = least + spill_allowance(least, spill_min=spill_min, spill_fraction=spill_fraction)
    return next(i for i in ranking(key, candidates) if loads[i] <= bound)
