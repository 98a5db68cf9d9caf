"""An open-loop, constant-rate HTTPS load generator for the gateway-overhead benchmark.

Request ``i`` is due at ``start + i / rate`` whether or not earlier ones have answered (a slow server meets more
load, not less: no coordinated omission). Each due request takes an idle kept-alive connection or opens one; the
responses are parsed with ``httptools`` (the C parser uvicorn uses) over asyncio streams, so a request costs the
client little CPU — on a machine whose cores the servers share, the client's own cost would otherwise show up as
the servers' latency. Latency is timed from the moment the request was written (``service``) and from the moment
it was due (``response``, which adds any lateness of the client's own loop; ``client_lag`` says how much).

What is timed is the server's, not the client's: idle connections are reused oldest first, so each stays in use and
none sits idle past the server's keep-alive timeout only to be found closed by the next burst (whose requests would
then wait for a new TLS handshake, counted as the server's latency); the connections opened during a run are
counted (``connections_opened``). The client's own collector is kept out of the measured run (its heap frozen,
finished requests not kept): a full collection over thousands of finished requests pauses the loop that reads the
responses, for every request in flight.

Streams: the stub engine (``bench.stub_engine``) and the floor stamp their first content delta with
``time.perf_counter_ns()`` (CLOCK_MONOTONIC, one clock for all processes on a machine) as they send it; the client
notes its own clock when the bytes carrying that stamp arrive, which times the engine's first token to the
client's first byte of it through whatever sits between.
"""

from __future__ import annotations

import asyncio
import gc
import re
import ssl
import statistics
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

import httptools

from bench.serve_stats import percentile

STAMP = re.compile(rb'"(?:content|text)":"t(\d{6,})')
OVERHEAD_HEADERS = (b"x-warden-overhead-ms", b"x-litellm-overhead-duration-ms")


@dataclass(slots=True)
class Reply:
    status: int
    headers: dict[bytes, bytes]
    body: bytes
    stamp_lag_ns: int | None = None  # the first stamped delta's arrival minus its stamp


class _Parser:
    """httptools callbacks for one response."""

    def __init__(self, started_ns: int) -> None:
        self.headers: dict[bytes, bytes] = {}
        self.body = bytearray()
        self.complete = False
        self.stamp_lag_ns: int | None = None
        self.now_ns = started_ns

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.lower()] = value

    def on_body(self, body: bytes) -> None:
        self.body += body
        if self.stamp_lag_ns is None:
            found = STAMP.search(self.body)
            if found is not None:
                self.stamp_lag_ns = self.now_ns - int(found.group(1))

    def on_message_complete(self) -> None:
        self.complete = True


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.received = 0  # bytes read by the current exchange
        self.exchanges = 0  # requests sent over this connection

    @classmethod
    async def open(cls, host: str, port: int, tls: ssl.SSLContext | None) -> Connection:
        reader, writer = await asyncio.open_connection(host, port, ssl=tls, limit=1 << 20)
        return cls(reader, writer)

    async def exchange(self, request: bytes) -> Reply:
        self.received = 0
        self.exchanges += 1
        self.writer.write(request)
        callbacks = _Parser(time.perf_counter_ns())
        parser = httptools.HttpResponseParser(callbacks)
        while not callbacks.complete:
            data = await self.reader.read(1 << 16)
            if not data:
                raise ConnectionError("the server closed the connection mid-response")
            self.received += len(data)
            callbacks.now_ns = time.perf_counter_ns()
            parser.feed_data(data)
        return Reply(parser.get_status_code(), callbacks.headers, bytes(callbacks.body), callbacks.stamp_lag_ns)

    def close(self) -> None:
        self.writer.close()


