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


def test_ids_drawn_on_many_threads_and_across_a_fork_are_never_reused() -> None:
    import os
    import threading

    per_thread: list[list[str]] = [[] for _ in range(8)]

    def draw(into: list[str]) -> None:
        into.extend(uuid4_hex() for _ in range(3000))  # several draws of random bytes each

    threads = [threading.Thread(target=draw, args=(ids,)) for ids in per_thread]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    drawn = [i for ids in per_thread for i in ids]
    assert len(set(drawn)) == len(drawn) == 8 * 3000

    uuid4_hex()  # the parent holds undrawn bytes: the child must not hand the same ones out
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next ids, then gone
        os.close(read_end)
        os.write(write_end, " ".join(uuid4_hex() for _ in range(50)).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        child = pipe.read().decode().split()
    os.waitpid(pid, 0)
    parent = [uuid4_hex() for _ in range(50)]
    assert len(child) == 50 and not set(child) & set(parent)
