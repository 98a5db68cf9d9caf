"""Requests that find a key record or a policy expired together share one reload from the store: one query per
key or tenant, not one per request in flight at the expiry; every request still verifies its own secret, and a
stale read during an outage is noted in the audit decisions of every request it answered."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from gateway_support import new_tenant_with_key

from gateway.core.errors import StoreUnavailable
from gateway.core.secrets import load_server_secrets
from gateway.core.single_flight import SingleFlight
from gateway.core.stale_cache import begin_stale_tracking, stale_decisions
from gateway.keys import auth as auth_module
from gateway.keys.auth import AuthenticationFailed, Authenticator
from gateway.policystore import cache as policy_cache
from gateway.policystore.cache import PolicyResolver
from gateway.policystore.service import publish_policy

CONCURRENT = 40


def counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, *, delay_s: float = 0.05) -> list[int]:
    """``module.name`` (the real loader) wrapped to count its calls and to take ``delay_s`` longer, so that
    concurrent requests overlap its run as they do under load; the list's length is the number of calls."""
    real = getattr(module, name)
    calls: list[int] = []

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        time.sleep(delay_s)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)
    return calls


async def test_concurrent_loads_of_a_key_share_one_and_each_waiter_sees_its_outcome() -> None:
    flights: SingleFlight[str, int] = SingleFlight()
    runs: list[str] = []

    async def load(key: str) -> int:
        runs.append(key)
        await asyncio.sleep(0.02)
        return len(key)

    results = await asyncio.gather(*(flights.run(k, lambda k=k: load(k)) for k in ["a", "bb"] * 10))  # type: ignore[misc]
    assert results == [1, 2] * 10
    assert sorted(runs) == ["a", "bb"]
    assert len(flights) == 0  # nothing kept once done: the next expiry loads again
    assert await flights.run("a", lambda: load("a")) == 1
    assert runs.count("a") == 2


async def test_a_failed_load_fails_every_waiter_and_a_cancelled_waiter_leaves_it_running() -> None:
    flights: SingleFlight[str, int] = SingleFlight()
    release = asyncio.Event()

    async def failing() -> int:
        await release.wait()
        raise StoreUnavailable(5, stage="policy")

    first = asyncio.ensure_future(flights.run("t", failing))
    others = [asyncio.ensure_future(flights.run("t", failing)) for _ in range(3)]
    await asyncio.sleep(0)
    first.cancel()  # the caller that started the load leaves: the load goes on for the others
    await asyncio.sleep(0)
    release.set()
    for other in others:
        with pytest.raises(StoreUnavailable):
            await other
    assert first.cancelled()
    assert len(flights) == 0


async def test_requests_at_a_key_expiry_share_one_load_and_each_secret_is_checked(
        db, settings, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant, issued = new_tenant_with_key(db, settings)
    calls = counting(monkeypatch, auth_module, "load_key_record")
    auth = Authenticator(db, pepper=load_server_secrets(settings).key_pepper, ttl_s=60.0, max_entries=100,
                         last_used_interval_s=3600.0)
    wrong = issued.api_key[:-1] + ("A" if issued.api_key[-1] != "A" else "B")
    headers = [f"Bearer {wrong if i % 4 == 3 else issued.api_key}" for i in range(CONCURRENT)]
    outcomes = await asyncio.gather(*(auth.authenticate(h) for h in headers), return_exceptions=True)
    assert len(calls) == 1
    for header, outcome in zip(headers, outcomes, strict=True):
        if wrong in header:
            assert isinstance(outcome, AuthenticationFailed) and outcome.reason == "invalid API key"
        else:
            assert not isinstance(outcome, BaseException) and outcome.tenant_id == tenant.id

    auth.forget_cached_keys()  # a local revocation: the next request reads the store again
    await auth.authenticate(headers[0])
    assert len(calls) == 2


async def test_requests_at_a_policy_expiry_share_one_load(
        db, settings, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant, _issued = new_tenant_with_key(db, settings)
    with db.transaction() as session:
        publish_policy(tenant.id, {"rate_limits": {"requests_per_minute": 10}}, session=session)
    calls = counting(monkeypatch, policy_cache, "load_active_policy")
    resolver = PolicyResolver(db, ttl_s=60.0, max_entries=100)
    resolved = await asyncio.gather(*(resolver.resolve(tenant.id) for _ in range(CONCURRENT)))
    assert len(calls) == 1
    assert {active.version for active in resolved} == {resolved[0].version}
    assert resolved[0].policy.rate_limits.requests_per_minute == 10


async def test_a_shared_stale_read_is_noted_in_every_request_it_answered(
        db, settings, monkeypatch: pytest.MonkeyPatch) -> None:
    tenant, _issued = new_tenant_with_key(db, settings)
    resolver = PolicyResolver(db, ttl_s=0.05, max_entries=100, stale_window_s=60.0)
    cached = await resolver.resolve(tenant.id)
    await asyncio.sleep(0.06)  # expired; the store then goes down

    def store_down(*_args: Any, **_kwargs: Any) -> Any:
        time.sleep(0.05)
        raise StoreUnavailable(5, stage="policy")

    monkeypatch.setattr(policy_cache, "load_active_policy", store_down)

    async def one_request() -> list[dict[str, str]]:  # a task: a context of its own, as each request has
        begin_stale_tracking()
        assert await resolver.resolve(tenant.id) == cached
        return stale_decisions()

    noted = await asyncio.gather(*(one_request() for _ in range(CONCURRENT)))
    assert all(n == [{"stage": "policy", "decision": "stale", "reason": "store_unavailable"}] for n in noted)
