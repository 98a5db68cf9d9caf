"""Random identifiers for the request path (request ids, audit event ids, admission ids).

``uuid.uuid4()`` builds a ``UUID`` object (an int from the bytes, checks, then the text back from the int): three
ids a request, each several times the cost of the random bytes. These give the same text from the same source
(``os.urandom``, 122 random bits, the version 4 and RFC 4122 variant bits set) without the object.
"""

from __future__ import annotations

import os


def uuid4_hex() -> str:
    """``uuid.uuid4().hex``: 32 lowercase hex digits."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    return raw.hex()


def uuid4_text() -> str:
    """``str(uuid.uuid4())``: the canonical 36-character form."""
    h = uuid4_hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
