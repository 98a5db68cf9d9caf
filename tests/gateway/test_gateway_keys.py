"""API keys: format, peppered hash, and authentication (revocation, expiry, cache TTL)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from gateway_support import new_tenant_with_key

from gateway.core.clock import utcnow
from gateway.core.secrets import load_server_secrets
from gateway.core.ttl_cache import TTLCache
from gateway.keys.auth import AuthenticationFailed, Authenticator, bearer_token
from gateway.keys.format import (
    ALPHABET,
    KEY_ID_LENGTH,
    SECRET_LENGTH,
    format_key,
    hash_secret,
    new_key_id,
    new_secret,
    parse_key,
)
from gateway.keys.models import ApiKey
from gateway.keys.service import revoke_key


def test_key_format_round_trips_and_splits_unambiguously() -> None:
    key_id, secret = new_key_id(), new_secret()
    assert "_" not in ALPHABET
    parsed = parse_key(format_key(key_id, secret))
    assert parsed is not None and (parsed.key_id, parsed.secret) == (key_id, secret)
    assert len(key_id) == KEY_ID_LENGTH and len(secret) == SECRET_LENGTH


@pytest.mark.parametrize("raw", [
    "", "wdn_", "wdn__", "sk-abc", "wdn_short_secret", "wdn_" + "a" * 16 + "_" + "b" * 39,
    "xyz_" + "a" * 16 + "_" + "b" * 40, "wdn_" + "a" * 16 + "_" + "b" * 40 + "_extra",
    "wdn_" + "a" * 15 + "!_" + "b" * 40, "wdn_" + "é" * 16 + "_" + "b" * 40, "wdn_' OR 1=1 --_x",
])
def test_malformed_keys_are_rejected_without_error(raw: str) -> None:
    assert parse_key(raw) is None


def test_secret_hash_is_peppered_and_bound_to_the_key_id() -> None:
    assert hash_secret(b"p1", "id", "s") != hash_secret(b"p2", "id", "s")
    assert hash_secret(b"p1", "id", "s") != hash_secret(b"p1", "other", "s")
    assert len(hash_secret(b"p1", "id", "s")) == 64


def test_bearer_token_parsing() -> None:
    assert bearer_token("Bearer abc") == "abc"
    assert bearer_token("bearer  abc ") == "abc"
    assert bearer_token("Basic abc") is None
    assert bearer_token(None) is None
    assert bearer_token("Bearer ") is None


def _authenticator(db, settings, ttl_s: float) -> Authenticator:  # type: ignore[no-untyped-def]
    return Authenticator(db, pepper=load_server_secrets(settings).key_pepper, ttl_s=ttl_s, max_entries=100,
                         last_used_interval_s=0.0)


async def test_authenticate_valid_wrong_and_revoked_keys(db, settings) -> None:  # type: ignore[no-untyped-def]
    tenant, issued = new_tenant_with_key(db, settings)
    auth = _authenticator(db, settings, ttl_s=0.0)
    principal = await auth.authenticate(f"Bearer {issued.api_key}")
    assert (principal.tenant_id, principal.key_id) == (tenant.id, issued.key_id)

    with db.session() as session:
        stored = session.get(ApiKey, issued.key_id)
        assert stored is not None and issued.api_key.split("_")[2] not in stored.secret_hash
        assert stored.last_used_at is not None

    wrong = issued.api_key[:-1] + ("A" if issued.api_key[-1] != "A" else "B")
    with pytest.raises(AuthenticationFailed) as info:
        await auth.authenticate(f"Bearer {wrong}")
    assert info.value.tenant_id == tenant.id  # refusal is audited in the tenant's chain

    with pytest.raises(AuthenticationFailed):
        await auth.authenticate(None)

    with db.transaction() as session:
        assert revoke_key(issued.key_id, session=session)
        assert not revoke_key(issued.key_id, session=session)  # already revoked
    with pytest.raises(AuthenticationFailed, match="revoked"):
        await auth.authenticate(f"Bearer {issued.api_key}")


async def test_revocation_applies_once_the_cache_ttl_passes(db, settings) -> None:  # type: ignore[no-untyped-def]
    _tenant, issued = new_tenant_with_key(db, settings)
    cached = _authenticator(db, settings, ttl_s=3600.0)  # another replica, with a long TTL
    await cached.authenticate(f"Bearer {issued.api_key}")
    with db.transaction() as session:
        revoke_key(issued.key_id, session=session)
    # Within the TTL the replica still trusts its cached record...
    await cached.authenticate(f"Bearer {issued.api_key}")
    # ...and once the entry expires (forced here) it reloads and refuses.
    cached.forget_cached_keys()
    with pytest.raises(AuthenticationFailed):
        await cached.authenticate(f"Bearer {issued.api_key}")


async def test_expired_key_is_refused(db, settings) -> None:  # type: ignore[no-untyped-def]
    _tenant, issued = new_tenant_with_key(db, settings)
    with db.transaction() as session:
        key = session.get(ApiKey, issued.key_id)
        assert key is not None
        key.expires_at = utcnow() - timedelta(seconds=1)
    with pytest.raises(AuthenticationFailed, match="expired"):
        await _authenticator(db, settings, ttl_s=0.0).authenticate(f"Bearer {issued.api_key}")


def test_ttl_cache_expires_and_stays_bounded() -> None:
    now = [0.0]
    cache: TTLCache[str, int] = TTLCache(ttl_s=5.0, max_entries=2, clock=lambda: now[0])
    cache.put("a", 1)
    assert cache.get("a") == (True, 1)
    now[0] = 5.0
    assert cache.get("a") == (False, None)
    for key in "bcd":
        cache.put(key, 0)
    assert len(cache) == 2 and cache.get("b") == (False, None)
