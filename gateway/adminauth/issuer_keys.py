"""Where verification keys come from: only the configured JWKS (a URL or a file), or the local issuer key.

A token never chooses its key: its ``kid`` only selects among keys already published by the configured issuer,
and ``jwk``/``jku``/``x5u``/``x5c`` headers are refused before any key lookup (see ``validator``).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from joserfc.jwk import ECKey, KeySet

log = logging.getLogger(__name__)

LOCAL_ISSUER = "urn:warden:local-admin-issuer"
LOCAL_ISSUER_KEY_FILE = "admin-issuer-key.json"
LOCAL_ALGORITHM = "ES256"
# An unknown kid may mean the issuer rotated keys: refetch, but never more often than this (a flood of tokens
# with random kids must not turn into a flood of requests to the issuer).
MIN_REFETCH_INTERVAL_S = 30.0
MAX_JWKS_BYTES = 512 * 1024


class KeySourceError(RuntimeError):
    """The configured JWKS could not be loaded."""


def _public_key_set(data: dict[str, Any]) -> KeySet:
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise KeySourceError("a JWKS is a JSON object with a 'keys' list")
    # Drop private members so a JWKS file that carries private keys is still only used for verification.
    public = [{k: v for k, v in key.items() if k not in ("d", "p", "q", "dp", "dq", "qi", "k")}
              for key in data["keys"] if isinstance(key, dict) and key.get("kty") != "oct"]
    return KeySet.import_key_set({"keys": public})


def load_or_create_local_issuer_key(path: Path) -> ECKey:
    """The local issuer's private key (P-256), created once (O_EXCL: concurrent workers agree on one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(50):  # another process may be between its create and its write
            text = path.read_text().strip()
            if text:
                return ECKey.import_key(json.loads(text))
            time.sleep(0.05)
        raise KeySourceError(f"{path} is empty; delete it to generate a new local issuer key") from None
    key = ECKey.generate_key("P-256", private=True, auto_kid=True)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(key.as_dict(private=True)))
        f.flush()
        os.fsync(f.fileno())
    return key


class JwksSource:
    """The verification keys of the configured issuer, cached; refetched after a TTL or on an unknown kid."""

    def __init__(self, *, url: str | None = None, file: Path | None = None, static: KeySet | None = None,
                 ttl_s: float = 300.0, timeout_s: float = 5.0) -> None:
        if sum(x is not None for x in (url, file, static)) != 1:
            raise ValueError("exactly one of a JWKS URL, a JWKS file or a static key set")
        self._url, self._file, self._ttl_s, self._timeout_s = url, file, ttl_s, timeout_s
        self._keys: KeySet | None = static
        self._loaded_at = time.monotonic() if static is not None else 0.0
        self._last_fetch_attempt = 0.0
        self._lock = threading.Lock()

    def _fetch(self) -> KeySet:
        if self._file is not None:
            return _public_key_set(json.loads(self._file.read_text()))
        assert self._url is not None
        with httpx.Client(timeout=self._timeout_s, follow_redirects=False) as client:
            response = client.get(self._url, headers={"accept": "application/json"})
        response.raise_for_status()
        if len(response.content) > MAX_JWKS_BYTES:
            raise KeySourceError(f"JWKS at {self._url} is larger than {MAX_JWKS_BYTES} bytes")
        return _public_key_set(response.json())

    def _refresh(self, now: float) -> None:
        self._last_fetch_attempt = now
        try:
            self._keys = self._fetch()
            self._loaded_at = now
        except Exception as exc:
            # Keep serving the last good keys; with none, every token is refused (fail closed).
            log.warning("could not load the admin JWKS: %s", exc)
            if self._keys is None:
                raise KeySourceError(f"admin JWKS unavailable: {exc}") from exc

    def key_set(self, kid: str | None) -> KeySet:
        if self._url is None and self._file is None:
            assert self._keys is not None
            return self._keys
        with self._lock:
            now = time.monotonic()
            stale = self._keys is None or now - self._loaded_at >= self._ttl_s
            unknown_kid = (self._keys is not None and kid is not None
                           and all(key.kid != kid for key in self._keys.keys))
            may_refetch = now - self._last_fetch_attempt >= MIN_REFETCH_INTERVAL_S
            if self._keys is None or ((stale or unknown_kid) and may_refetch):
                self._refresh(now)
            assert self._keys is not None
            return self._keys
