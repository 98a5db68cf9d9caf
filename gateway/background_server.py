"""Serve an app on uvicorn over HTTPS (the development certificate) from a background thread of this process,
on a free loopback port: what the live tests and the serving benchmarks run against."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from gateway.core.tls import ensure_certificate

STARTUP_TIMEOUT_S = 600.0  # the engine may load the model inside the app's lifespan, on 2 shared CPU cores


_issued_ports: set[int] = set()
_issued_lock = threading.Lock()


def free_port() -> int:
    """A loopback port nothing listens on, never one this process handed out before: a child server binds only after
    its lifespan has loaded the model, so until then its port looks free to the kernel, and a second server given the
    same port would answer the first one's clients (with the wrong keys) until it failed to bind."""
    with _issued_lock:
        while True:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = probe.getsockname()[1]
            if port not in _issued_ports:
                _issued_ports.add(port)
                return port


@dataclass
class BackgroundServer:
    base_url: str  # https://127.0.0.1:PORT
    cert: Path
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)


def start_background_server(app: FastAPI, data_dir: Path, *, name: str = "background-uvicorn",
                            on_failure: Callable[[], None] | None = None) -> BackgroundServer:
    """Start serving and wait until uvicorn reports started (the app's lifespan has run). On failure
    ``on_failure`` runs (e.g. to shut down an engine started outside the app) and ``RuntimeError`` is raised."""
    cert, key = ensure_certificate(data_dir, None, None)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ssl_certfile=str(cert),
                            ssl_keyfile=str(key), lifespan="on", timeout_graceful_shutdown=10)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        exited, late = not thread.is_alive(), time.monotonic() > deadline
        if exited or late:
            if late:
                server.should_exit = True
            if on_failure is not None:
                on_failure()
            raise RuntimeError("the server exited during startup (see the log above)" if exited
                               else "the server did not start in time")
        time.sleep(0.1)
    return BackgroundServer(base_url=f"https://127.0.0.1:{port}", cert=cert, server=server, thread=thread)
