"""IP addresses: IPv4, IPv6 compressed and full, and IPv6 with an embedded IPv4 (mapped, NAT64)."""

from __future__ import annotations

import ipaddress
import random

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split


def _ipv4(rng: random.Random) -> ipaddress.IPv4Address:
    while True:
        address = ipaddress.IPv4Address(rng.getrandbits(32))
        if not (address.is_multicast or address.is_reserved or address.is_unspecified or address.is_loopback):
            return address


def _ipv6(rng: random.Random) -> ipaddress.IPv6Address:
    groups = [rng.getrandbits(16) for _ in range(8)]
    for index in range(rng.randint(2, 6), 8):  # zero runs, so that compression has something to compress
        if rng.random() < 0.5:
            groups[index] = 0
    groups[0] = rng.choice([0x2001, 0x2A00, 0x2600, 0xFE80, 0x2400, 0xFD12])
    return ipaddress.IPv6Address(b"".join(g.to_bytes(2, "big") for g in groups))


def ip_address(rng: random.Random, split: str) -> Pii:
    def make() -> tuple[str, str]:
        roll = rng.random()
        if roll < 0.55:
            return str(_ipv4(rng)), "ip:v4"
        if roll < 0.8:
            return _ipv6(rng).compressed, "ip:v6-compressed"
        if roll < 0.9:
            return _ipv6(rng).exploded, "ip:v6-full"
        embedded = _ipv4(rng)
        return rng.choice([f"::ffff:{embedded}", f"64:ff9b::{embedded}"]), "ip:v6-mixed"

    value, subtype = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("IP_ADDRESS", value, subtype)
