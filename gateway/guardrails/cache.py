"""A bounded, thread-safe LRU for scan results, keyed by tenant and content hash (never by content)."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Generic, TypeVar

V = TypeVar("V")


def content_key(tenant_id: str, text: str, variant: str = "") -> tuple[str, str, bytes]:
    """Per tenant, so one tenant's traffic can never reveal (through timing) what another tenant sent."""
    return (tenant_id, variant, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())


class BoundedLru(Generic[V]):
    def __init__(self, max_entries: int) -> None:
        if max_entries < 0:
            raise ValueError("max_entries must be >= 0")
        self._max_entries = max_entries
        self._entries: OrderedDict[object, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: object) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: object, value: V) -> None:
        if self._max_entries == 0:
            return
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
