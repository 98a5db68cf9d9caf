"""The tenant's cache salt: the gateway's HMAC of the tenant under the root secret, whichever secret asks first."""

from __future__ import annotations

import hashlib
import hmac

from gateway.core.secrets import ServerSecrets


def _secrets(root: bytes) -> ServerSecrets:
    return ServerSecrets(server_secret=root, key_pepper=b"pepper")


def test_the_salt_is_the_hmac_of_the_tenant_under_the_root_secret() -> None:
    root = b"root-secret-one"
    expected = hmac.new(root, b"tenant-a", hashlib.sha256).hexdigest()
    assert _secrets(root).cache_salt("tenant-a") == expected
    assert _secrets(root).cache_salt("tenant-a") == expected  # asked again: the same


def test_a_rotated_root_secret_derives_a_new_salt_for_a_tenant_already_salted() -> None:
    before, after = _secrets(b"root-before-rotation"), _secrets(b"root-after-rotation")
    salt = before.cache_salt("tenant-b")
    assert after.cache_salt("tenant-b") != salt
    assert after.cache_salt("tenant-b") == hmac.new(b"root-after-rotation", b"tenant-b", hashlib.sha256).hexdigest()
    assert before.cache_salt("tenant-c") != salt
