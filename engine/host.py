"""One engine served to several processes over a local socket: an engine host.

A gateway with several HTTP worker processes must not start one engine per worker (N copies of the weights, N
KV-cache budgets, no shared prefix cache, N engines contending for one device). Instead one host process loads the
engine and listens on a Unix socket; each worker connects an ``AsyncEngineClient`` to it
(``connect_engine``), exactly as it would talk to its own engine process. Outputs go back to the worker that asked,
stats to one worker that reads them (the workers' metrics add up: ``engine.core.stats_route``); a worker that leaves
has its requests aborted, and the host keeps serving the others.

The host never blocks sending to a worker: a worker that stops reading (stopped, its loop frozen) only fills its own
socket and then its backlog in the host (``engine.core.engine_core``), while the others are served and the heartbeat
beats on. A worker that leaves more than ``WARDEN_ENGINE_MAX_BACKLOG_MIB`` (default 64 MiB) unread is taken for
gone: the host closes its connection and aborts its requests, so it cannot grow the host's memory without end.

Connections are authenticated (``multiprocessing``'s HMAC challenge with ``authkey``) and the socket file is only
the owner's (0600): the protocol carries pickles, so only the gateway's own processes may speak it. The host stops
on SIGTERM or when the process that started it is gone. Its heartbeat (``engine.core.heartbeat``) is a file beside the
socket, named in the greeting, so each worker can tell a hung host from a busy one.

A detached host (``spawn_detached_host``) is the engine of a one-worker gateway that outlives a crash of that
gateway: it runs in its own session (a SIGKILL of the gateway's process group does not reach it), and instead of
stopping with its parent it stops ``orphan_s`` seconds after its last caller left with none back. The restarted
gateway attaches to it (``attach_detached_host``) instead of loading the model again, once it has verified that the
host is this deployment's and loads the same engine: the socket's peer runs as this user (``SO_PEERCRED``), it
passes the HMAC challenge with the deployment's key, and its greeting carries the fingerprint of this config and of
the model files (``config_fingerprint``). The attaching gateway holds the host by a pidfd, so stopping it can never
signal another process that reused its pid. A detached host holds a lock on a file beside its socket from its start
(taken by its starter, while it loads, before it listens) to its exit, so a gateway restarted during that load waits
for it (``wait_for_detached_host``) instead of starting a second engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import multiprocessing as mp
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection, Listener, answer_challenge, deliver_challenge, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import EngineConfig
from engine.core.client import AsyncEngineClient
from engine.core.heartbeat import Heartbeat
from engine.errors import EngineDeadError
from engine.loader.source import resolve_model
from engine.tokenization.tokenizer import Tokenizer

if TYPE_CHECKING:
    from engine.core.engine_core import NewCallers

log = logging.getLogger(__name__)
STARTUP_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 30.0
PROBE_TIMEOUT_S = 5.0  # a detached host answers the challenge from its acceptor thread: at once unless it is hung
STOP_TIMEOUT_S = 30.0
MAX_BACKLOG_ENV = "WARDEN_ENGINE_MAX_BACKLOG_MIB"  # a worker's unread output beyond which the host hangs up on it
MAX_SOCKET_PATH = 100  # sockaddr_un holds 108 bytes on Linux, fewer elsewhere


def _check_address(address: Path) -> None:
    if len(os.fsencode(address)) > MAX_SOCKET_PATH:
        raise ValueError(f"engine socket path {address} is longer than {MAX_SOCKET_PATH} bytes: use a shorter "
                         "data directory (WARDEN_DATA_DIR)")


def heartbeat_path(address: Path) -> Path:
    """Where the host at ``address`` keeps its heartbeat (``engine.core.heartbeat``): beside its socket."""
    return address.with_name(address.name + ".beat")


def max_backlog_bytes() -> int:
    """How many bytes a worker may leave unread before the host hangs up on it: ``WARDEN_ENGINE_MAX_BACKLOG_MIB``
    (MiB, fractions allowed), else ``DEFAULT_MAX_BACKLOG_BYTES``."""
    from engine.core.engine_core import DEFAULT_MAX_BACKLOG_BYTES

    value = os.environ.get(MAX_BACKLOG_ENV, "").strip()
    if not value:
        return DEFAULT_MAX_BACKLOG_BYTES
    try:
        mib = float(value)
    except ValueError:
        raise ValueError(f"{MAX_BACKLOG_ENV} must be a number of MiB, not {value!r}") from None
    if not mib > 0:
        raise ValueError(f"{MAX_BACKLOG_ENV} must be above 0 MiB, not {value!r}")
    return int(mib * 1024 * 1024)


def _accept_forever(listener: Listener, info: dict[str, Any], incoming: NewCallers) -> None:
    """The acceptor thread: authenticate each caller, greet it, hand its port to the step loop."""
    from engine.core.engine_core import ClientPort

    while True:
        try:
            conn = listener.accept()
        except (mp.AuthenticationError, EOFError, ConnectionError) as exc:
            # A caller without the key, or one that hung up during the challenge: refuse it, keep accepting.
            log.warning("refused an engine connection: %s", exc or type(exc).__name__)
            continue
        except OSError:
            return  # the listener was closed: the host is stopping
        try:
            conn.send(("ready", info))
        except OSError:
            conn.close()
            continue
        incoming.put(ClientPort.over_socket(conn))


class OrphanClock:
    """Whether a detached host keeps serving: while a caller is connected, and until ``orphan_s`` seconds after it
    was last seen with none (or after it started, before the first one came)."""

    def __init__(self, orphan_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.orphan_s = orphan_s
        self._clock = clock
        self._alone_since: float | None = clock()

    def keep_serving(self, has_callers: bool) -> bool:
        if has_callers:
            self._alone_since = None
            return True
        now = self._clock()
        if self._alone_since is None:
            self._alone_since = now
        return now - self._alone_since < self.orphan_s


def config_fingerprint(config: EngineConfig) -> str:
    """What identifies the engine ``config`` loads: the config and the model files (name, size, modification time),
    so a gateway never attaches to an engine that serves other weights under the same path."""
    source = resolve_model(config.model, config.served_model_name)
    digest = hashlib.sha256(repr(config).encode())
    digest.update(f"\0{source.kind}\0{source.path}\0{source.served_name}\n".encode())
    files = [source.path] if source.path.is_file() else sorted(p for p in source.path.iterdir() if p.is_file())
    for path in files:
        status = path.stat()
        digest.update(f"{path.name}\0{status.st_size}\0{status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def run_engine_host(config: EngineConfig, address: str, authkey: bytes, status: Connection, *,
                    orphan_s: float | None = None) -> None:
    """Entry point of the host process: load the engine, listen, serve until SIGTERM or the parent is gone (a
    detached host, given ``orphan_s``: until it has had no caller for that long)."""
    # The engine (torch, the model) is imported here, in the host process: a gateway that only connects needs none.
    from engine.core.engine_core import EngineCore, NewCallers, engine_info, load_engine
    from engine.core.error_info import ErrorInfo

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent, which stops us in order
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds through the finally blocks below
    logging.basicConfig(level=os.environ.get("WARDEN_ENGINE_LOG", "WARNING"))
    parent = os.getppid()
    try:
        backlog_bytes = max_backlog_bytes()  # a bad setting fails here, before the model loads
    except ValueError as exc:
        status.send(("failed", ErrorInfo.of(exc)))
        return
    engine = load_engine(config, status)
    if engine is None:
        return
    listener: Listener | None = None
    try:
        old_umask = os.umask(0o077)  # the socket file is created 0600
        try:
            listener = Listener(address, family="AF_UNIX", authkey=authkey)
        finally:
            os.umask(old_umask)
        heartbeat = Heartbeat.create(heartbeat_path(Path(address)))
        # started_monotonic: CLOCK_MONOTONIC is one clock for every process on the machine, so a restarted gateway
        # that finds several hosts of its own can tell the one serving longest.
        info = {**engine_info(engine), "heartbeat": str(heartbeat.path), "config": config_fingerprint(config),
                "started_monotonic": time.monotonic()}
        incoming = NewCallers()
        threading.Thread(target=_accept_forever, args=(listener, info, incoming), name="engine-host-accept",
                         daemon=True).start()
        try:
            status.send(("ready", info))
        except OSError:
            if orphan_s is None:
                raise
            # A detached host whose starter died while it loaded serves on: the restarted gateway attaches.
        status.close()
        core = EngineCore(engine, [], incoming=incoming, heartbeat=heartbeat, max_backlog_bytes=backlog_bytes)
        if orphan_s is None:
            core.keep_serving = lambda: os.getppid() == parent
        else:
            orphans = OrphanClock(orphan_s)
            # A caller accepted but not yet taken in by the loop counts: its wake-up byte is waiting.
            core.keep_serving = lambda: orphans.keep_serving(bool(core.ports) or incoming.wakeup.poll(0))
        core.run()
        if orphan_s is not None and not core.ports:
            log.warning("engine host %s: no gateway for %.0f s; exiting", address, orphan_s)
    finally:
        if listener is not None:
            listener.close()  # also removes the socket file
        heartbeat_path(Path(address)).unlink(missing_ok=True)
        engine.shutdown()


@dataclass
class EngineHostProcess:
    """A running host, as its starter holds it."""

    address: Path
    process: Any  # multiprocessing.Process (spawn context)
    info: dict[str, Any]

    def is_alive(self) -> bool:
        return self.process.is_alive()

    def stop(self, timeout: float = 30.0) -> None:
        if self.process.is_alive():
            self.process.terminate()  # SIGTERM: the host shuts its engine down in order
            self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


def _remove_stale_socket(address: Path) -> None:
    """Remove a socket file a killed host left behind; refuse to take over one a live host still listens on (another
    gateway using the same data directory)."""
    if not address.exists():
        return
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(address))
        except OSError:
            address.unlink(missing_ok=True)
            return
    raise EngineDeadError(f"an engine host is already listening at {address}: is another `warden serve` using "
                          "this data directory (WARDEN_DATA_DIR)?")


def start_engine_host(config: EngineConfig, address: Path, authkey: bytes) -> EngineHostProcess:
    """Start a host process and wait (blocking) until its engine is loaded and it listens at ``address``.
    Raises the engine's startup error (``UnknownModelError``, ...) or ``EngineDeadError``."""
    resolve_model(config.model, config.served_model_name)  # fail fast, before starting anything
    _check_address(address)
    _remove_stale_socket(address)
    ctx = mp.get_context("spawn")
    status_recv, status_send = ctx.Pipe(duplex=False)
    process = ctx.Process(target=run_engine_host, args=(config, str(address), authkey, status_send),
                          name="warden-engine-host", daemon=False)
    process.start()
    status_send.close()
    ready = wait([status_recv, process.sentinel], timeout=STARTUP_TIMEOUT_S)
    message: tuple[Any, ...] | None = None
    if status_recv in ready:
        try:
            message = status_recv.recv()
        except EOFError:
            message = None
    host = EngineHostProcess(address, process, message[1] if message and message[0] == "ready" else {})
    if message is None or message[0] != "ready":
        host.stop(5.0)
        if message is not None and message[0] == "failed":
            raise message[1].to_exception()
        raise EngineDeadError("the engine host exited or timed out before it was ready")
    return host


