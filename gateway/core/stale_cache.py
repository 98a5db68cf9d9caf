"""A bounded, thread-safe in-process cache whose entries are fresh for a TTL and may be served stale for a further
window while their source is unavailable.

``fresh`` sees an entry for ``ttl_s`` after it was stored; ``stale`` for ``ttl_s + stale_window_s``. Callers use
``stale`` only when the source failed, so an outage is bridged for at least the window and at most TTL + window,
and no entry outlives that bound (revocation still reaches every replica within it).

A request served from a stale entry says so in its audit record: ``begin_stale_tracking`` (called by the request's
first cache read, its authentication) starts a list in the request's context that ``read_through`` adds the stage
of each stale read to (a list, not a value: the reads run in worker threads, on copies of the context, and a copy
shares the list), and the audit writer adds ``stale_decisions()`` to the record.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from contextvars import ContextVar
from typing import Generic, TypeVar

from gateway.core.errors import StoreUnavailable
from gateway.core.store_health import is_store_unavailable

K = TypeVar("K")
V = TypeVar("V")
_stale_stages: ContextVar[list[str] | None] = ContextVar("warden_stale_stages", default=None)


def begin_stale_tracking() -> None:
    """Start a new record of stale reads for the request whose context this is (before its first cache read)."""
    _stale_stages.set([])


def note_stale(stage: str) -> None:
    """The current request was answered at ``stage`` from a stale entry (its store unavailable)."""
    stages = _stale_stages.get()
    if stages is not None:
        stages.append(stage)


def stale_decisions() -> list[dict[str, str]]:
    """The audit decisions of the current request's stale reads, one per stage."""
    return [{"stage": stage, "decision": "stale", "reason": "store_unavailable"}
            for stage in dict.fromkeys(_stale_stages.get() or ())]


class StaleTolerantCache(Generic[K, V]):
    def __init__(self, ttl_s: float, stale_window_s: float, max_entries: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl_s = ttl_s
        self._max_age_s = ttl_s + stale_window_s
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    def _get(self, key: K, max_age_s: float) -> tuple[bool, V | None]:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return False, None
            stored_at, value = entry
            age = self._clock() - stored_at
            if age >= self._max_age_s:
                del self._entries[key]
                return False, None
            if age >= max_age_s:
                return False, None
            self._entries.move_to_end(key)
            return True, value

    def fresh(self, key: K) -> tuple[bool, V | None]:
        """(hit, value), within the TTL. A hit may carry None: negative results are cached too."""
        return self._get(key, self._ttl_s)

    def stale(self, key: K) -> tuple[bool, V | None]:
        """(hit, value), within the TTL plus the stale window: for when the source cannot be asked."""
        return self._get(key, self._max_age_s)

    def put(self, key: K, value: V) -> None:
        if self._max_age_s <= 0:
            return
        with self._lock:
            self._entries[key] = (self._clock(), value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)

    def read_through(self, key: K, load: Callable[[], V], *, stage: str, retry_after_s: int,
                     usable: Callable[[V | None], bool] = lambda _value: True) -> V | None:
        """The fresh entry, else ``load()``'s result (cached); while the store is unavailable, the stale entry,
        else ``StoreUnavailable`` (a 503 naming ``stage``). ``usable`` says which cached values may be served. A
        stale read is noted in the current request's context (``note_stale``)."""
        value, stale = self.load_through(key, load, stage=stage, retry_after_s=retry_after_s, usable=usable)
        if stale:
            note_stale(stage)
        return value

    def load_through(self, key: K, load: Callable[[], V], *, stage: str, retry_after_s: int,
                     usable: Callable[[V | None], bool] = lambda _value: True) -> tuple[V | None, bool]:
        """``read_through``'s value and whether it is a stale read, noted nowhere: for a load whose outcome several
        requests share (``gateway.core.single_flight``), each of which notes a stale read in its own context."""
        hit, value = self.fresh(key)
        if hit and usable(value):
            return value, False
        try:
            value = load()
        except Exception as exc:
            if not (isinstance(exc, StoreUnavailable) or is_store_unavailable(exc)):
                raise
            hit, value = self.stale(key)
            if hit and usable(value):
                return value, True
            raise StoreUnavailable(retry_after_s, stage=stage) from exc
        self.put(key, value)
        return value, False

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
