"""Start a whole Warden for a benchmark: migrated SQLite database, the engine in its own process with the given
``EngineConfig``, the gateway on uvicorn over HTTPS (the development certificate) in a background thread, and a
tenant with an API key issued through the gateway's own services."""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from pathlib import Path

from pydantic import SecretStr

from engine.config import EngineConfig
from engine.launch import start_engine
from engine.protocol import EngineClient
from gateway.app import create_app
from gateway.background_server import BackgroundServer, start_background_server
from gateway.core.db import Database
from gateway.core.migrate import upgrade_database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import issue_key
from gateway.tenants.service import create_tenant


@dataclass
class RunningWarden:
    base_url: str  # https://127.0.0.1:PORT/v1
    cert: Path
    api_key: str
    model: str
    engine: EngineClient
    background: BackgroundServer

    def stop(self) -> None:
        self.background.stop()
        asyncio.run(self.engine.shutdown())


def start_warden(workdir: Path, engine_config: EngineConfig, *, guardrails: bool) -> RunningWarden:
    workdir.mkdir(parents=True, exist_ok=True)
    settings = Settings(database_url=f"sqlite:///{workdir / 'warden.db'}", data_dir=workdir,
                        server_secret=SecretStr(secrets.token_urlsafe(32)), redis_url=None, guardrails=guardrails,
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
    background = start_background_server(create_app(settings, engine=engine), settings.data_dir,
                                         name="bench-uvicorn", on_failure=lambda: asyncio.run(engine.shutdown()))
    return RunningWarden(base_url=f"{background.base_url}/v1", cert=background.cert, api_key=issued.api_key,
                         model=engine.model_name, engine=engine, background=background)
