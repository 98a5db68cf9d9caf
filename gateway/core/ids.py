"""Random identifiers for the request path (request ids, audit event ids, admission ids).

``uuid.uuid4()`` builds a ``UUID`` object (an int from the bytes, checks, then the text back from the int): three
ids a request, each several times the cost of the random bytes. These give the same text from the same source
(``os.urandom``, 122 random bits, the version 4 and RFC 4122 variant bits set) without the object.

The random bytes are drawn from ``os.urandom`` a few kilobytes at a time and handed out 16 at a time: one
``getrandom`` system call per 256 ids instead of one per id. Each 16 bytes is handed out once (``deque.popleft`` is
atomic, so threads never share one), and a forked child drops what it inherited, so a parent and its child never
hand out the same bytes.
"""

from __future__ import annotations

import os
from collections import deque

_ID_BYTES = 16
_DRAW_BYTES = 4096  # one system call's worth: 256 ids
_drawn: deque[bytes] = deque()  # random 16-byte pieces not yet handed out


def _random_id_bytes() -> bytes:
    try:
        return _drawn.popleft()
    except IndexError:
        block = os.urandom(_DRAW_BYTES)
        _drawn.extend(block[i:i + _ID_BYTES] for i in range(_ID_BYTES, _DRAW_BYTES, _ID_BYTES))
        return block[:_ID_BYTES]


os.register_at_fork(after_in_child=_drawn.clear)


def uuid4_hex() -> str:
    """``uuid.uuid4().hex``: 32 lowercase hex digits."""
    raw = bytearray(_random_id_bytes())
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    return raw.hex()


def uuid4_text() -> str:
    """``str(uuid.uuid4())``: the canonical 36-character form."""
    h = uuid4_hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
