"""Key and policy cache hits are answered on the event loop (no worker-thread hop), with the TTL kept: a coroutine
that never suspends completes on its first step, which is what a hit must do; a miss or an expired entry still
loads from the store in a thread, so revocation and new policy versions arrive within the TTL."""

from __future__ import annotations

import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest
from gateway_support import new_tenant_with_key

from gateway.core.secrets import load_server_secrets
from gateway.keys.auth import AuthenticationFailed, Authenticator
from gateway.keys.models import ApiKey
from gateway.keys.service import revoke_key
from gateway.policystore.cache import PolicyResolver
from gateway.policystore.service import publish_policy

T = TypeVar("T")
TTL_S = 0.5


def without_suspending(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end in one step; fails if it suspends (awaits a thread, I/O or a sleep)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise AssertionError("the coroutine suspended: it waited on something (a worker thread) instead of a dict")


def _authenticator(db, settings) -> Authenticator:  # type: ignore[no-untyped-def]
    return Authenticator(db, pepper=load_server_secrets(settings).key_pepper, ttl_s=TTL_S, max_entries=100,
                         last_used_interval_s=3600.0)


async def test_a_cached_key_is_checked_without_a_thread_and_revocation_arrives_within_the_ttl(
        db, settings) -> None:  # type: ignore[no-untyped-def]
    tenant, issued = new_tenant_with_key(db, settings)
    auth = _authenticator(db, settings)
    header = f"Bearer {issued.api_key}"
    first = await auth.authenticate(header)  # a miss: loaded in a thread
    cached_at = time.monotonic()
    assert without_suspending(auth.authenticate(header)) == first

    wrong = issued.api_key[:-1] + ("A" if issued.api_key[-1] != "A" else "B")
    with pytest.raises(AuthenticationFailed, match="invalid API key") as refused:
        without_suspending(auth.authenticate(f"Bearer {wrong}"))  # the cached hash still checks every secret
    assert refused.value.tenant_id == tenant.id

    with db.transaction() as session:
        assert revoke_key(issued.key_id, session=session)
    if time.monotonic() - cached_at < TTL_S * 0.8:  # within the TTL the cached record is trusted, as before
        assert without_suspending(auth.authenticate(header)) == first
    time.sleep(max(0.0, cached_at + TTL_S - time.monotonic()) + 0.05)
    with pytest.raises(AuthenticationFailed, match="revoked"):
        await auth.authenticate(header)  # expired: reloaded from the store, which refuses it


async def test_an_unknown_key_is_cached_as_unknown_and_refused_without_a_thread(
        db, settings) -> None:  # type: ignore[no-untyped-def]
    _tenant, issued = new_tenant_with_key(db, settings)
    auth = _authenticator(db, settings)
    unknown = "wdn_" + "Z" * 16 + "_" + issued.api_key.split("_")[2]
    with pytest.raises(AuthenticationFailed, match="unknown API key"):
        await auth.authenticate(f"Bearer {unknown}")
    with pytest.raises(AuthenticationFailed, match="unknown API key"):
        without_suspending(auth.authenticate(f"Bearer {unknown}"))
    with pytest.raises(AuthenticationFailed, match="malformed"):
        without_suspending(auth.authenticate("Bearer not-a-key"))


async def test_the_last_use_write_still_happens_once_due(db, settings) -> None:  # type: ignore[no-untyped-def]
    _tenant, issued = new_tenant_with_key(db, settings)
    auth = Authenticator(db, pepper=load_server_secrets(settings).key_pepper, ttl_s=60.0, max_entries=100,
                         last_used_interval_s=0.0)  # written at most once a second
    header = f"Bearer {issued.api_key}"

    def last_used() -> Any:
        with db.session() as session:
            return session.get(ApiKey, issued.key_id).last_used_at  # type: ignore[union-attr]

    await auth.authenticate(header)
    written = last_used()
    assert written is not None
    without_suspending(auth.authenticate(header))  # written within the last second: nothing to write, no thread
    time.sleep(1.05)
    await auth.authenticate(header)  # due again: written (in a thread)
    assert last_used() > written


async def test_a_cached_policy_resolves_without_a_thread_and_a_new_version_arrives_within_the_ttl(
        db, settings) -> None:  # type: ignore[no-untyped-def]
    tenant, _issued = new_tenant_with_key(db, settings)
    with db.transaction() as session:
        publish_policy(tenant.id, {"rate_limits": {"requests_per_minute": 10}}, session=session)
    resolver = PolicyResolver(db, ttl_s=TTL_S, max_entries=100)
    first = await resolver.resolve(tenant.id)
    cached_at = time.monotonic()
    assert without_suspending(resolver.resolve(tenant.id)) == first
    with db.transaction() as session:
        publish_policy(tenant.id, {"rate_limits": {"requests_per_minute": 20}}, session=session)
    if time.monotonic() - cached_at < TTL_S * 0.8:
        assert without_suspending(resolver.resolve(tenant.id)).version == first.version
    time.sleep(max(0.0, cached_at + TTL_S - time.monotonic()) + 0.05)
    latest = await resolver.resolve(tenant.id)
    assert first.version is not None and latest.version == first.version + 1
    assert latest.policy.rate_limits.requests_per_minute == 20
