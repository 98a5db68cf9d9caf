"""A local append-only spool: the durable half of the audit writer.

Each gateway process appends to its own spool file and holds an exclusive ``flock`` on it while alive.
``append`` returns only after the bytes are synced to the disk, which is what lets the request path promise that an
acknowledged request's audit record survives a crash of the process (or of the database). A spool whose lock can
be taken belongs to a dead process: any live writer adopts it and replays it (records are idempotent by event id).

The file is written ahead with zeros (``PREALLOCATE_BYTES`` at a time, made durable with a full ``fsync``), and lines
overwrite them in place. A sync on the request path is then an ``fdatasync`` of data alone: a growing file's sync
must also commit its new size to the file system's journal (as costly as an ``fsync``). So the file's size is not
where its lines end: the end of its data is the first NUL byte (a spool line is JSON, which never holds a raw NUL),
and whatever follows it was never synced (a sync covers every byte before those it was asked for).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

SPOOL_SUFFIX = ".spool"
PREALLOCATE_BYTES = 1024 * 1024  # zeros written ahead of the lines at a time: ~1,700 records, one fsync
_ZEROS = bytes(PREALLOCATE_BYTES)
JOURNAL_SUFFIX = ".open"


class Spool:
    """Appends are group-committed: each writes its line at once, then waits until an ``fsync`` that began after
    its write has finished. One ``fsync`` covers every line written before it started, so concurrent appends (one
    per request, from worker threads) share a sync instead of queueing for one each: on a disk where a sync takes
    milliseconds, the spool's throughput no longer stops at one record per sync.

    The end of the lines (``_size``) is kept here: this process is the file's only writer (it holds the lock), every
    write lands at that end (what a short one wrote is counted), and each truncation that succeeds sets it. So is the
    end of the zeros written ahead (``_allocated``): the file's size, durable (an ``fsync`` follows each extension)."""

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.path = directory / f"audit-{os.getpid()}-{uuid.uuid4().hex[:12]}{SPOOL_SUFFIX}"
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600)
        fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._size = 0  # the end of the lines, where the next append lands (a new file)
        self._allocated = 0  # the end of the zeros written ahead of them: the file's size
        self._dir_synced = False
        self._append_lock = threading.Lock()  # the file's end: writes, truncations
        self._sync_lock = threading.Lock()  # one fsync at a time; taken before _append_lock, never after
        self._read_offset = 0  # bytes before this offset are in the database
        # Lines are numbered as written. Every line up to _synced_seq is durable; the file's first _synced_size
        # bytes hold them. Lines after _synced_seq up to _lost_seq were cut off by a failed sync (never durable).
        self._written_seq = 0
        self._synced_seq = 0
        self._synced_size = 0
        self._lost_seq = 0
        self.syncs = 0  # syncs done by appends (fewer than appends when they overlap)
        with contextlib.suppress(OSError):  # a full disk: the first append tries again, and fails as it must
            self._preallocate(PREALLOCATE_BYTES)

    def append(self, line: bytes) -> None:
        """Durable once this returns (fdatasync of the data; the directory entry and the file's size are synced as
        they change). Raises ``OSError`` when the line could not be written or synced; the file then holds no part of
        it."""
        assert line.endswith(b"\n")
        with self._append_lock:
            end = written = self._size
            try:
                if end + len(line) > self._allocated:
                    self._preallocate(end + len(line))
                written = end + os.pwrite(self._fd, line, end)  # a write that raises wrote nothing
                if written != end + len(line):  # a short write on a regular file means the disk is full
                    raise OSError(errno.ENOSPC, f"short write to audit spool {self.path.name}")
            except OSError:
                # Never leave a torn line behind: the next append would be glued to it and both would be lost.
                self._size = written
                with contextlib.suppress(OSError):
                    self._cut(end)
                raise
            self._size = written
            self._written_seq += 1
            seq = self._written_seq
        self._sync_through(seq)

    def _sync_through(self, seq: int) -> None:
        with self._sync_lock:
            if seq <= self._synced_seq:
                return  # an fsync that started after this line was written has covered it
            if seq <= self._lost_seq:
                raise OSError(errno.EIO, f"audit spool {self.path.name}: the sync of this line failed")
            with self._append_lock:
                through_seq, through_size = self._written_seq, self._size
            try:
                os.fdatasync(self._fd)  # the file's size is already durable: only the data is to sync
                if not self._dir_synced:
                    _fsync_directory(self.directory)
                    self._dir_synced = True
            except OSError:
                # What the failed sync was to cover may not be on the disk: cut the file back to what is, and fail
                # every line after it (their appends raise, so none is acknowledged), including ones written since.
                # Bytes the drain has already stored stay (they are durable in the database; their appends still
                # fail, and their callers' fallback stores them again, idempotently by event id).
                with self._append_lock:
                    with contextlib.suppress(OSError):
                        self._cut(max(self._synced_size, self._read_offset))
                    self._lost_seq = self._written_seq
                raise
            self._synced_seq, self._synced_size = through_seq, through_size
            self.syncs += 1

    def _preallocate(self, needed: int) -> None:
        """Write zeros from the file's end until it reaches past ``needed``, and make them and the size durable (a
        full ``fsync``: later syncs need not commit a size). Under the append lock, or before the spool is shared."""
        allocated = self._allocated
        while allocated < needed:
            written = os.pwrite(self._fd, _ZEROS, allocated)
            allocated += written
            if written < len(_ZEROS):  # the disk is full (zeros past the durable size are written over next time)
                raise OSError(errno.ENOSPC, f"short write to audit spool {self.path.name}")
        os.fsync(self._fd)
        self._allocated = allocated  # only once durable: a data sync of a line before it then suffices

    def _cut(self, end: int) -> None:
        """Drop every byte from ``end`` on (lines never synced, or a torn one): the file ends there, and is written
        ahead again by the next append that needs the room."""
        os.ftruncate(self._fd, end)
        self._size = self._allocated = end

    def free_bytes(self) -> int:
        """Space left on the spool's file system for this (unprivileged or not) process."""
        stats = os.fstatvfs(self._fd)
        return stats.f_bavail * stats.f_frsize

    def pending_bytes(self) -> int:
        return self._size - self._read_offset

    def read_pending(self, max_lines: int) -> tuple[list[bytes], int]:
        """Complete lines after the committed offset (a line still being written is left for later), and the
        offset just after them, to pass to ``commit`` once they are stored."""
        end = self._size  # lines before it are whole: an append moves it once its line is written
        with open(self.path, "rb") as f:
            f.seek(self._read_offset)
            lines: list[bytes] = []
            offset = self._read_offset
            while len(lines) < max_lines and offset < end:
                line = f.readline(end - offset)  # not past the lines' end: the zeros written ahead follow it
                if not line.endswith(b"\n"):
                    break
                lines.append(line)
                offset += len(line)
        return lines, offset

    def commit(self, offset: int, rotate_bytes: int) -> None:
        """Everything before ``offset`` is in the database. Once everything is, and the file has grown past
        ``rotate_bytes``, start it over, written ahead with zeros again (under the append lock, so no line can slip in
        between)."""
        self._read_offset = offset
        if offset < rotate_bytes:
            return
        with self._sync_lock, self._append_lock:  # no sync in flight may record a size from before the cut
            if self._size == self._read_offset:
                self._cut(0)  # no old line may follow the new ones: the zeros after them must be new
                self._read_offset = 0
                # Every line written so far is in the database: durable, whatever sync is still to come.
                self._synced_seq, self._synced_size = self._written_seq, 0
                with contextlib.suppress(OSError):  # a full disk: the next append tries again, and fails as it must
                    self._preallocate(PREALLOCATE_BYTES)

    def close(self, *, remove: bool) -> None:
        """``remove`` only when everything has been committed; otherwise the file stays for adoption."""
        if remove:
            self.path.unlink(missing_ok=True)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)


