"""Where an upstream MCP server may be: the URL rules checked at registration and the address rules checked on
every connection (SSRF).

A registered URL is http(s) with a host and no user-info. Each connection Warden opens resolves the host once and
every address it resolves to must be a public one: loopback, link-local (cloud metadata endpoints), private, shared,
multicast, reserved and unspecified addresses are refused unless a platform admin set ``allow_private_network`` on
that server's record. The connection goes to an address so checked (``PinnedNetworkBackend``), closing the window
between a check and a second lookup that a rebinding name would answer differently. Redirects are never followed
to another origin (the SDK's transport refuses them), so a registered server cannot bounce Warden to an
unregistered host.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

import httpcore2

from gateway.mcp.address_race import ATTEMPT_DELAY_S, IPAddress, interleave_families, race_connections
from gateway.mcp.coalesced_stream import CoalescedStream

MAX_URL_LENGTH = 2048


class TargetRefused(Exception):
    """The URL or the addresses it resolves to are not a place Warden connects to."""


def check_url(url: str) -> str:
    """The URL as it will be stored, or ``TargetRefused`` naming what is wrong with it."""
    if len(url) > MAX_URL_LENGTH:
        raise TargetRefused(f"url is longer than {MAX_URL_LENGTH} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise TargetRefused(f"url is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise TargetRefused("url must be http:// or https://")
    if not parts.hostname:
        raise TargetRefused("url has no host")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("url must not carry credentials (register them as credentials.headers)")
    if parts.fragment:
        raise TargetRefused("url must not have a fragment")
    if port == 0:
        raise TargetRefused("url has port 0")
    return url


# host, port -> the addresses the name resolves to (the system resolver unless a test or a deployment supplies one).
Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]


def _public(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


async def system_resolver(host: str, port: int) -> list[IPAddress]:
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        raise TargetRefused("the upstream server's host does not resolve") from None
    # Scope ids (fe80::1%eth0) are dropped: such an address is link-local, refused unless private ones are allowed.
    return list(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos))


async def resolve_checked(host: str, port: int, *, allow_private_network: bool,
                          resolver: Resolver = system_resolver) -> list[IPAddress]:
    """The addresses to connect to for ``host``: resolved once, and refused unless every one is public (or private
    ones are allowed). A caller connects only to what this returns, so the address checked is the one connected."""
    try:
        addresses: list[IPAddress] = [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        addresses = await resolver(host, port)
    if not addresses:
        raise TargetRefused("the upstream server's host does not resolve")
    if not allow_private_network and not all(_public(address) for address in addresses):
        raise TargetRefused("the upstream server resolves to a loopback, link-local or private address, which its "
                            "registration does not allow")
    return addresses


async def check_addresses(url: str, *, allow_private_network: bool, resolver: Resolver = system_resolver) -> None:
    """Resolve the URL's host and refuse it unless every address is public (or private ones are allowed)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    await resolve_checked(parts.hostname or "", port, allow_private_network=allow_private_network, resolver=resolver)


class PinnedNetworkBackend(httpcore2.AsyncNetworkBackend):
    """The connection layer of an upstream's HTTP client: each new connection resolves the host once, checks every
    address (``resolve_checked``) and connects only to addresses so checked, never to a second lookup of the name,
    so a name that answers a public address to the check and a private one to the connection (DNS rebinding) cannot
    reach the private one. TLS still verifies, and SNI and ``Host`` still carry, the registered name: only the
    socket's address is pinned. A name with several addresses has them raced (``race_connections``: families
    alternating, ``attempt_delay_s`` apart), so a dead address delays a connection by the delay, not a timeout."""

    def __init__(self, *, allow_private_network: bool, resolver: Resolver = system_resolver,
                 attempt_delay_s: float = ATTEMPT_DELAY_S) -> None:
        self._allow_private_network = allow_private_network
        self._resolver = resolver
        self._attempt_delay_s = attempt_delay_s
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> httpcore2.AsyncNetworkStream:
        addresses = await resolve_checked(host, port, allow_private_network=self._allow_private_network,
                                          resolver=self._resolver)
        options = list(socket_options or ())  # shared by the attempts: an iterator would serve only the first

        async def connect(address: IPAddress) -> httpcore2.AsyncNetworkStream:
            return await self._inner.connect_tcp(str(address), port, timeout=timeout, local_address=local_address,
                                                 socket_options=options)

        stream = await race_connections(interleave_families(addresses), connect,
                                        attempt_delay_s=self._attempt_delay_s)
        return CoalescedStream(stream)  # a request's head and body leave in one write

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> httpcore2.AsyncNetworkStream:
        raise TargetRefused("upstream servers are reached over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