def _connect(address: Path, authkey: bytes) -> tuple[Connection, dict[str, Any]]:
    conn = Client(str(address), family="AF_UNIX", authkey=authkey)
    if not conn.poll(CONNECT_TIMEOUT_S):
        conn.close()
        raise EngineDeadError(f"the engine host at {address} did not greet within {CONNECT_TIMEOUT_S:.0f} s")
    message = conn.recv()
    return conn, message[1]


async def connect_engine(config: EngineConfig, address: Path, authkey: bytes) -> AsyncEngineClient:
    """An ``EngineClient`` talking to the host at ``address``; its ``shutdown`` only disconnects. Raises
    ``EngineDeadError`` when no host answers there."""
    source = resolve_model(config.model, config.served_model_name)
    loop = asyncio.get_running_loop()
    try:
        conn, info = await loop.run_in_executor(None, _connect, address, authkey)
    except (OSError, EOFError, mp.AuthenticationError) as exc:
        raise EngineDeadError(f"no engine host at {address}: {exc}") from exc
    tokenizer = await loop.run_in_executor(None, Tokenizer.from_source, source)
    heartbeat = None
    if info.get("heartbeat"):
        try:
            heartbeat = Heartbeat.at(Path(info["heartbeat"]))
        except OSError:
            log.warning("the engine host at %s keeps no readable heartbeat; it is not watched for hangs", address)
    return AsyncEngineClient(inbox=conn, outbox=conn, tokenizer=tokenizer, info=info, is_core_alive=lambda: True,
                             stop_core=lambda _timeout: None, core_pid=info.get("pid"), heartbeat=heartbeat)


