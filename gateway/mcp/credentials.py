"""Upstream credentials (HTTP headers such as ``Authorization``) sealed at rest with AES-GCM.

The key is derived from the server secret, so only the gateway can open them; the associated data binds a sealed
blob to its owner (a tenant, or global) and server name, so a blob copied onto another record does not open. The
API never returns them and nothing logs them.
"""

from __future__ import annotations

import hashlib
import hmac
import os

import orjson
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_NONCE_BYTES = 12
_KEY_LABEL = b"warden/mcp-upstream-credentials"


class CredentialsUnreadable(Exception):
    """A sealed blob that does not open with this server's secret (a rotated secret, an edited row)."""


def _key(server_secret: bytes) -> bytes:
    return hmac.new(server_secret, _KEY_LABEL, hashlib.sha256).digest()


# The owner part of a global record's associated data: tenant ids are UUIDs, so no tenant's record can take it.
_GLOBAL_OWNER = "global"


def _aad(owner: str | None, server_name: str) -> bytes:
    return f"{owner or _GLOBAL_OWNER}/{server_name}".encode()


def seal_headers(server_secret: bytes, owner: str | None, server_name: str, headers: dict[str, str]) -> bytes:
    nonce = os.urandom(_NONCE_BYTES)
    return nonce + AESGCM(_key(server_secret)).encrypt(nonce, orjson.dumps(headers), _aad(owner, server_name))


def open_headers(server_secret: bytes, owner: str | None, server_name: str,
                 sealed: bytes | None) -> dict[str, str]:
    if not sealed:
        return {}
    try:
        plain = AESGCM(_key(server_secret)).decrypt(sealed[:_NONCE_BYTES], sealed[_NONCE_BYTES:],
                                                    _aad(owner, server_name))
    except (InvalidTag, ValueError):
        raise CredentialsUnreadable("the upstream server's credentials cannot be opened") from None
    headers = orjson.loads(plain)
    return {str(name): str(value) for name, value in headers.items()}