class StreamJournal:
    """The provisional records of this process's open streams, beside its spool (same name, ``.open``).

    A stream's first byte leaves before its record can be complete, and a killed process never writes that record.
    So before the first byte the stream's record as it stands (tenant, key, model, prompt) is journalled here,
    under the event id its final record will carry. Whoever adopts the spool of a dead process stores the spool's
    lines first and the journal's after them: a stream that finished keeps its final record (replays are
    idempotent by event id), one that was cut gets its provisional record. A plain ``write`` survives the death of
    the process (the kernel has the bytes); only a crash of the machine could lose it, so no fsync is paid here.
    """

    def __init__(self, spool_path: Path) -> None:
        self.path = spool_path.with_suffix(JOURNAL_SUFFIX)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._lock = threading.Lock()
        self._open: dict[str, bytes] = {}  # event id -> its provisional line, while its stream is open

    def open(self, event_id: str, line: bytes) -> None:
        with self._lock:
            self._open[event_id] = line
            os.write(self._fd, line)

    def close(self, event_id: str) -> None:
        """The stream's final record is spooled: its provisional one is no longer needed. Once no stream is open,
        the journal starts over (it only ever holds what an adopter might need)."""
        with self._lock:
            if self._open.pop(event_id, None) is not None and not self._open:
                os.ftruncate(self._fd, 0)

    @property
    def open_streams(self) -> int:
        return len(self._open)

    def dispose(self, *, remove: bool) -> None:
        if remove:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)


def journal_lines(spool_path: Path) -> list[bytes]:
    """The complete lines of a (dead process's) spool journal; none if it has no journal."""
    try:
        with open(spool_path.with_suffix(JOURNAL_SUFFIX), "rb") as f:
            return [line for line in f if line.endswith(b"\n")]
    except FileNotFoundError:
        return []


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class OrphanSpool:
    """A spool file left by a dead process, locked by us while we replay it."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd = fd

    def lines(self) -> list[bytes]:
        """The complete lines before the first NUL byte: the end of the data (what follows was written ahead with
        zeros, or never synced: a crash of the machine may have kept some blocks past it and lost others)."""
        data = self.path.read_bytes().split(b"\0", 1)[0]
        # A torn last line was never acknowledged to a client (append had not returned): drop it.
        return [line + b"\n" for line in data.split(b"\n")[:-1]]

    def journal(self) -> list[bytes]:
        return journal_lines(self.path)

    def finish(self) -> None:
        self.path.with_suffix(JOURNAL_SUFFIX).unlink(missing_ok=True)
        self.path.unlink(missing_ok=True)
        self.release()

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)


def claim_orphans(directory: Path, own: Path | None) -> Iterator[OrphanSpool]:
    """Spool files whose owner is gone (their lock is free), each locked for the caller."""
    if not directory.is_dir():
        return
    for path in sorted(directory.glob(f"*{SPOOL_SUFFIX}")):
        if own is not None and path == own:
            continue
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            continue  # another adopter finished it first
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)  # a live process owns it
            continue
        if not path.exists():  # adopted and removed between our open and our lock
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            continue
        yield OrphanSpool(path, fd)
