"""From the policy document to the limiter's inputs, and the narrowing a key override gives."""

from __future__ import annotations

from ratelimit_support import START_MS

from gateway.ratelimit import InProcessRateLimiter, ManualClock, RateLimits, Scope
from gateway.ratelimit.policy_limits import limits_for_key
from policies.model import Policy


def policy(document: dict) -> Policy:
    return Policy.model_validate(document)


def test_tenant_limits_come_from_the_policy() -> None:
    tenant, key = limits_for_key(
        policy({"rate_limits": {"requests_per_minute": 60, "monthly_token_budget": 10_000, "fail_open": True}}), "k1"
    )
    assert tenant == RateLimits(requests_per_minute=60, monthly_token_budget=10_000, fail_open=True)
    assert key is None


def test_key_override_adds_key_counters_and_keeps_the_tenant_fail_mode() -> None:
    document = {
        "rate_limits": {"requests_per_minute": 60, "fail_open": True},
        "key_overrides": {"k1": {"rate_limits": {"tokens_per_minute": 500}}, "k2": {"weight": 3}},
    }
    tenant, key = limits_for_key(policy(document), "k1")
    assert tenant == RateLimits(requests_per_minute=60, fail_open=True)
    assert key == RateLimits(tokens_per_minute=500, fail_open=True)
    assert limits_for_key(policy(document), "k2") == (tenant, None)  # an override without rate limits


async def test_an_override_cannot_lift_a_key_above_the_tenant_pool() -> None:
    document = {
        "rate_limits": {"requests_per_minute": 2},
        "key_overrides": {"k1": {"rate_limits": {"requests_per_minute": 100}}},
    }
    tenant, key = limits_for_key(policy(document), "k1")
    limiter = InProcessRateLimiter(clock=ManualClock(START_MS))
    results = [await limiter.admit("acme", "k1", tenant, 0, key_limits=key) for _ in range(3)]
    assert [a.admitted for a in results] == [True, True, False]
    assert results[2].refusal.scope is Scope.TENANT
