"""Sending ``multiprocessing.connection`` messages without ever blocking, for an event loop.

A peer that is slow to read (busy, starved of CPU, stopped for a moment) fills the pipe or socket between us. That is
backpressure, not death: a blocking send would stall the caller's whole event loop (and deadlock it with a peer
that is itself blocked sending to that loop, which no longer reads), and a non-blocking one that fails on a full
buffer would take a slow engine for a dead one. A ``FrameWriter`` writes what the descriptor takes now and keeps
the rest, in order, for ``flush``, which its owner calls once the descriptor is writable again. Only a write that
fails for another reason (the peer closed: ``EPIPE``, ``ECONNRESET``) is the end of the connection.

The wire format is ``Connection.send``'s (a 4-byte big-endian length, or -1 and an 8-byte length for payloads over
2 GiB, then the pickle), so ``Connection.recv`` and ``engine.core.frame_reader`` read it. The descriptor is a
duplicate switched to non-blocking; the switch is the open file's, shared with the connection it came from, which
must not send itself any more (an event loop's ``add_reader`` on a socket switches it anyway: uvloop's does).
"""

from __future__ import annotations

import io
import os
import struct
import threading
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

_LENGTH = struct.Struct("!i")
_LONG_LENGTH = struct.Struct("!Q")
_LONGEST_SHORT = 0x7FFFFFFF


def frame(message: Any) -> bytes:
    """``message`` pickled and framed as ``Connection.send`` frames it."""
    return _framed(ForkingPickler.dumps(message))


def _framed(payload: bytes | memoryview) -> bytes:
    size = len(payload)
    if size > _LONGEST_SHORT:
        return _LENGTH.pack(-1) + _LONG_LENGTH.pack(size) + payload
    return _LENGTH.pack(size) + payload


class _Pickler:
    """``ForkingPickler.dumps`` without its set-up per message: ``ForkingPickler.dumps`` makes a pickler (which
    copies the reducers' dispatch table) and a buffer for every message, which costs more than pickling a small
    request. One pickler and its buffer, reset for each message (its memo too: no message refers to another's
    objects); the caller serialises the calls."""

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self._pickler = ForkingPickler(self._buffer)

    def dumps(self, message: Any) -> bytes:
        buffer = self._buffer
        buffer.seek(0)
        buffer.truncate()  # also gives back the room a large message took
        self._pickler.clear_memo()
        self._pickler.dump(message)
        return buffer.getvalue()


class FrameWriter:
    def __init__(self, conn: Connection) -> None:
        self.fileno = os.dup(conn.fileno())  # ours to register with a loop and to close
        os.set_blocking(self.fileno, False)
        self._pending = bytearray()  # framed bytes not yet written, in order
        self._lock = threading.Lock()  # senders on several threads; each frame's bytes stay together
        self._pickler = _Pickler()  # used under the lock

    @property
    def pending(self) -> int:
        """Bytes waiting for the peer to make room."""
        return len(self._pending)

    def send(self, message: Any) -> bool:
        """Write ``message`` now as far as there is room; True when it (and all before it) is written, False when
        bytes wait for ``flush``. Raises ``OSError`` when the connection is broken (or ``ValueError``: closed)."""
        with self._lock:
            data = _framed(self._pickler.dumps(message))
            if self._pending:
                self._pending += data
                return self._write_pending()
            written = self._write(data)
            if written == len(data):
                return True
            self._pending += memoryview(data)[written:]
            return False

    def flush(self) -> bool:
        """Write what waits, as far as there is room; True when nothing waits any more. Raises as ``send``."""
        with self._lock:
            return self._write_pending()

    def close(self) -> None:
        """Stop: what still waits is dropped (the peer is gone, or is being let go)."""
        with self._lock:
            self._pending.clear()
            if self.fileno >= 0:
                fd, self.fileno = self.fileno, -1
                os.close(fd)

    def _write_pending(self) -> bool:
        while self._pending:
            written = self._write(self._pending)
            if not written:
                return False
            del self._pending[:written]
        return True

    def _write(self, data: bytes | bytearray) -> int:
        """Bytes of ``data`` written now (0: no room)."""
        if self.fileno < 0:
            raise ValueError("the connection is closed")
        try:
            return os.write(self.fileno, data)
        except (BlockingIOError, InterruptedError):
            return 0