# --- a detached host: the engine of a one-worker gateway, outliving a crash of that gateway -------------------------

class ForeignHostError(EngineDeadError):
    """Something listens at the engine socket that is not this deployment's engine host (another user's process,
    another key), or it does not answer: it is never attached to, signalled or replaced."""


@dataclass
class DetachedHost:
    """A detached host this process started, still loading: ``wait_ready`` until it serves."""

    address: Path
    process: subprocess.Popen[bytes]
    status: Connection

    def wait_ready(self, timeout_s: float = STARTUP_TIMEOUT_S) -> dict[str, Any]:
        """Block until the host listens; returns its greeting's info. Raises its start-up error, or
        ``EngineDeadError`` (the host stopped) when it exits or times out first."""
        message: tuple[Any, ...] | None = None
        try:
            # The host's end closes when it exits, so its death wakes this wait too.
            if self.status.poll(timeout_s):
                message = self.status.recv()
        except (EOFError, OSError):
            message = None
        finally:
            self.status.close()
        if message is not None and message[0] == "ready":
            return message[1]
        self.stop(5.0)
        if message is not None and message[0] == "failed":
            raise message[1].to_exception()
        raise EngineDeadError("the engine host exited or timed out before it was ready")

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        _stop_child(self.process, timeout)


def _stop_child(process: subprocess.Popen[bytes], timeout: float) -> None:
    if process.poll() is None:
        process.terminate()  # SIGTERM: the host shuts its engine down in order
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def spawn_detached_host(config: EngineConfig, address: Path, authkey: bytes, orphan_s: float) -> DetachedHost:
    """Start a detached host for ``config`` at ``address`` and return without waiting for it to load. Raises
    ``UnknownModelError`` for a model that cannot be found, and ``EngineDeadError`` when something listens there
    already (a live host of ours for another config is stopped first by ``attach_detached_host``)."""
    resolve_model(config.model, config.served_model_name)  # fail fast, before starting anything
    _check_address(address)
    _remove_stale_socket(address)
    try:
        claim = _claim(address)
    except BlockingIOError:
        raise EngineDeadError(f"an engine host is already starting at {address}") from None
    parent_end, child_end = mp.Pipe(duplex=True)
    try:
        # Its own session: a signal to the gateway's process group (a terminal's Ctrl-C, a supervisor's SIGKILL of
        # the group) does not reach it. Its arguments travel over the pipe, never on the command line (the key).
        process = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "engine.host", str(child_end.fileno()), str(claim)], stdin=subprocess.DEVNULL,
            pass_fds=(child_end.fileno(), claim), start_new_session=True)
    finally:
        child_end.close()
        os.close(claim)  # the host holds it now
    parent_end.send((config, str(address), authkey, orphan_s))
    return DetachedHost(address, process, parent_end)


