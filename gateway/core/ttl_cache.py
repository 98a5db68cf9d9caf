"""A bounded, thread-safe in-process cache whose entries expire after a fixed TTL: a ``StaleTolerantCache`` with no
stale window."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from gateway.core.stale_cache import StaleTolerantCache

K = TypeVar("K")
V = TypeVar("V")


class TTLCache(StaleTolerantCache[K, V]):
    def __init__(self, ttl_s: float, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__(ttl_s, 0.0, max_entries, clock)

    def get(self, key: K) -> tuple[bool, V | None]:
        """(hit, value). A hit may carry None: negative results are cached too."""
        return self.fresh(key)
