"""A real uvicorn server on a free loopback port, in a background thread, serving HTTPS with the self-signed
development certificate, with the real engine (in-process, started by the app's lifespan)."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import httpx
import openai

from gateway.app import create_app
from gateway.background_server import BackgroundServer, start_background_server
from gateway.core.settings import Settings


@dataclass
class LiveServer:
    base_url: str
    cert: Path
    settings: Settings
    background: BackgroundServer

    @property
    def server(self):  # type: ignore[no-untyped-def]
        return self.background.server

    @property
    def services(self):  # type: ignore[no-untyped-def]
        return self.background.server.config.loaded_app.app.state.services  # type: ignore[union-attr]

    def stop(self) -> None:
        self.background.stop()


def start_live_server(settings: Settings) -> LiveServer:
    background = start_background_server(create_app(settings), settings.data_dir, name="live-uvicorn")
    return LiveServer(base_url=background.base_url, cert=background.cert, settings=settings, background=background)


def client_for(live: LiveServer, tls: ssl.SSLContext, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{live.base_url}/v1", api_key=api_key, max_retries=0, timeout=300,
                         http_client=httpx.Client(verify=tls))
