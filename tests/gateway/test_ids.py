"""The request path's random ids have uuid4's form: the canonical text (or its hex), version 4, RFC 4122 variant, and
no two alike."""

from __future__ import annotations

import uuid

from gateway.core.ids import uuid4_hex, uuid4_text


def test_ids_are_version_4_uuids_in_the_canonical_forms() -> None:
    seen: set[str] = set()
    for _ in range(2000):
        text = uuid4_text()
        parsed = uuid.UUID(text)
        assert str(parsed) == text and len(text) == 36
        assert parsed.version == 4 and parsed.variant == uuid.RFC_4122
        hex_id = uuid4_hex()
        as_hex = uuid.UUID(hex=hex_id)
        assert as_hex.hex == hex_id and as_hex.version == 4 and as_hex.variant == uuid.RFC_4122
        seen.update((text, hex_id))
    assert len(seen) == 4000


def test_every_other_bit_varies() -> None:
    fixed = (0xF << 76) | (0x3 << 62)  # the version nibble and the variant's two bits
    ones, zeros = 0, 0
    for _ in range(500):
        value = uuid.UUID(uuid4_text()).int
        ones |= value
        zeros |= ~value
    mask = (1 << 128) - 1
    assert ones & ~fixed & mask == ~fixed & mask
    assert zeros & ~fixed & mask == ~fixed & mask
