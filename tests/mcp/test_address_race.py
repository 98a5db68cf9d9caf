"""An upstream name with several addresses has them raced (Happy Eyeballs, RFC 8305): a dead address costs a
connection the attempt delay, not a connect timeout, a refused one costs nothing, the first connection wins and
the others are cancelled or closed; every address raced is still one the DNS-rebinding check passed.

Loopback stands in for the network: the whole of 127/8 is local on Linux, so 127.0.0.x are distinct hosts; a
listener whose accept queue is full drops new SYNs, which is what a dead route looks like to a client."""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterator

import anyio
import httpcore2
import pytest
from test_dns_rebinding import ScriptedResolver

from gateway.mcp.address_race import interleave_families, race_connections
from gateway.mcp.targets import IPAddress, PinnedNetworkBackend, TargetRefused

GOOD = ipaddress.ip_address("127.0.0.1")
DEAD = ipaddress.ip_address("127.0.0.2")
REFUSING = ipaddress.ip_address("127.0.0.3")
SECOND_GOOD = ipaddress.ip_address("127.0.0.4")


def _listener(address: IPAddress, port: int = 0) -> socket.socket:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((str(address), port))
    listener.listen(8)
    listener.setblocking(False)
    return listener


@pytest.fixture
def hosts() -> Iterator[int]:
    """One port on which GOOD and SECOND_GOOD accept, DEAD drops SYNs (its queue is full) and REFUSING resets."""
    good = _listener(GOOD)
    port = good.getsockname()[1]
    second = _listener(SECOND_GOOD, port)
    dead = socket.socket()
    dead.bind((str(DEAD), port))
    dead.listen(0)
    filler = socket.create_connection((str(DEAD), port), timeout=2)  # fills the queue of one
    try:
        yield port
    finally:
        for sock in (good, second, dead, filler):
            sock.close()


def _accepted(listener: socket.socket) -> list[socket.socket]:
    accepted = []
    while True:
        try:
            accepted.append(listener.accept()[0])
        except BlockingIOError:
            return accepted


def test_families_alternate_starting_with_the_first_one() -> None:
    v6a, v6b = ipaddress.ip_address("2001:db8::1"), ipaddress.ip_address("2001:db8::2")
    v4a, v4b, v4c = (ipaddress.ip_address(f"192.0.2.{n}") for n in (1, 2, 3))
    assert interleave_families([v6a, v6b, v4a, v4b, v4c]) == [v6a, v4a, v6b, v4b, v4c]
    assert interleave_families([v4a, v6a, v4b]) == [v4a, v6a, v4b]
    assert interleave_families([v4a, v4b]) == [v4a, v4b]
    assert interleave_families([]) == []


async def test_a_dead_address_first_costs_the_attempt_delay_not_the_timeout(hosts: int) -> None:
    backend = PinnedNetworkBackend(allow_private_network=True, resolver=ScriptedResolver([DEAD, GOOD]),
                                   attempt_delay_s=0.2)
    started = time.monotonic()
    stream = await backend.connect_tcp("replicas.internal", hosts, timeout=10.0)
    elapsed = time.monotonic() - started
    try:
        peer = stream.get_extra_info("server_addr")
        assert peer[0] == str(GOOD)
    finally:
        await stream.aclose()
    # One after the other, the dead address would have held the connection for its whole ten-second timeout.
    assert 0.2 <= elapsed < 3.0


async def test_a_refused_address_starts_the_next_attempt_at_once(hosts: int) -> None:
    backend = PinnedNetworkBackend(allow_private_network=True, resolver=ScriptedResolver([REFUSING, GOOD]),
                                   attempt_delay_s=30.0)
    started = time.monotonic()
    stream = await backend.connect_tcp("replicas.internal", hosts, timeout=10.0)
    try:
        assert stream.get_extra_info("server_addr")[0] == str(GOOD)
    finally:
        await stream.aclose()
    assert time.monotonic() - started < 3.0  # not the 30 s attempt delay


async def test_the_first_connection_wins_and_one_made_after_it_is_closed() -> None:
    first, second = _listener(GOOD), _listener(SECOND_GOOD)
    inner = httpcore2.AnyIOBackend()

    async def connect(address: IPAddress) -> httpcore2.AsyncNetworkStream:
        listener = first if address == GOOD else second
        if address == GOOD:  # slow, and deaf to the race's cancellation: it connects after the winner
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.3)
                return await inner.connect_tcp(str(address), listener.getsockname()[1], timeout=5.0)
        return await inner.connect_tcp(str(address), listener.getsockname()[1], timeout=5.0)

    try:
        stream = await race_connections([GOOD, SECOND_GOOD], connect, attempt_delay_s=0.01)
        try:
            assert stream.get_extra_info("server_addr")[0] == str(SECOND_GOOD)
            (kept,) = _accepted(second)
            (late,) = _accepted(first)
            late.settimeout(2.0)
            assert late.recv(1) == b""  # the late connection was closed by the race
            kept.setblocking(False)
            with pytest.raises(BlockingIOError):
                kept.recv(1)  # the winner stays open
            late.close()
            kept.close()
        finally:
            await stream.aclose()
    finally:
        first.close()
        second.close()


async def test_every_address_failing_raises_the_connect_error(hosts: int) -> None:
    backend = PinnedNetworkBackend(allow_private_network=True, resolver=ScriptedResolver([REFUSING, DEAD]),
                                   attempt_delay_s=0.05)
    started = time.monotonic()
    with pytest.raises((httpcore2.ConnectError, httpcore2.ConnectTimeout)):
        await backend.connect_tcp("replicas.internal", hosts, timeout=0.5)
    assert time.monotonic() - started < 3.0


async def test_the_race_only_includes_checked_addresses(hosts: int) -> None:
    # One private address among public ones refuses the whole name before any attempt is made.
    resolver = ScriptedResolver([ipaddress.ip_address("8.8.8.8"), GOOD])
    backend = PinnedNetworkBackend(allow_private_network=False, resolver=resolver, attempt_delay_s=0.01)
    with pytest.raises(TargetRefused):
        await backend.connect_tcp("rebind.test", hosts, timeout=2.0)


async def test_the_caller_can_cancel_a_race_under_way(hosts: int) -> None:
    backend = PinnedNetworkBackend(allow_private_network=True, resolver=ScriptedResolver([DEAD, DEAD]),
                                   attempt_delay_s=0.05)
    with anyio.move_on_after(0.3) as scope:
        await backend.connect_tcp("replicas.internal", hosts, timeout=10.0)
    assert scope.cancelled_caught


async def test_race_connections_with_no_address_is_a_connect_error() -> None:
    async def connect(_address: IPAddress) -> httpcore2.AsyncNetworkStream:
        raise AssertionError("never called")

    with pytest.raises(httpcore2.ConnectError):
        await race_connections([], connect)
