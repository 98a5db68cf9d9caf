"""The engine's heartbeat: a counter its step loop bumps once per turn, readable by other processes for free.

A supervisor tells a hung engine (stopped, deadlocked, stuck in a kernel) from a busy one by watching this counter:
while the engine has work, every turn of its loop (a step, a batch of messages, a poll of compiling grammars) bumps
it, so a counter that stands still while requests wait means the loop is not turning. Reading it is one load from
shared memory, never a round trip over the engine's pipe (which a hung engine would not answer).

Two backings: ``Heartbeat.shared()`` (a ``multiprocessing`` shared value, handed to an engine process at spawn) and
``Heartbeat.at(path)`` (a small memory-mapped file, which unrelated processes open by name: the workers of a
multi-worker gateway read their engine host's this way). A file is always created anew (write, then rename), so a
reader still mapping a dead engine's file never sees it truncated under it.
"""

from __future__ import annotations

import ctypes
import mmap
import multiprocessing as mp
import os
import sys
from pathlib import Path
from typing import Any

_SIZE = ctypes.sizeof(ctypes.c_uint64)


class Heartbeat:
    def __init__(self, counter: Any, path: Path | None = None) -> None:
        """``counter``: anything with an integer ``value`` in shared memory; ``path``: its file, when file-backed."""
        self._counter = counter
        self.path = path

    @classmethod
    def shared(cls) -> Heartbeat:
        """A counter a spawned engine process inherits (pass the ``Heartbeat`` in the process's arguments)."""
        return cls(mp.get_context("spawn").RawValue(ctypes.c_uint64, 0))

    @classmethod
    def create(cls, path: Path) -> Heartbeat:
        """A new file-backed counter at ``path`` (readable by this user only), replacing any file there."""
        temporary = path.with_name(path.name + ".new")
        fd = os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, bytes(_SIZE))
            mapped = mmap.mmap(fd, _SIZE)
        finally:
            os.close(fd)
        os.replace(temporary, path)
        return cls(ctypes.c_uint64.from_buffer(mapped), path)

    @classmethod
    def at(cls, path: Path) -> Heartbeat:
        """The counter an engine created at ``path``, mapped for reading. Raises ``OSError`` when there is none."""
        fd = os.open(path, os.O_RDONLY)
        try:
            mapped = mmap.mmap(fd, _SIZE, prot=mmap.PROT_READ)
        finally:
            os.close(fd)
        return cls(_ReadOnlyCounter(mapped), path)

    def beat(self) -> None:
        # One writer (the engine's loop thread), so a plain read-modify-write cannot lose a beat.
        self._counter.value = (self._counter.value + 1) & 0xFFFF_FFFF_FFFF_FFFF

    @property
    def count(self) -> int:
        return int(self._counter.value)

    def __getstate__(self) -> dict[str, Any]:
        if self.path is not None:
            raise TypeError("a file-backed heartbeat is opened by path (Heartbeat.at), not pickled")
        return {"counter": self._counter}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._counter, self.path = state["counter"], None


class _ReadOnlyCounter:
    """A read-only mapping's counter (``ctypes.from_buffer`` needs a writable buffer)."""

    def __init__(self, mapped: mmap.mmap) -> None:
        self._mapped = mapped

    @property
    def value(self) -> int:
        return int.from_bytes(self._mapped[:_SIZE], sys.byteorder)  # as ctypes wrote it: native order
