"""Commands packed by hiredis (C) rather than redis-py's Python packer, on the limiter's asyncio connections.

redis-py parses replies with hiredis when it is installed, but its asyncio connections still pack every command in
Python, an encoder call and a few joins per argument: for an admission's EVALSHA (a dozen arguments) several times
what the packing costs in C, and there is one on every request, another to settle it. ``hiredis.pack_command``
writes the same bytes (strings as UTF-8, integers in decimal).
"""

from __future__ import annotations

from typing import Any

import hiredis
from redis.asyncio import Redis
from redis.exceptions import DataError


class HiredisPacking:
    """Mixed into a redis-py asyncio connection class: ``pack_command`` by hiredis (``pack_commands``, which
    pipelines use, calls it per command)."""

    def pack_command(self, *args: Any) -> list[bytes]:
        # As redis-py does: a command name with a space in it ("CLIENT SETINFO") is sent as separate words.
        first = args[0]
        if isinstance(first, str):
            args = (*first.encode().split(), *args[1:])
        elif b" " in first:
            args = (*first.split(), *args[1:])
        try:
            return [hiredis.pack_command(args)]
        except TypeError as exc:  # redis-py's encoder refuses the same values (None, bools, other objects)
            raise DataError(str(exc)) from None


def packed_by_hiredis(redis: Redis) -> None:
    """From now on, ``redis``'s new connections pack commands with hiredis (a dependency of the gateway)."""
    pool = redis.connection_pool
    base = pool.connection_class
    if not issubclass(base, HiredisPacking):
        pool.connection_class = type(f"Hiredis{base.__name__}", (HiredisPacking, base), {})
