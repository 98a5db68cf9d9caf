"""Helpers shared by the telemetry tests (imported by module name; tests/ has no packages)."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from gateway.core.db import Database
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings
from gateway.keys.service import IssuedKey, issue_key
from gateway.tenants.service import create_tenant


def new_key(settings: Settings) -> IssuedKey:
    db = Database(settings.database_url)
    try:
        with db.transaction() as session:
            tenant = create_tenant(f"telemetry-{uuid.uuid4().hex[:8]}", session=session)
            return issue_key(tenant, pepper=load_server_secrets(settings).key_pepper, session=session)
    finally:
        db.dispose()


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample in Prometheus text exposition (labels must match exactly those given)."""
    for line in text.splitlines():
        match = re.match(r"^([^\s{]+)(?:\{([^}]*)\})? (\S+)$", line)
        if match is None or match.group(1) != name:
            continue
        found = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
        if found == labels:
            return float(match.group(3))
    return None


def foreign_root_handlers() -> list[logging.Handler]:
    """The root logger's handlers that no Warden app installed: an app built by an earlier test may have left its
    own (``configure_logging`` replaces it), so a test that builds one checks only these are left as they were."""
    return [h for h in logging.getLogger().handlers if not getattr(h, "_warden_handler", False)]


@contextmanager
def server_loggers_at_info() -> Iterator[None]:
    """uvicorn's loggers at info while inside: a uvicorn started earlier in this process at another ``--log-level``
    sets theirs."""
    loggers = [logging.getLogger(name) for name in ("uvicorn", "uvicorn.error", "uvicorn.access")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
