"""Reading ``multiprocessing.connection`` messages without ever waiting, for an event loop.

``Connection.recv`` blocks until a whole message has arrived; an event loop may only take what is already there. A
``FrameReader`` reads the bytes available on its own duplicate of a connection's descriptor and returns each
message whose frame is complete: the same wire format as ``Connection.send`` (a 4-byte big-endian length, or -1 and
an 8-byte length for payloads over 2 GiB, then the pickle) and the same unpickler as ``Connection.recv``.

A pipe's read end is switched to non-blocking (only its reader uses it; the writer holds another open file). A
socket, whose one open file also carries the sends, is read with ``MSG_DONTWAIT``, so reading needs no switch of its
own (the sends are non-blocking anyway: ``engine.core.frame_writer``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import stat
import struct
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

READ_BYTES = 64 * 1024  # one read's most; below malloc's mmap threshold, so a small message costs no mmap
PIPE_BYTES = 1024 * 1024  # a pipe's capacity: room for the writer while the reader's loop is busy elsewhere
_LENGTH = struct.Struct("!i")
_LONG_LENGTH = struct.Struct("!Q")


class FrameReader:
    def __init__(self, conn: Connection) -> None:
        self.fileno = os.dup(conn.fileno())  # ours to register with a loop and to close, whatever happens to conn
        self.at_eof = False  # the writer closed its end (or the connection broke): nothing more will come
        self._pending = bytearray()  # the start of a message not yet complete
        self._wanted = 0  # bytes _pending must hold before a frame can complete (0: not known yet)
        self._socket: socket.socket | None = None
        if stat.S_ISSOCK(os.fstat(self.fileno).st_mode):
            self._socket = socket.socket(fileno=self.fileno)
        else:
            os.set_blocking(self.fileno, False)
            with contextlib.suppress(OSError):  # a bigger pipe where the system allows it; the default works too
                fcntl.fcntl(self.fileno, fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    def read(self, *, until_empty: bool = False) -> list[Any]:
        """The messages completed by the bytes available now: one read (an event loop's reader is called again
        while more is there), or every byte there is with ``until_empty``. Sets ``at_eof`` at the end of the
        stream, after returning every whole message before it; a message the writer cut short is dropped."""
        messages: list[Any] = []
        while not self.at_eof:
            chunk = self._read_chunk()
            if chunk is None:
                break
            if not chunk:
                self.at_eof = True
                break
            self._take(chunk, messages)
            if not until_empty:
                break
        return messages

    def close(self) -> None:
        if self.fileno < 0:
            return
        fd, self.fileno = self.fileno, -1
        if self._socket is not None:
            self._socket.close()
        else:
            os.close(fd)

    def _read_chunk(self) -> bytes | None:
        """Up to READ_BYTES; None when nothing is there; b"" at the end of the stream."""
        try:
            if self._socket is not None:
                return self._socket.recv(READ_BYTES, socket.MSG_DONTWAIT)
            return os.read(self.fileno, READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return None
        except (ConnectionError, OSError):  # reset by a dying peer: the end, as EOF is
            return b""

    def _take(self, chunk: bytes, messages: list[Any]) -> None:
        if self._pending:
            self._pending += chunk
            if len(self._pending) < self._wanted:
                return  # a long message still arriving: no copy, no parse until it is whole
            data: bytes | bytearray = self._pending
        else:
            data = chunk
        end = self._split(data, messages)
        # the unfinished tail (if any) becomes the next read's start
        self._pending = bytearray(data[end:]) if end < len(data) else bytearray()

    def _split(self, data: bytes | bytearray, messages: list[Any]) -> int:
        """Unpickle each whole frame of ``data`` into ``messages``; the offset of the first incomplete one."""
        with memoryview(data) as view:
            position, size = 0, len(data)
            while True:
                header = _LENGTH.size
                if size - position < header:
                    self._wanted = 0
                    return position
                (length,) = _LENGTH.unpack_from(view, position)
                if length == -1:
                    header += _LONG_LENGTH.size
                    if size - position < header:
                        self._wanted = 0
                        return position
                    (length,) = _LONG_LENGTH.unpack_from(view, position + _LENGTH.size)
                start = position + header
                if size - start < length:
                    self._wanted = header + length
                    return position
                messages.append(ForkingPickler.loads(view[start:start + length]))
                position = start + length
