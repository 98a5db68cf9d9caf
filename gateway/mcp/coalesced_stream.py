"""A network stream that gathers a request's writes and sends them together when the response is first read.

httpcore writes an HTTP/1.1 request as separate writes (the head, then each body chunk). On a connection with
``TCP_NODELAY`` each write is a segment of its own: a system call here, and the upstream's server woken for the head
only to wait for the body. A JSON-RPC call is a small body sent whole and then read, so one write carries it.

Writes are held until the stream is read (or until ``FLUSH_BYTES`` are held, so a large body still streams), which
is when an HTTP/1.1 client has finished sending; a stream closed with writes still held drops them, as a request
abandoned before its response was read has no use for them.
"""

from __future__ import annotations

import ssl
from typing import Any

import httpcore2

FLUSH_BYTES = 64 * 1024


class CoalescedStream(httpcore2.AsyncNetworkStream):
    def __init__(self, inner: httpcore2.AsyncNetworkStream) -> None:
        self._inner = inner
        self._held: list[bytes] = []
        self._held_bytes = 0
        self._write_timeout: float | None = None

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._held.append(buffer)
        self._held_bytes += len(buffer)
        self._write_timeout = timeout
        if self._held_bytes >= FLUSH_BYTES:
            await self._flush()

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        await self._flush()
        return await self._inner.read(max_bytes, timeout)

    async def _flush(self) -> None:
        if not self._held:
            return
        data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held.clear()
        self._held_bytes = 0
        await self._inner.write(data, self._write_timeout)

    async def aclose(self) -> None:
        self._held.clear()
        self._held_bytes = 0
        await self._inner.aclose()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> httpcore2.AsyncNetworkStream:
        await self._flush()
        return CoalescedStream(await self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)
