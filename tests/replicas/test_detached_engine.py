"""The one-worker gateway's engine as a detached host: a SIGKILL of the gateway (its whole process group) leaves the
engine serving, the restarted gateway attaches to that same engine instead of loading another (no duplicate left
running), an orderly stop stops it, and one abandoned by a crash exits by itself. The standby is a detached host too:
after it was promoted, a crash of the gateway leaves the promoted engine and the next standby serving, and the
restarted gateway serves from the promoted one and adopts the other as its standby. Only this deployment's host is
attached to: another key is refused, another config's host is replaced. Real processes throughout."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.errors import EngineDeadError
from engine.host import ForeignHostError, OrphanClock, attach_detached_host, spawn_detached_host
from tests.replicas.detached_gateway import engine_config

pytestmark = pytest.mark.timeout(300)
REPO = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_gone(pid: int, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.2)
    return False


def _engine_hosts(mark: str) -> list[int]:
    """The live detached engine hosts this test started (their environment carries its mark)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"engine.host" in cmdline and f"WARDEN_TEST_MARK={mark}".encode() in environ and _alive(int(entry.name)):
            found.append(int(entry.name))
    return found


class Gateway:
    """One run of tests/replicas/detached_gateway.py, in its own process group as `warden serve` would be."""

    def __init__(self, model_dir: Path, socket: Path, authkey: bytes, orphan_s: float, mark: str, *,
                 standby: bool = False) -> None:
        env = {**os.environ, "WARDEN_TEST_MARK": mark, "PYTHONPATH": str(REPO)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.replicas.detached_gateway", str(model_dir), str(socket), str(orphan_s),
             *(["standby"] if standby else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=REPO, start_new_session=True)
        assert self.process.stdin is not None
        self.process.stdin.write(authkey.hex() + "\n")
        self.process.stdin.flush()
        self.served = self._read()

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"the gateway exited with {self.process.wait()} before it served"
        return dict(json.loads(line))

    def serve(self) -> dict[str, Any]:
        """One more greedy request: what served it, and the standby then."""
        assert self.process.stdin is not None
        self.process.stdin.write("serve\n")
        self.process.stdin.flush()
        return self._read()

    @property
    def host_pid(self) -> int:
        return int(self.served["host_pid"])

    def crash(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("stop\n")
        self.process.stdin.flush()
        said = self.process.stdout.read()
        assert self.process.wait(60) == 0
        return said


@pytest.fixture
def mark() -> Iterator[str]:
    value = uuid.uuid4().hex
    yield value
    for pid in _engine_hosts(value):  # never leave one behind, whatever failed
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def socket_path() -> Iterator[Path]:
    # Short: a Unix socket's path must fit in 108 bytes, and pytest's tmp_path may not.
    directory = Path(f"/tmp/wdt-{uuid.uuid4().hex[:8]}")
    directory.mkdir(mode=0o700)
    yield directory / "engine.sock"
    for child in directory.iterdir():
        child.unlink()
    directory.rmdir()


def test_orphan_clock_counts_from_the_last_caller() -> None:
    now = [0.0]
    clock = OrphanClock(10.0, clock=lambda: now[0])
    now[0] = 9.0
    assert clock.keep_serving(False)  # never had a caller: counted from the start
    now[0] = 10.0
    assert not clock.keep_serving(False)
    assert clock.keep_serving(True)  # one came back in time
    now[0] = 50.0
    assert clock.keep_serving(True)
    assert clock.keep_serving(False)  # it left now: a fresh 10 s
    now[0] = 59.9
    assert clock.keep_serving(False)
    now[0] = 60.0
    assert not clock.keep_serving(False)


@pytest.mark.slow  # three gateway processes and two engine loads on a shared CPU: ~30-60 s
def test_a_killed_gateway_leaves_its_engine_to_the_next_one(tiny_model_dir: Path, socket_path: Path,
                                                           mark: str) -> None:
    authkey = secrets.token_bytes(32)
    first = Gateway(tiny_model_dir, socket_path, authkey, 30.0, mark)
    host = first.host_pid
    assert os.getsid(host) == host != os.getsid(first.process.pid)  # a session of its own
    first.crash()  # SIGKILL of the gateway's whole process group
    time.sleep(1.0)
    assert _alive(host), "the engine died with the gateway"

    second = Gateway(tiny_model_dir, socket_path, authkey, 30.0, mark)
    assert second.host_pid == host  # attached to the live engine, no second model load
    assert not second.served["torch_loaded"]
    assert second.served["tokens"] == first.served["tokens"]  # the same engine and config: the same greedy tokens
    assert _engine_hosts(mark) == [host]  # no duplicate engine
    assert "stopped" in second.stop()
    assert _wait_gone(host, 30.0), "an orderly stop left the engine running"
    assert _engine_hosts(mark) == []

    abandoned = Gateway(tiny_model_dir, socket_path, authkey, 2.0, mark)
    orphan = abandoned.host_pid
    assert orphan != host
    abandoned.crash()
    assert _alive(orphan)
    assert _wait_gone(orphan, 20.0), "an engine with no gateway did not exit by itself"
    assert not socket_path.exists()  # it removed its socket on the way out


@pytest.mark.slow  # two gateway processes and three engine loads on a shared CPU: ~30-60 s
def test_a_promoted_standby_outlives_the_next_gateway_crash(tiny_model_dir: Path, socket_path: Path,
                                                           mark: str) -> None:
    authkey = secrets.token_bytes(32)
    first = Gateway(tiny_model_dir, socket_path, authkey, 30.0, mark, standby=True)
    serving, standby = first.host_pid, first.served["standby_pid"]
    assert standby is not None and standby != serving
    assert os.getsid(standby) == standby != os.getsid(first.process.pid)  # the standby is detached too

    os.kill(serving, signal.SIGKILL)  # the serving engine dies: the standby takes its place
    promoted = first.serve()
    assert promoted["host_pid"] == standby
    assert promoted["tokens"] == first.served["tokens"]
    fresh = promoted["standby_pid"]  # the next standby, up
    assert fresh is not None and fresh not in (serving, standby)

    first.crash()  # SIGKILL of the gateway's whole process group
    time.sleep(1.0)
    assert _alive(standby) and _alive(fresh), "an engine died with the gateway"
    second = Gateway(tiny_model_dir, socket_path, authkey, 30.0, mark, standby=True)
    assert second.host_pid == standby  # serving from the promoted engine, no model load
    assert second.served["standby_pid"] == fresh  # and the standby left running is its standby again
    assert not second.served["torch_loaded"]
    assert second.served["tokens"] == first.served["tokens"]
    assert sorted(_engine_hosts(mark)) == sorted([standby, fresh])  # no duplicate engine
    assert "stopped" in second.stop()
    assert _wait_gone(standby, 30.0) and _wait_gone(fresh, 30.0), "an orderly stop left an engine running"
    assert _engine_hosts(mark) == []


@pytest.mark.slow  # one engine host loads: ~10-20 s on a shared CPU
def test_only_this_deployments_host_for_this_config_is_attached(tiny_model_dir: Path, socket_path: Path) -> None:
    config = engine_config(str(tiny_model_dir))
    authkey = secrets.token_bytes(32)
    spawned = spawn_detached_host(config, socket_path, authkey, 60.0)
    try:
        info = spawned.wait_ready()
        with pytest.raises(ForeignHostError, match="key"):
            attach_detached_host(config, socket_path, secrets.token_bytes(32))
        with pytest.raises(EngineDeadError, match="already listening"):
            spawn_detached_host(config, socket_path, authkey, 60.0)  # never two engines at one socket
        found = attach_detached_host(config, socket_path, authkey)
        assert found is not None and found.pid == info["pid"] == spawned.process.pid
        found.conn.close()
        found.release()
        assert spawned.process.poll() is None  # letting go of it leaves it serving

        other = engine_config(str(tiny_model_dir))
        other.max_num_seqs += 1
        assert attach_detached_host(other, socket_path, authkey) is None  # another config: replaced, not adopted
        assert spawned.process.wait(30) == 0  # stopped in order (SIGTERM)
    finally:
        spawned.stop(5.0)


@pytest.mark.slow  # one engine host loads: ~10-20 s on a shared CPU
async def test_a_gateway_restarted_while_its_engine_loads_waits_for_that_engine(tiny_model_dir: Path,
                                                                               socket_path: Path) -> None:
    from gateway.replicas.launch import DetachedEngine, _open_early, prepare_host

    config = engine_config(str(tiny_model_dir))
    place = DetachedEngine(socket_path, secrets.token_bytes(32), 60.0)
    loading = spawn_detached_host(config, socket_path, place.authkey, 60.0)  # its gateway dies before it is ready
    try:
        early = prepare_host(config, place)
        assert early.loading and early.spawned is None  # no second engine started
        client = await _open_early(early)
        try:
            assert client.core_pid == loading.process.pid  # type: ignore[attr-defined]
        finally:
            await client.shutdown()  # this gateway owns it now: an orderly stop stops it
        assert loading.process.wait(30) == 0
    finally:
        loading.stop(5.0)
