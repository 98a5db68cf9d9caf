"""Connecting to one of several addresses of a host by racing them (Happy Eyeballs, RFC 8305 section 5): the
addresses are tried in an order that alternates address families, each attempt started a connection attempt delay
after the previous one or as soon as the previous one fails, whichever comes first; the first connection made wins
and every other attempt is cancelled (a connection that completes after the winner is closed).

A host with an unreachable address (an IPv6 route that drops packets, one dead replica behind a name) then costs a
connection the attempt delay, not a whole connect timeout per dead address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from itertools import zip_longest

import anyio
import anyio.abc
import httpcore2

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# RFC 8305 section 8: the recommended Connection Attempt Delay (and its floor of 100 ms, 10 ms being the floor an
# implementation may use for a known fast network).
ATTEMPT_DELAY_S = 0.25
CONNECT_FAILURES = (httpcore2.ConnectError, httpcore2.ConnectTimeout)


def interleave_families(addresses: Sequence[IPAddress]) -> list[IPAddress]:
    """The addresses in their preference order (the resolver's) with the families alternating, the first
    address's family first (RFC 8305 section 4)."""
    if not addresses:
        return []
    first = [address for address in addresses if address.version == addresses[0].version]
    other = [address for address in addresses if address.version != addresses[0].version]
    return [address for pair in zip_longest(first, other) for address in pair if address is not None]


async def race_connections(addresses: Sequence[IPAddress],
                           connect: Callable[[IPAddress], Awaitable[httpcore2.AsyncNetworkStream]], *,
                           attempt_delay_s: float = ATTEMPT_DELAY_S) -> httpcore2.AsyncNetworkStream:
    """The stream of the first of ``connect(address)`` to succeed, trying ``addresses`` in order with a stagger of
    ``attempt_delay_s``; when every attempt fails, the last attempt's failure (a ``ConnectError`` or
    ``ConnectTimeout``). Any other exception ends the race and is raised."""
    if not addresses:
        raise httpcore2.ConnectError("no address to connect to")
    winner: httpcore2.AsyncNetworkStream | None = None
    failures: list[Exception] = []

    async def attempt(address: IPAddress, failed: anyio.Event, group: anyio.abc.TaskGroup) -> None:
        nonlocal winner
        try:
            stream = await connect(address)
        except CONNECT_FAILURES as exc:
            failures.append(exc)
            failed.set()  # the next attempt starts now rather than after the delay
            return
        if winner is None:
            winner = stream
            group.cancel_scope.cancel()  # the attempts still under way, and the starting of new ones
            return
        with anyio.CancelScope(shield=True):  # a loser that connected anyway: closed, even as the race ends
            await stream.aclose()

    try:
        async with anyio.create_task_group() as group:
            for index, address in enumerate(addresses):
                failed = anyio.Event()
                group.start_soon(attempt, address, failed, group)
                if index + 1 < len(addresses):
                    with anyio.move_on_after(attempt_delay_s):
                        await failed.wait()
    except BaseException as exc:
        if winner is not None:  # the caller was cancelled as the race was won: the connection is not kept
            with anyio.CancelScope(shield=True):
                await winner.aclose()
        if isinstance(exc, BaseExceptionGroup):  # an unexpected failure of an attempt: raised as itself
            raise exc.exceptions[0] from None
        raise
    if winner is not None:
        return winner
    raise failures[-1]
