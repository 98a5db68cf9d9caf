"""One /v1 call's engine requests (n choices x prompts), merged into one stream of (choice index, delta).

Time spent waiting on the engine is added to the request's clock (``engine_ns``) so ``x-warden-overhead-ms``
reports the gateway's own time. ``close`` aborts every engine request that has not finished, whatever the reason
the call ends (client disconnect, error, guardrail): the engine frees its KV blocks at once.

A call of one engine request (one prompt, n = 1: nearly every call) reads the engine's stream itself. Several are
merged by a task per request into one queue; for one, that task and queue would only add a task and a second
wake-up per delta. Every engine stream is closed as soon as its last delta is read, not left suspended for the
garbage collector, whose finalizer would close it in a task of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Coroutine
from typing import Any

from engine.outputs import RequestOutput
from engine.protocol import EngineClient
from engine.request import EngineRequest
from gateway.core.middleware import RequestTiming

_background: set[asyncio.Future[Any]] = set()


async def run_shielded(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run cleanup to completion even if the caller is cancelled (the client went away)."""
    return await finish_shielded(asyncio.ensure_future(coro))


async def finish_shielded(task: asyncio.Future[Any]) -> Any:
    """Await ``task``, already started, to its end; a caller cancelled meanwhile leaves it running (held here)."""
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        _background.add(task)
        task.add_done_callback(_background.discard)
        raise


async def _close(stream: AsyncIterator[RequestOutput]) -> None:
    """Close an engine stream (an async generator: its ``finally`` aborts a request it did not finish)."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


class EngineCall:
    def __init__(self, engine: EngineClient, requests: list[EngineRequest], timing: RequestTiming) -> None:
        self._engine = engine
        self._requests = requests
        self._timing = timing
        self._unfinished = {r.request_id for r in requests}
        self._aborted: set[str] = set()
        self._queue: asyncio.Queue[tuple[int, RequestOutput | None, BaseException | None]] | None = None
        self._pumps: list[asyncio.Task[None]] = []
        self._done_pumps = 0
        self._stream: AsyncIterator[RequestOutput] | None = None  # one request's stream, read directly

    async def _pump(self, index: int, request: EngineRequest) -> None:
        assert self._queue is not None
        try:
            stream = self._engine.generate(request)
            try:
                async for output in stream:
                    await self._queue.put((index, output, None))
                    if output.finished:
                        break
            finally:
                await _close(stream)
        except BaseException as exc:  # delivered to the consumer, which re-raises it
            await self._queue.put((index, None, exc))
            if isinstance(exc, asyncio.CancelledError):
                raise
            return
        await self._queue.put((index, None, None))

    def __aiter__(self) -> AsyncIterator[tuple[int, RequestOutput]]:
        return self._direct() if len(self._requests) == 1 else self._outputs()

    async def _direct(self) -> AsyncIterator[tuple[int, RequestOutput]]:
        """The one request's stream, read in the consumer's own task."""
        request = self._requests[0]
        stream = self._stream = self._engine.generate(request)
        timing = self._timing
        while True:
            waited = time.perf_counter_ns()
            try:
                output = await anext(stream)
            except StopAsyncIteration:
                return
            finally:
                timing.engine_ns += time.perf_counter_ns() - waited
            if output.finished:
                self._unfinished.discard(request.request_id)
                yield 0, output
                await _close(stream)  # ended: closed now, not by the garbage collector's finalizer task
                return
            yield 0, output

    async def _outputs(self) -> AsyncIterator[tuple[int, RequestOutput]]:
        if self._queue is None:
            self._queue = asyncio.Queue()
        if not self._pumps:
            self._pumps = [asyncio.create_task(self._pump(i, r)) for i, r in enumerate(self._requests)]
        while self._done_pumps < len(self._pumps):
            waited = time.perf_counter_ns()
            index, output, error = await self._queue.get()
            self._timing.engine_ns += time.perf_counter_ns() - waited
            if error is not None:
                raise error
            if output is None:
                self._done_pumps += 1
                continue
            if output.finished:
                self._unfinished.discard(self._requests[index].request_id)
            yield index, output

    async def abort(self, index: int) -> None:
        """Stop choice ``index`` early (its output is withheld): the engine frees its blocks and answers with a
        final ``abort`` output carrying its usage, which ends the choice like any other last delta. Idempotent."""
        request_id = self._requests[index].request_id
        if request_id in self._unfinished and request_id not in self._aborted:
            self._aborted.add(request_id)
            with contextlib.suppress(Exception):  # the engine may already be gone; close() covers the rest
                await self._engine.abort(request_id)

    async def _abort_unfinished(self) -> None:
        for task in self._pumps:
            task.cancel()
        if self._stream is not None:
            # A stream left suspended mid-way (its consumer raised): closing it aborts its request. One still running
            # in another task cannot be closed from here; the aborts below cover it.
            with contextlib.suppress(Exception):
                await _close(self._stream)
        for request_id in sorted(self._unfinished):
            # The engine may already be gone; then there is nothing left to free.
            with contextlib.suppress(Exception):
                await self._engine.abort(request_id)
        self._unfinished.clear()

    async def close(self) -> None:
        if self._unfinished or any(not t.done() for t in self._pumps):
            await run_shielded(self._abort_unfinished())
