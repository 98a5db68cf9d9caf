"""The engine's heartbeat: a counter its step loop bumps once per turn, and beside it the number of requests waiting
in the engine's queue, both readable by other processes for free.

A supervisor tells a hung engine (stopped, deadlocked, stuck in a kernel) from a busy one by watching this counter:
while the engine has work, every turn of its loop (a step, a batch of messages, a poll of compiling grammars) bumps
it, so a counter that stands still while requests wait means the loop is not turning. Reading it is one load from
shared memory, never a round trip over the engine's pipe (which a hung engine would not answer).

The waiting count is there for admission: every caller of an engine host (each worker of a multi-worker gateway)
must bound what it sends by the engine's queue (``gateway.ratelimit.overload``), but the engine's stats snapshots go to
one reporting caller only (``engine.core.stats_route``: the workers' metrics add up). The loop writes the count each
turn, so every caller reads the same fresh figure, and it is no metric: nothing sums it.

Two backings: ``Heartbeat.shared()`` (``multiprocessing`` shared memory, handed to an engine process at spawn) and
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

_WORDS = 2  # the loop counter, then the waiting count: native-order unsigned 64-bit words
_BEAT, _WAITING = 0, 1
_WORD_SIZE = ctypes.sizeof(ctypes.c_uint64)
_SIZE = _WORDS * _WORD_SIZE


class Heartbeat:
    def __init__(self, words: Any, path: Path | None = None) -> None:
        """``words``: two integers in shared memory, indexable (the counter, the waiting count); ``path``: their file,
        when file-backed."""
        self._words = words
        self.path = path

    @classmethod
    def shared(cls) -> Heartbeat:
        """A counter a spawned engine process inherits (pass the ``Heartbeat`` in the process's arguments)."""
        return cls(mp.get_context("spawn").RawArray(ctypes.c_uint64, _WORDS))

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
        return cls((ctypes.c_uint64 * _WORDS).from_buffer(mapped), path)

    @classmethod
    def at(cls, path: Path) -> Heartbeat:
        """The counter an engine created at ``path``, mapped for reading. Raises ``OSError`` when there is none, or
        when the file is shorter than this release's (a host of an older one, its counter alone)."""
        fd = os.open(path, os.O_RDONLY)
        try:
            if os.fstat(fd).st_size < _SIZE:
                raise OSError(f"{path} holds {os.fstat(fd).st_size} bytes, not a heartbeat of {_SIZE}")
            mapped = mmap.mmap(fd, _SIZE, prot=mmap.PROT_READ)
        finally:
            os.close(fd)
        return cls(_ReadOnlyWords(mapped), path)

    def beat(self) -> None:
        # One writer (the engine's loop thread), so a plain read-modify-write cannot lose a beat.
        self._words[_BEAT] = (self._words[_BEAT] + 1) & 0xFFFF_FFFF_FFFF_FFFF

    @property
    def count(self) -> int:
        return int(self._words[_BEAT])

    def set_waiting(self, waiting: int) -> None:
        """The engine's waiting-queue length now (its loop writes it; an aligned word is never read half-written)."""
        if self._words[_WAITING] != waiting:
            self._words[_WAITING] = waiting

    @property
    def waiting(self) -> int:
        return int(self._words[_WAITING])

    def __getstate__(self) -> dict[str, Any]:
        if self.path is not None:
            raise TypeError("a file-backed heartbeat is opened by path (Heartbeat.at), not pickled")
        return {"words": self._words}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._words, self.path = state["words"], None


class _ReadOnlyWords:
    """A read-only mapping's words (``ctypes.from_buffer`` needs a writable buffer)."""

    def __init__(self, mapped: mmap.mmap) -> None:
        self._mapped = mapped

    def __getitem__(self, index: int) -> int:
        start = index * _WORD_SIZE
        return int.from_bytes(self._mapped[start:start + _WORD_SIZE], sys.byteorder)  # as ctypes wrote it: native order
