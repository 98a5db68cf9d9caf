"""One engine served to several processes over a local socket: an engine host.

A gateway with several HTTP worker processes must not start one engine per worker (N copies of the weights, N
KV-cache budgets, no shared prefix cache, N engines contending for one device). Instead one host process loads the
engine and listens on a Unix socket; each worker connects an ``AsyncEngineClient`` to it
(``connect_engine``), exactly as it would talk to its own engine process. Outputs go back to the worker that asked,
stats to every worker; a worker that leaves has its requests aborted, and the host keeps serving the others.

Connections are authenticated (``multiprocessing``'s HMAC challenge with ``authkey``) and the socket file is only
the owner's (0600): the protocol carries pickles, so only the gateway's own processes may speak it. The host stops
on SIGTERM or when the process that started it is gone. Its heartbeat (``engine.heartbeat``) is a file beside the
socket, named in the greeting, so each worker can tell a hung host from a busy one.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing as mp
import os
import signal
import socket
import sys
import threading
from dataclasses import dataclass
from multiprocessing.connection import Client, Connection, Listener, wait
from pathlib import Path
from typing import Any

from engine.client import AsyncEngineClient
from engine.config import EngineConfig
from engine.core import ClientPort, EngineCore, NewCallers, engine_info, load_engine
from engine.errors import EngineDeadError
from engine.heartbeat import Heartbeat
from engine.loader.source import resolve_model
from engine.tokenizer import Tokenizer

log = logging.getLogger(__name__)
STARTUP_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 30.0
MAX_SOCKET_PATH = 100  # sockaddr_un holds 108 bytes on Linux, fewer elsewhere


def _check_address(address: Path) -> None:
    if len(os.fsencode(address)) > MAX_SOCKET_PATH:
        raise ValueError(f"engine socket path {address} is longer than {MAX_SOCKET_PATH} bytes: use a shorter "
                         "data directory (WARDEN_DATA_DIR)")


def heartbeat_path(address: Path) -> Path:
    """Where the host at ``address`` keeps its heartbeat (``engine.heartbeat``): beside its socket."""
    return address.with_name(address.name + ".beat")


def _accept_forever(listener: Listener, info: dict[str, Any], incoming: NewCallers) -> None:
    """The acceptor thread: authenticate each caller, greet it, hand its port to the step loop."""
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
        incoming.put(ClientPort(conn, conn))


def run_engine_host(config: EngineConfig, address: str, authkey: bytes, status: Connection) -> None:
    """Entry point of the host process: load the engine, listen, serve until SIGTERM or the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent, which stops us in order
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # unwinds through the finally blocks below
    logging.basicConfig(level=os.environ.get("WARDEN_ENGINE_LOG", "WARNING"))
    parent = os.getppid()
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
        info = {**engine_info(engine), "heartbeat": str(heartbeat.path)}
        incoming = NewCallers()
        threading.Thread(target=_accept_forever, args=(listener, info, incoming), name="engine-host-accept",
                         daemon=True).start()
        status.send(("ready", info))
        status.close()
        EngineCore(engine, [], incoming=incoming, keep_serving=lambda: os.getppid() == parent,
                   heartbeat=heartbeat).run()
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
