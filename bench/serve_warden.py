"""Start a whole Warden for a benchmark: migrated SQLite database, the engine in its own process with the given
``EngineConfig``, the gateway on uvicorn over HTTPS (the development certificate) in a background thread, and a
tenant with an API key issued through the gateway's own services."""

from __future__ import annotations

import asyncio
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import uvicorn

from engine.config import EngineConfig
from engine.launch import start_engine
from engine.protocol import EngineClient
from gateway.app import create_app
from gateway.core.db import Database
from gateway.core.migrate import upgrade_database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.core.tls import ensure_certificate
from gateway.keys.service import issue_key
from gateway.tenants.service import create_tenant

STARTUP_TIMEOUT_S = 600.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RunningWarden:
    base_url: str  # https://127.0.0.1:PORT/v1
    cert: Path
    api_key: str
    model: str
    engine: EngineClient
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(60)
        asyncio.run(self.engine.shutdown())


def start_warden(workdir: Path, engine_config: EngineConfig, *, guardrails: bool) -> RunningWarden:
    workdir.mkdir(parents=True, exist_ok=True)
    settings = Settings(database_url=f"sqlite:///{workdir / 'warden.db'}", data_dir=workdir,
                        server_secret=secrets.token_urlsafe(32), redis_url=None, guardrails=guardrails,
                        log_format="none", audit_checkpoint_interval_s=0.0)
    upgrade_database(settings.database_url)
    db = Database(settings.database_url)
    try:
        with db.transaction() as session:
            tenant = create_tenant(f"bench-{secrets.token_hex(4)}", session=session)
            issued = issue_key(tenant, pepper=load_server_secrets(settings).key_pepper, session=session,
                               label="bench.serve")
    finally:
        db.dispose()
    engine = asyncio.run(start_engine(engine_config))
    cert, key = ensure_certificate(settings.data_dir, None, None)
    port = _free_port()
    app = create_app(settings, engine=engine)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ssl_certfile=str(cert),
                            ssl_keyfile=str(key), lifespan="on", timeout_graceful_shutdown=10)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="bench-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            asyncio.run(engine.shutdown())
            raise RuntimeError("the gateway did not start")
        time.sleep(0.1)
    return RunningWarden(base_url=f"https://127.0.0.1:{port}/v1", cert=cert, api_key=issued.api_key,
                         model=engine.model_name, engine=engine, server=server, thread=thread)