def http_request(host: str, port: int, path: str, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", "Content-Type: application/json",
             f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@dataclass
class LoadResult:
    rate: float
    duration_s: float
    service_ms: list[float] = field(default_factory=list)
    response_ms: list[float] = field(default_factory=list)
    client_lag_ms: list[float] = field(default_factory=list)
    reported_overhead_ms: list[float] = field(default_factory=list)
    stamp_lag_ms: list[float] = field(default_factory=list)
    timeline: list[tuple[float, float]] = field(default_factory=list)  # each answered request's write and last byte
    statuses: Counter[str] = field(default_factory=Counter)
    connections: int = 0
    connections_opened: int = 0  # during the run: the first ones, and any that replaced one the server closed
    wall_s: float = 0.0

    def summary(self) -> dict[str, Any]:
        def pcts(values: list[float]) -> dict[str, float | None]:
            if not values:
                return {"p50": None, "p90": None, "p99": None, "max": None}
            return {"p50": statistics.median(values), "p90": percentile(values, 90), "p99": percentile(values, 99),
                    "max": max(values)}

        completed = sum(n for status, n in self.statuses.items() if status == "200")
        return {"target_rate": self.rate, "duration_s": self.duration_s, "sent": sum(self.statuses.values()),
                "ok": completed, "errors": sum(self.statuses.values()) - completed,
                "answered": sum(n for status, n in self.statuses.items() if status.isdigit()),
                "statuses": dict(self.statuses), "achieved_rate": completed / self.wall_s if self.wall_s else 0.0,
                "connections": self.connections, "connections_opened": self.connections_opened,
                "service_ms": pcts(self.service_ms),
                "response_ms": pcts(self.response_ms), "client_lag_ms": pcts(self.client_lag_ms),
                "reported_overhead_ms": pcts(self.reported_overhead_ms), "stamp_lag_ms": pcts(self.stamp_lag_ms)}


class InFlightCapReached(ConnectionError):
    """Every allowed connection is busy: the request was never sent (the client's refusal, not the server's)."""


class Target:
    """One server: where it listens and how each request is written (its path, auth header and bodies)."""

    def __init__(self, host: str, port: int, path: str, bodies: list[bytes], headers: dict[str, str],
                 tls: ssl.SSLContext | None, max_connections: int = 512) -> None:
        self.host, self.port, self.tls = host, port, tls
        self.requests = [http_request(host, port, path, body, headers) for body in bodies]
        self.idle: deque[Connection] = deque()  # oldest first: every kept-alive connection stays in use
        self.opened = 0  # open now
        self.opened_total = 0  # ever
        self.max_connections = max_connections

    async def _connection(self) -> Connection:
        if self.idle:
            return self.idle.popleft()
        if self.opened >= self.max_connections:
            raise InFlightCapReached(f"more than {self.max_connections} requests in flight")
        self.opened += 1
        self.opened_total += 1
        try:
            return await Connection.open(self.host, self.port, self.tls)
        except BaseException:
            self.opened -= 1
            raise

    async def send(self, index: int) -> Reply:
        reused = bool(self.idle)
        connection = await self._connection()
        try:
            reply = await connection.exchange(self.requests[index % len(self.requests)])
        except BaseException as exc:
            connection.close()
            self.opened -= 1
            if reused and isinstance(exc, ConnectionError) and connection.received == 0:
                # The server closed a kept-alive connection that sat idle past its keep-alive timeout before this
                # request reached it: a fresh connection, as any HTTP client would (nothing was processed).
                return await self.send(index)
            raise
        if reply.headers.get(b"connection", b"").lower() == b"close":
            connection.close()
            self.opened -= 1
        else:
            self.idle.append(connection)
        return reply

    def close(self) -> None:
        for connection in self.idle:
            connection.close()
        self.idle.clear()
        self.opened = 0


async def run_open_loop(target: Target, rate: float, duration_s: float, *, timeout_s: float = 30.0,
                        first_body: int = 0) -> LoadResult:
    """``rate`` requests/s for ``duration_s``, each due at its time; waits for every one (up to ``timeout_s``).
    Request ``i`` sends the target's body ``first_body + i`` (cyclically): a warm-up and the phase after it send
    different bodies, so a server that caches by content (the guardrails' scans) meets none it has seen."""
    result = LoadResult(rate, duration_s)
    total = max(1, round(rate * duration_s))
    opened_before = target.opened_total
    tasks: set[asyncio.Task[None]] = set()
    gc.collect()
    gc.freeze()  # what exists now (earlier phases' results among it) is never walked by a collection in the run
    start = time.perf_counter() + 0.05

    async def one(index: int, due: float) -> None:
        sent = time.perf_counter()
        result.client_lag_ms.append((sent - due) * 1e3)
        try:
            reply = await asyncio.wait_for(target.send(index), timeout_s)
        except Exception as exc:  # counted, never fatal: the run reports its errors
            result.statuses[type(exc).__name__] += 1
            return
        done = time.perf_counter()
        result.statuses[str(reply.status)] += 1
        if reply.status != 200:
            return
        result.service_ms.append((done - sent) * 1e3)
        result.timeline.append((sent, done))
        result.response_ms.append((done - due) * 1e3)
        for name in OVERHEAD_HEADERS:
            if name in reply.headers:
                result.reported_overhead_ms.append(float(reply.headers[name]))
                break
        if reply.stamp_lag_ns is not None:
            result.stamp_lag_ms.append(reply.stamp_lag_ns / 1e6)

    try:
        for index in range(total):
            due = start + index / rate
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(one(first_body + index, due))
            tasks.add(task)  # held until done, then dropped
            task.add_done_callback(tasks.discard)
        while tasks:
            await asyncio.wait(set(tasks))
    finally:
        gc.unfreeze()
    result.wall_s = time.perf_counter() - start
    result.connections = target.opened
    result.connections_opened = target.opened_total - opened_before
    return result
