"""Where an upstream MCP server may be: the URL rules checked at registration and the address rules checked before
every connection (SSRF).

A registered URL is http(s) with a host and no user-info. Before Warden connects, the host is resolved and every
address it resolves to must be a public one: loopback, link-local (cloud metadata endpoints), private, shared,
multicast, reserved and unspecified addresses are refused unless a platform admin set ``allow_private_network`` on
that server's record. Redirects are never followed to another origin (the SDK's transport refuses them), so a
registered server cannot bounce Warden to an unregistered host.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from urllib.parse import urlsplit

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


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


async def check_addresses(url: str, *, allow_private_network: bool) -> None:
    """Resolve the URL's host and refuse it unless every address is public (or private ones are allowed)."""
    if allow_private_network:
        return
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            raise TargetRefused("the upstream server's host does not resolve") from None
        addresses = [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]
    if not addresses or not all(_public(address) for address in addresses):
        raise TargetRefused("the upstream server resolves to a loopback, link-local or private address, which its "
                            "registration does not allow")
