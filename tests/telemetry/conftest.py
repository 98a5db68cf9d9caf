"""Fixtures for the telemetry tests: a migrated SQLite database per session (telemetry does not depend on the
database engine; the gateway suites cover Postgres) and settings that use it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.core.migrate import upgrade_database
from gateway.core.settings import Settings


@pytest.fixture(scope="session")
def telemetry_database_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('telemetry-db') / 'warden.db'}"
    upgrade_database(url)
    return url


@pytest.fixture
def telemetry_settings(telemetry_database_url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=telemetry_database_url, data_dir=tmp_path / "data", server_secret="telemetry-secret",
                    redis_url=None, key_cache_ttl_s=0.0, policy_cache_ttl_s=0.0, audit_flush_interval_s=0.05,
                    audit_checkpoint_interval_s=0.0, guardrails=False, log_format="none")
