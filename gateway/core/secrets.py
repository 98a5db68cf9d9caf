"""Server-side secrets: the root secret (generated once on first run) and what derives from it."""

from __future__ import annotations

import functools
import hashlib
import hmac
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from gateway.core.settings import Settings

SECRET_FILE_NAME = "server_secret"  # noqa: S105 - a file name, not a secret
# Tenants whose cache salt is kept once derived: every call needs its tenant's, and an HMAC costs more than the rest
# of the look-up; a worker serving more tenants than this derives the others' again.
CACHE_SALTS_KEPT = 4096


@dataclass(frozen=True, slots=True)
class ServerSecrets:
    server_secret: bytes
    key_pepper: bytes

    @property
    def engine_authkey(self) -> bytes:
        """What the gateway's workers prove to their engine hosts (engine.host): every worker derives the same."""
        return hmac.new(self.server_secret, b"warden/engine-host", hashlib.sha256).digest()

    def cache_salt(self, tenant_id: str) -> str:
        """The prefix-cache isolation domain of a tenant. Only the gateway can compute it."""
        return _cache_salt(self.server_secret, tenant_id)

    def fairness_id(self, tenant_id: str) -> str:
        """The tenant's flow at an inference gateway's endpoint picker (gateway.fairness): not a secret, the same on
        every pod. Its own derived key keeps it independent of the cache salt, which must never leave Warden."""
        key = hmac.new(self.server_secret, b"warden/fairness-id", hashlib.sha256).digest()
        return hmac.new(key, tenant_id.encode(), hashlib.sha256).hexdigest()[:32]


@functools.lru_cache(maxsize=CACHE_SALTS_KEPT)
def _cache_salt(server_secret: bytes, tenant_id: str) -> str:
    """A pure function of the root secret and the tenant (the secret in the key: a rotated secret derives anew)."""
    return hmac.new(server_secret, tenant_id.encode(), hashlib.sha256).hexdigest()


def _read_or_create_secret_file(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # O_EXCL: when several workers start at once exactly one writes the file; the rest read it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        value = path.read_text().strip()
        if not value:
            raise RuntimeError(f"{path} is empty; delete it or set WARDEN_SERVER_SECRET") from None
        return value.encode()
    value = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w") as f:
        f.write(value + "\n")
        f.flush()
        os.fsync(f.fileno())
    return value.encode()


def load_server_secrets(settings: Settings) -> ServerSecrets:
    if settings.server_secret is not None:
        root = settings.server_secret.get_secret_value().encode()
    else:
        root = _read_or_create_secret_file(settings.data_dir / SECRET_FILE_NAME)
    if settings.key_pepper is not None:
        pepper = settings.key_pepper.get_secret_value().encode()
    else:
        # Domain separation: the pepper is not the salt key, so one leaking says nothing of the other.
        pepper = hmac.new(root, b"warden/api-key-pepper", hashlib.sha256).digest()
    return ServerSecrets(server_secret=root, key_pepper=pepper)
