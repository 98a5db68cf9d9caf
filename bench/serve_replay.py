"""Replay a trace against an OpenAI-compatible endpoint with streaming, at a fixed concurrency, and time every
request the way AIPerf does (TTFT to the first content chunk; ITL = (last - first content) / (tokens - 1)).

Turns of one session go one at a time, in order (a turn's prompt includes what the previous one left in the
prefix cache), each ``think_s`` after the previous one's answer ended (the agent's tool call and thinking); up to
``concurrency`` requests of different sessions are in flight at once, earliest first. A session thinking holds no
slot: another session's turn takes it. With ``session_slots`` a slot is a session's from its first turn to its last,
think time included: AIPerf's concurrency, which ``bench.aiperf`` measures against.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

from bench.traces.mooncake import TraceEntry


@dataclass(slots=True)
class RequestResult:
    index: int  # position in the replayed trace
    session_id: str | None
    prompt_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    start_s: float = 0.0  # perf_counter
    first_token_s: float | None = None
    end_s: float = 0.0
    chunk_times: list[float] = field(default_factory=list)  # arrival of each content chunk
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.first_token_s is not None and self.output_tokens > 0

    @property
    def ttft_s(self) -> float | None:
        return None if self.first_token_s is None else self.first_token_s - self.start_s

    @property
    def latency_s(self) -> float:
        return self.end_s - self.start_s

    @property
    def itl_s(self) -> float | None:
        """Mean time between output tokens after the first (None for a one-token answer)."""
        if self.first_token_s is None or self.output_tokens < 2 or not self.chunk_times:
            return None
        return (self.chunk_times[-1] - self.first_token_s) / (self.output_tokens - 1)

    @property
    def chunk_gaps_s(self) -> list[float]:
        return [b - a for a, b in zip(self.chunk_times, self.chunk_times[1:], strict=False)]


Send = Callable[[int, TraceEntry], Awaitable[RequestResult]]


async def replay(entries: Sequence[TraceEntry], concurrency: int, send: Send,
                 think_s: float = 0.0, *, session_slots: bool = False) -> tuple[list[RequestResult], float]:
    """Every entry once; returns the results in trace order and the wall time from the first send to the last
    completion."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    slots = asyncio.Semaphore(concurrency)
    done = [asyncio.Event() for _ in entries]
    previous_turn: dict[str, int] = {}
    waits_for: list[int | None] = []
    for index, entry in enumerate(entries):
        if entry.session_id is None:
            waits_for.append(None)
            continue
        waits_for.append(previous_turn.get(entry.session_id))
        previous_turn[entry.session_id] = index
    last_turns = set(previous_turn.values())
    results: list[RequestResult | None] = [None] * len(entries)
    started = time.perf_counter()

    async def run(index: int) -> None:
        try:
            before = waits_for[index]
            if before is not None:
                await done[before].wait()
                await asyncio.sleep(think_s)
            if session_slots and entries[index].session_id is not None:
                await run_holding_session_slot(index, first=before is None)
                return
            async with slots:
                results[index] = await send(index, entries[index])
        finally:
            done[index].set()  # a failed turn must not stall the rest of its session

    async def run_holding_session_slot(index: int, *, first: bool) -> None:
        if first:
            await slots.acquire()
        try:
            results[index] = await send(index, entries[index])
        finally:
            if index in last_turns:
                slots.release()

    await asyncio.gather(*(run(i) for i in range(len(entries))))
    wall = time.perf_counter() - started
    return [r for r in results if r is not None], wall


class ChatStreamer:
    """POSTs streamed chat completions and times their chunks. Greedy and through the end-of-sequence token by
    default (``ignore_eos``, which Warden and llama-server both take), so every server writes exactly the trace's
    output length and all do the same work."""

    def __init__(self, client: httpx.AsyncClient, base_url: str, api_key: str, model: str, *,
                 ignore_eos: bool = True) -> None:
        self.client = client
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.headers = {"authorization": f"Bearer {api_key}"}
        self.model = model
        self.ignore_eos = ignore_eos

    async def send(self, index: int, entry: TraceEntry, messages: list[dict[str, str]], *,
                   seed: int | None = None, temperature: float = 0.0) -> RequestResult:
        result = RequestResult(index=index, session_id=entry.session_id)
        body: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": entry.output_length,
                                "stream": True, "stream_options": {"include_usage": True},
                                "temperature": temperature}
        if self.ignore_eos:
            body["ignore_eos"] = True
        if seed is not None:
            body["seed"] = seed
        result.start_s = time.perf_counter()
        try:
            async with self.client.stream("POST", self.url, headers=self.headers, content=orjson.dumps(body),
                                          timeout=httpx.Timeout(None, connect=30.0)) as response:
                if response.status_code != 200:
                    await response.aread()
                    result.error = f"HTTP {response.status_code}: {response.text[:300]}"
                    return result
                async for line in response.aiter_lines():
                    self._absorb(result, line, time.perf_counter())
        except httpx.HTTPError as exc:
            result.error = f"{type(exc).__name__}: {exc}"
        finally:
            result.end_s = time.perf_counter()
        return result

    @staticmethod
    def _absorb(result: RequestResult, line: str, now: float) -> None:
        if not line.startswith("data: ") or line == "data: [DONE]":
            return
        chunk = orjson.loads(line[6:])
        if "error" in chunk:
            result.error = str(chunk["error"].get("message", chunk["error"]))[:300]
            return
        for choice in chunk.get("choices") or ():
            if (choice.get("delta") or {}).get("content"):
                if result.first_token_s is None:
                    result.first_token_s = now
                result.chunk_times.append(now)
        usage = chunk.get("usage")
        if usage:
            result.prompt_tokens = usage.get("prompt_tokens", 0)
            result.output_tokens = usage.get("completion_tokens", 0)
            result.cached_tokens = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0) or 0
