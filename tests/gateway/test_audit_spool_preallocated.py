"""The audit spool writes its file ahead with zeros, so the sync each request waits on is a data sync alone: the
file's size is durable before any line lands in it, and readers find where the lines end (the first NUL byte), not
at the file's size."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gateway.audit import spool as spool_module
from gateway.audit.spool import Spool, claim_orphans


def _line(i: int, width: int = 100) -> bytes:
    return f'{{"n": {i}, "pad": "{"x" * width}"}}\n'.encode()


def test_an_append_syncs_the_data_of_a_file_whose_size_is_already_durable(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    spool = Spool(tmp_path)
    size = os.path.getsize(spool.path)
    assert size == spool_module.PREALLOCATE_BYTES
    calls: list[tuple[str, int]] = []
    real_fsync, real_fdatasync = os.fsync, os.fdatasync

    def fsync(fd: int) -> None:
        calls.append(("fsync", fd))
        real_fsync(fd)

    def fdatasync(fd: int) -> None:
        calls.append(("fdatasync", fd))
        real_fdatasync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "fdatasync", fdatasync)
    for i in range(5):
        spool.append(_line(i))
    syncs_of_the_spool = [name for name, fd in calls if fd == spool._fd]
    assert syncs_of_the_spool == ["fdatasync"] * 5  # no size to commit: the file did not grow
    assert os.path.getsize(spool.path) == size
    assert spool.read_pending(10)[0] == [_line(i) for i in range(5)]
    spool.close(remove=True)


def test_lines_past_the_zeros_written_ahead_extend_them_and_read_back(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_module, "PREALLOCATE_BYTES", 512)
    monkeypatch.setattr(spool_module, "_ZEROS", bytes(512))
    spool = Spool(tmp_path)
    syncs: list[tuple[str, int]] = []  # each sync of the spool, with the file's size then
    real_fsync, real_fdatasync = os.fsync, os.fdatasync

    def fsync(fd: int) -> None:
        if fd == spool._fd:
            syncs.append(("fsync", os.fstat(fd).st_size))
        real_fsync(fd)

    def fdatasync(fd: int) -> None:
        if fd == spool._fd:
            syncs.append(("fdatasync", os.fstat(fd).st_size))
        real_fdatasync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "fdatasync", fdatasync)
    lines = [_line(i) for i in range(12)]  # ~120 bytes each: the file is extended twice
    for line in lines:
        spool.append(line)
    # Every data sync relies on a size a full sync made durable first.
    durable_size = 512
    for name, size in syncs:
        if name == "fsync":
            durable_size = size
        assert size == durable_size
    assert [name for name, _size in syncs].count("fsync") == 2
    data = spool.path.read_bytes()
    assert len(data) % 512 == 0 and data.startswith(b"".join(lines)) and not data[len(b"".join(lines)):].strip(b"\0")
    assert spool.read_pending(100)[0] == lines
    spool.close(remove=False)  # left for an adopter, as a killed process leaves it
    (orphan,) = claim_orphans(tmp_path, None)
    assert orphan.lines() == lines
    orphan.finish()


def test_an_orphan_is_read_up_to_its_first_nul_byte(tmp_path: Path) -> None:
    """Past the last synced line a crash of the machine may have kept some later blocks and lost others (zeros in
    between): nothing after the first NUL was acknowledged, and a line glued across the gap is no record."""
    path = tmp_path / f"audit-1-dead{spool_module.SPOOL_SUFFIX}"
    path.write_bytes(_line(0) + _line(1) + b'{"n": 2, "pa' + bytes(300) + b'd": "late"}\n' + _line(3) + bytes(200))
    (orphan,) = claim_orphans(tmp_path, None)
    assert orphan.lines() == [_line(0), _line(1)]
    orphan.release()


def test_a_rotated_spool_holds_only_lines_written_since(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spool_module, "PREALLOCATE_BYTES", 512)
    monkeypatch.setattr(spool_module, "_ZEROS", bytes(512))
    spool = Spool(tmp_path)
    for i in range(8):
        spool.append(_line(i, width=200))
    _lines, offset = spool.read_pending(100)
    spool.commit(offset, rotate_bytes=1)  # all stored: the file starts over
    spool.append(b'{"n": "new"}\n')  # shorter than the old lines it lands on: none of their bytes may follow it
    assert spool.read_pending(100)[0] == [b'{"n": "new"}\n']
    spool.close(remove=False)
    (orphan,) = claim_orphans(tmp_path, None)
    assert orphan.lines() == [b'{"n": "new"}\n']
    orphan.finish()
