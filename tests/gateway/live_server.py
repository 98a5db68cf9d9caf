"""A real uvicorn server on a free loopback port, in a background thread, serving HTTPS with the self-signed
development certificate, with the real engine (in-process, started by the app's lifespan)."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import openai
import uvicorn

from gateway.app import create_app
from gateway.core.settings import Settings
from gateway.core.tls import ensure_certificate

STARTUP_TIMEOUT_S = 600.0  # the engine loads the model on 2 shared CPU cores


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LiveServer:
    base_url: str
    cert: Path
    settings: Settings
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def services(self):  # type: ignore[no-untyped-def]
        return self.server.config.loaded_app.app.state.services  # type: ignore[union-attr]

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)


def start_live_server(settings: Settings) -> LiveServer:
    cert, key = ensure_certificate(settings.data_dir, None, None)
    port = free_port()
    app = create_app(settings)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ssl_certfile=str(cert),
                            ssl_keyfile=str(key), lifespan="on", timeout_graceful_shutdown=10)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="live-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the live server exited during startup (see the log above)")
        if time.monotonic() > deadline:
            raise RuntimeError("the live server did not start in time")
        time.sleep(0.1)
    return LiveServer(base_url=f"https://127.0.0.1:{port}", cert=cert, settings=settings, server=server,
                      thread=thread)


def client_for(live: LiveServer, tls: ssl.SSLContext, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{live.base_url}/v1", api_key=api_key, max_retries=0, timeout=300,
                         http_client=httpx.Client(verify=tls))
