"""An HTTP transport that stops reading an upstream's response once it passes a byte limit.

The SDK's client reads a JSON response whole, and an SSE response event by event with no bound on the stream: without
this, one upstream could make the gateway buffer as much as it cares to send. Counting happens on the wire bytes as
they arrive, so an oversize response costs at most the limit in memory before the call fails.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2


class ResponseTooLarge(httpx2.ReadError):
    """The upstream's response passed the limit; the connection is dropped, not drained."""


class _CountedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, request: httpx2.Request) -> None:
        self._inner = inner
        self._limit = limit
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        received = 0
        async for chunk in self._inner:
            received += len(chunk)
            if received > self._limit:
                raise ResponseTooLarge(f"the response passed {self._limit} bytes", request=self._request)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class BoundedTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport, *, max_response_bytes: int) -> None:
        self._inner = inner
        self._limit = max_response_bytes

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        return httpx2.Response(status_code=response.status_code, headers=response.headers,
                               stream=_CountedStream(stream, self._limit, request), extensions=response.extensions,
                               request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()
