"""Requests to upstreams leave in one write: the head and body an HTTP/1.1 client writes apart are held until the
response is read, a large body still streams past ``FLUSH_BYTES``, and what a request abandoned before its response
held is dropped with its connection. Checked on a real loopback socket, from the server's side."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import anyio
import pytest
from mcp_support import serve, upstream_app
from test_dns_rebinding import ScriptedResolver

from gateway.mcp.coalesced_stream import FLUSH_BYTES, CoalescedStream
from gateway.mcp.registry import UpstreamServer
from gateway.mcp.targets import PinnedNetworkBackend
from gateway.mcp.upstream import UpstreamClients

LOOPBACK = ipaddress.ip_address("127.0.0.1")


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock


def _pending(peer: socket.socket) -> bytes:
    """What has arrived at the server's end so far, without waiting for more."""
    peer.setblocking(False)
    try:
        return peer.recv(1 << 20)
    except BlockingIOError:
        return b""


async def test_writes_are_held_until_the_response_is_read(listener: socket.socket) -> None:
    backend = PinnedNetworkBackend(allow_private_network=True, resolver=ScriptedResolver([LOOPBACK]))
    stream = await backend.connect_tcp("tools.internal", listener.getsockname()[1], timeout=5.0)
    assert isinstance(stream, CoalescedStream)
    peer, _ = listener.accept()
    with peer:
        await stream.write(b"POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n", timeout=5.0)
        await stream.write(b"{}", timeout=5.0)
        await anyio.sleep(0.05)
        assert _pending(peer) == b""  # nothing sent yet
        peer.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")
        assert await stream.read(1024, timeout=5.0) == b"HTTP/1.1 204 No Content\r\n\r\n"
        peer.settimeout(5.0)
        assert peer.recv(1024) == b"POST /mcp HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"  # head and body together
        await stream.aclose()


async def test_a_large_body_streams_and_an_abandoned_request_is_dropped(listener: socket.socket) -> None:
    backend = PinnedNetworkBackend(allow_private_network=True, resolver=ScriptedResolver([LOOPBACK]))
    stream = await backend.connect_tcp("tools.internal", listener.getsockname()[1], timeout=5.0)
    peer, _ = listener.accept()
    with peer:
        await stream.write(b"x" * FLUSH_BYTES, timeout=5.0)  # reaches the threshold: sent without a read
        received = b""
        peer.settimeout(5.0)
        while len(received) < FLUSH_BYTES:
            received += peer.recv(1 << 20)
        assert received == b"x" * FLUSH_BYTES
        await stream.write(b"never sent", timeout=5.0)
        await stream.aclose()
        assert peer.recv(1024) == b""  # closed, and the held bytes went nowhere


async def test_calls_through_the_coalesced_stream_reach_a_real_upstream() -> None:
    served = serve(upstream_app("coalesced"))
    clients = UpstreamClients(max_message_bytes=1 << 20, resolver=ScriptedResolver([LOOPBACK]))
    try:
        server = UpstreamServer(tenant_id="tenant-coalesced", name="tools", version=1,
                                url=f"http://tools.internal:{served.port}/mcp", timeout_s=5.0,
                                allow_private_network=True, headers={})
        for a in range(3):  # a kept session: the connection is reused between calls
            result = await clients.call_tool(server, "add", {"a": a, "b": 1}, None)
            assert result.structured_content == {"result": a + 1}
    finally:
        await clients.aclose()
        served.stop()
