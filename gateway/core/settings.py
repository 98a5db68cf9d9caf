"""Gateway settings, read from ``WARDEN_*`` environment variables or a ``.env`` file."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WARDEN_", env_file=".env", extra="ignore")

    # SQLite is the embedded default; Postgres (postgresql://...) in production and CI.
    database_url: str = "sqlite:///./warden.db"
    redis_url: str | None = None
    model: str = "default"
    engine_in_process: bool = False
    # PII actions, injection screening and output redaction per tenant policy (gateway.guardrails).
    guardrails: bool = True

    data_dir: Path = Path("./.warden")
    tls_cert: Path | None = None
    tls_key: Path | None = None
    # Root secret: derives the cache salt per tenant and (unless set separately) the key pepper.
    # Generated into data_dir on first run when unset; replicas must share it, so set it in production.
    server_secret: SecretStr | None = None
    key_pepper: SecretStr | None = None

    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    key_cache_ttl_s: float = Field(default=5.0, ge=0.0)
    key_cache_max_entries: int = Field(default=10_000, ge=1)
    key_last_used_interval_s: float = Field(default=60.0, ge=0.0)
    policy_cache_ttl_s: float = Field(default=5.0, ge=0.0)
    max_choices: int = Field(default=8, ge=1)  # upper bound for n (and prompts x n on /v1/completions)

    audit_spool_dir: Path | None = None  # default: data_dir / "audit-spool"
    audit_batch_size: int = Field(default=256, ge=1)
    audit_flush_interval_s: float = Field(default=0.2, gt=0.0)
    audit_spool_rotate_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)

    @property
    def spool_dir(self) -> Path:
        return self.audit_spool_dir or self.data_dir / "audit-spool"
