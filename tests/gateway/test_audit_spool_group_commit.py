"""The audit spool's group commit: concurrent appends share an fsync, every acknowledged line is in the file, and a
failed sync acknowledges none of the lines it was to cover."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

import pytest

from gateway.audit import spool as spool_module
from gateway.audit.spool import Spool


def test_appends_waiting_on_one_sync_share_the_next(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    spool.append(b'{"first": 0}\n')
    assert spool.syncs == 1
    lines = [f'{{"n": {i}}}\n'.encode() for i in range(24)]
    errors: list[BaseException] = []

    def append(line: bytes) -> None:
        try:
            spool.append(line)
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    # A sync in flight (the lock held here) while 24 requests write their lines: the next sync covers all of them.
    with spool._sync_lock:
        threads = [threading.Thread(target=append, args=(line,)) for line in lines]
        for thread in threads:
            thread.start()
        while spool._written_seq < 1 + len(lines):
            threading.Event().wait(0.001)
    for thread in threads:
        thread.join()
    assert not errors
    assert spool.syncs == 2  # one for all 24, not 24
    stored, _ = spool.read_pending(100)
    assert stored[0] == b'{"first": 0}\n' and sorted(stored[1:]) == sorted(lines)
    spool.close(remove=True)


def test_a_failed_sync_acknowledges_no_line_it_covered_and_cuts_them_off(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    spool = Spool(tmp_path)
    spool.append(b'{"kept": 1}\n')
    real_fdatasync = os.fdatasync

    def failing_fdatasync(fd: int) -> None:  # a device error (EIO): what no real disk here can be made to do on cue
        raise OSError(errno.EIO, "injected I/O error")

    monkeypatch.setattr(spool_module.os, "fdatasync", failing_fdatasync)
    with pytest.raises(OSError):
        spool.append(b'{"lost": 2}\n')
    assert spool.path.read_bytes() == b'{"kept": 1}\n'  # no line whose sync failed stays in the file
    monkeypatch.setattr(spool_module.os, "fdatasync", real_fdatasync)
    spool.append(b'{"after": 3}\n')  # the spool goes on: the next line is written and synced
    assert spool.read_pending(10)[0] == [b'{"kept": 1}\n', b'{"after": 3}\n']
    spool.close(remove=True)


def test_a_drained_spool_starts_over_and_later_appends_still_sync(tmp_path: Path) -> None:
    spool = Spool(tmp_path)
    for i in range(3):
        spool.append(f'{{"n": {i}}}\n'.encode())
    _lines, offset = spool.read_pending(10)
    spool.commit(offset, rotate_bytes=1)  # all stored: the file is cut to nothing
    assert spool.path.read_bytes() == bytes(spool_module.PREALLOCATE_BYTES) and spool.pending_bytes() == 0
    spool.append(b'{"n": 3}\n')
    assert spool.read_pending(10)[0] == [b'{"n": 3}\n']
    spool.close(remove=True)
