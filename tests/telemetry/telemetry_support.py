"""Helpers shared by the telemetry tests (imported by module name; tests/ has no packages)."""

from __future__ import annotations

import re
import uuid

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
