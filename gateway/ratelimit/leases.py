"""Keeping a worker's concurrency leases alive while its calls run, so that a dead worker's leases lapse quickly.

Every admission holds a lease (a concurrency slot plus its token reservation) that expires ``lease_ms`` after it
was last renewed. A live worker renews the leases of all its open admissions every ``renew_interval_s``; a worker
that is killed stops renewing, and its leases lapse within ``lease_ms``: the slot frees and the call is charged
(see lua.py / memory.py) what it had used at its last renewal, which each renewal reports when the request path
tracks its use (``track``), else its whole reservation, because an unsettled call may have streamed up to all of it
to a client and no audit row says how much. Seconds, not the quarter of an hour a lease had to cover a whole call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from gateway.ratelimit.admission import Admission

log = logging.getLogger(__name__)


class Renew(Protocol):
    def __call__(self, admission: Admission, used_tokens: int | None = None) -> Awaitable[bool]: ...


class LeaseKeeper:
    """The admissions this process holds open, and the task that renews their leases."""

    def __init__(self, renew: Renew, renew_interval_s: float | None) -> None:
        if renew_interval_s is not None and renew_interval_s <= 0:
            raise ValueError(f"renew_interval_s must be > 0, got {renew_interval_s}")
        self._renew = renew
        self._interval_s = renew_interval_s
        self._held: dict[str, Admission] = {}
        self._usage: dict[str, Callable[[], int]] = {}  # admission id -> its call's tokens used so far
        self._task: asyncio.Task[None] | None = None

    @property
    def held(self) -> int:
        return len(self._held)

    def hold(self, admission: Admission) -> None:
        """Keep ``admission``'s lease alive until ``drop``; a no-op when renewal is off."""
        if self._interval_s is None or not admission.admitted or admission.degraded:
            return
        self._held[admission.id] = admission
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._task.get_loop() is not loop:
            self._task = loop.create_task(self._run(self._interval_s), name="rate-limit-lease-renewal")

    def track(self, admission: Admission, used_tokens: Callable[[], int]) -> None:
        """Report ``used_tokens()`` with each renewal of ``admission``'s lease (while it is held)."""
        if admission.id in self._held:
            self._usage[admission.id] = used_tokens

    def drop(self, admission: Admission) -> None:
        self._held.pop(admission.id, None)
        self._usage.pop(admission.id, None)

    async def renew_all(self) -> int:
        """Renew every held lease once; the number renewed. A lease found lapsed is dropped (logged): its
        worker was stalled past ``lease_ms`` and the store has reclaimed and charged it."""
        renewed = failed = 0
        error: Exception | None = None
        for admission in list(self._held.values()):
            usage = self._usage.get(admission.id)
            try:
                alive = await self._renew(admission, None if usage is None else usage())
            except Exception as exc:  # the store is unreachable: keep trying; the lease lapses if this lasts
                failed, error = failed + 1, exc
                continue
            if alive:
                renewed += 1
            elif self._held.pop(admission.id, None) is not None:
                self._usage.pop(admission.id, None)
                log.warning("rate-limit lease of admission %s (tenant %s) had lapsed before renewal",
                            admission.id, admission.tenant_id)
        if failed:  # one line per round, not one per call in flight
            log.warning("rate-limit lease renewal failed for %d admission(s): %s", failed, error)
        return renewed

    async def _run(self, interval_s: float) -> None:
        while True:
            await asyncio.sleep(interval_s)
            await self.renew_all()

    async def aclose(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
