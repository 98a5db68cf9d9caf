"""Concurrent loads of the same key share one load.

When a cached entry (a key record, a tenant's policy) expires, every request arriving before it is reloaded would
otherwise start its own load: each a worker-thread hop and a database round trip, all for the same row. Under load
that is hundreds of identical queries per expiry, and their threads compete with the event loop for the
interpreter. ``SingleFlight`` lets the first caller's load run and the others await its outcome.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class SingleFlight(Generic[K, V]):
    def __init__(self) -> None:
        self._loading: dict[K, asyncio.Future[V]] = {}

    async def run(self, key: K, load: Callable[[], Awaitable[V]]) -> V:
        """``load()``'s outcome (its value or its exception), shared by every caller that asks for ``key`` while it
        runs. A caller cancelled while waiting leaves the load running for the others."""
        loading = self._loading.get(key)
        if loading is None:
            loading = asyncio.ensure_future(load())
            self._loading[key] = loading
            loading.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(loading)

    def _forget(self, key: K, done: asyncio.Future[V]) -> None:
        if self._loading.get(key) is done:
            del self._loading[key]
        if not done.cancelled():
            done.exception()  # retrieved: a failure every waiter already saw is not reported again as unretrieved

    def forget(self) -> None:
        """Callers from now on start a new load (after what the loads in flight read has changed); those waiting
        on one still get its outcome."""
        self._loading.clear()

    def __len__(self) -> int:
        return len(self._loading)