def _peer_credentials(conn: Connection) -> tuple[int, int]:
    """The pid and uid of the process at the other end of a Unix socket connection (the kernel's word)."""
    with socket.socket(fileno=os.dup(conn.fileno())) as sock:
        pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                             struct.calcsize("3i")))
    return pid, uid


def _set_receive_timeout(conn: Connection, seconds: float) -> None:
    """A receive timeout on the connection's socket (0: none), so a hung peer fails a read instead of blocking it."""
    with socket.socket(fileno=os.dup(conn.fileno())) as sock:
        whole = int(seconds)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO,
                        struct.pack("ll", whole, int((seconds - whole) * 1_000_000)))


def _lock_path(address: Path) -> Path:
    return address.with_name(address.name + ".lock")


def _claim(address: Path) -> int:
    """A claim on ``address`` for a detached host: taken by its starter and inherited by the host, which holds it
    until it exits (the kernel drops it then, even on SIGKILL), so it is visible from the moment the host is started.
    Raises ``BlockingIOError`` when another live host holds it."""
    fd = os.open(_lock_path(address), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BaseException:
        os.close(fd)
        raise
    return fd


def host_starting(address: Path) -> bool:
    """Whether a live detached host claims ``address`` (loading its model, or serving)."""
    try:
        fd = os.open(_lock_path(address), os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # also drops the shared lock taken when nobody held it
    return False


def wait_for_detached_host(config: EngineConfig, address: Path, authkey: bytes,
                           timeout_s: float = STARTUP_TIMEOUT_S) -> AttachedHost | None:
    """Attach to the detached host that claims ``address`` once it listens (a host still loading, started by a
    gateway that died meanwhile); None when it exits first, loads another config, or ``timeout_s`` passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = attach_detached_host(config, address, authkey)
        if found is not None:
            return found
        if not host_starting(address):
            return None
        time.sleep(0.2)
    return None


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)
    except ProcessLookupError:
        return None


def _exited(pidfd: int) -> bool:
    """Whether the process a pidfd refers to has exited (the pidfd turns readable then)."""
    return bool(select.select([pidfd], [], [], 0)[0])


@dataclass
class AttachedHost:
    """An authenticated connection to a detached host of this deployment, and the host process held by a pidfd."""

    address: Path
    conn: Connection
    info: dict[str, Any]
    pid: int
    pidfd: int
    child: subprocess.Popen[bytes] | None = None  # when this process started it (so it reaps it)

    def is_alive(self) -> bool:
        pidfd = self.pidfd
        if pidfd < 0:
            return False
        try:
            return not _exited(pidfd)
        except (OSError, ValueError):  # released by a stop on another thread meanwhile
            return False

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """SIGTERM the host (it shuts its engine down in order), SIGKILL it if it is still there after ``timeout``;
        then release the pidfd."""
        if self.child is not None:
            _stop_child(self.child, timeout)
        elif self.is_alive():
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self.pidfd, signal.SIGTERM)
            if not select.select([self.pidfd], [], [], timeout)[0]:
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
                select.select([self.pidfd], [], [], 5.0)
        self.release()

    def release(self) -> None:
        """Let go of the pidfd (the host, if alive, serves on); ``is_alive`` is False from then on."""
        pidfd, self.pidfd = self.pidfd, -1
        if pidfd >= 0:
            os.close(pidfd)


def _authenticate(address: Path, authkey: bytes) -> tuple[Connection, dict[str, Any], int]:
    """Connect to ``address`` and check the peer is this user's and holds ``authkey``; its greeting and pid.
    ``ForeignHostError`` when not; ``OSError`` when nothing listens."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(address))
    except OSError:
        sock.close()
        raise
    conn = Connection(sock.detach())
    try:
        pid, uid = _peer_credentials(conn)
        if uid != os.geteuid():
            raise ForeignHostError(f"the engine socket {address} is served by another user's process (uid {uid})")
        _set_receive_timeout(conn, PROBE_TIMEOUT_S)
        try:
            answer_challenge(conn, authkey)
            deliver_challenge(conn, authkey)
            message = conn.recv()
        except mp.AuthenticationError as exc:
            raise ForeignHostError(f"the process serving {address} (pid {pid}) does not hold this deployment's "
                                   "engine key") from exc
        except (OSError, EOFError) as exc:
            raise ForeignHostError(f"the process serving {address} (pid {pid}) did not answer within "
                                   f"{PROBE_TIMEOUT_S:.0f} s: {exc or type(exc).__name__}") from exc
        _set_receive_timeout(conn, 0)
    except BaseException:
        conn.close()
        raise
    return conn, message[1], pid


def attach_detached_host(config: EngineConfig, address: Path, authkey: bytes) -> AttachedHost | None:
    """The live host of this deployment at ``address`` that loads ``config``, connected; None when there is none
    (nothing listens, or a host of ours for another config or model files, which is stopped here). Raises
    ``ForeignHostError`` for a listener that is not ours."""
    if not address.exists():
        return None
    owner = address.stat().st_uid
    if owner != os.geteuid():
        raise ForeignHostError(f"the engine socket {address} belongs to another user (uid {owner})")
    try:
        conn, info, pid = _authenticate(address, authkey)
    except ForeignHostError:
        raise
    except OSError:
        return None  # nothing listens: a stale socket, removed by the next spawn
    pidfd = _pidfd(pid)
    if pidfd is None:
        conn.close()
        return None
    host = AttachedHost(address, conn, info, pid, pidfd)
    if info.get("config") == config_fingerprint(config):
        return host
    log.warning("the engine host at %s (pid %d) loads another config or model files; stopping it", address, pid)
    host.conn.close()
    host.stop()
    return None


def connect_detached_host(config: EngineConfig, address: Path, authkey: bytes,
                          child: subprocess.Popen[bytes] | None = None) -> AttachedHost:
    """Attach to the host at ``address`` that this process started (``child``) or found; ``EngineDeadError`` when it
    is gone or loads another config."""
    host = attach_detached_host(config, address, authkey)
    if host is None:
        raise EngineDeadError(f"no engine host for this config at {address}")
    host.child = child
    return host


async def open_detached_client(config: EngineConfig, host: AttachedHost) -> AsyncEngineClient:
    """The ``EngineClient`` of a detached host this gateway owns: its ``shutdown`` stops the host (an orderly stop
    leaves no engine behind; only a crash does, for the orphan timer or the next gateway)."""
    source = resolve_model(config.model, config.served_model_name)
    loop = asyncio.get_running_loop()
    tokenizer = await loop.run_in_executor(None, Tokenizer.from_source, source)
    heartbeat = None
    if host.info.get("heartbeat"):
        try:
            heartbeat = Heartbeat.at(Path(host.info["heartbeat"]))
        except OSError:
            log.warning("the engine host at %s keeps no readable heartbeat; it is not watched for hangs", host.address)

    # No sentinel: the host's death closes the socket, which ends the client's reader; and the pidfd is released at
    # shutdown while that reader may still be waiting.
    return AsyncEngineClient(inbox=host.conn, outbox=host.conn, tokenizer=tokenizer, info=host.info,
                             is_core_alive=host.is_alive, stop_core=host.stop, core_pid=host.pid, heartbeat=heartbeat)


def _main(status_fd: int, claim_fd: int) -> None:
    """``python -m engine.host FD CLAIM``: a detached host, its arguments read from the pipe at ``FD``; it keeps
    the claim on its socket (``CLAIM``, taken by its starter) open until it exits."""
    status = Connection(status_fd)
    config, address, authkey, orphan_s = status.recv()
    try:
        run_engine_host(config, address, authkey, status, orphan_s=orphan_s)
    finally:
        os.close(claim_fd)


if __name__ == "__main__":
    _main(int(sys.argv[1]), int(sys.argv[2]))
