"""The /v1 path's per-call shortcuts give what the general forms give: the policy view cached per (policy, key), and
the completion response whose headers are built in one pass."""

from __future__ import annotations

from starlette.responses import Response

from gateway.openai.policy_view import PolicyView
from gateway.openai.service import RawJSONResponse, json_response
from policies.model import Policy


def _policy(cap: int) -> Policy:
    return Policy.model_validate({"max_tokens_cap": 512, "rate_limits": {"requests_per_minute": 60},
                                  "key_overrides": {"k1": {"max_tokens_cap": cap,
                                                           "rate_limits": {"tokens_per_minute": 1000}}}})


def test_policy_view_is_the_built_view_and_reused_for_the_same_policy_and_key() -> None:
    policy = _policy(64)
    view = PolicyView.for_key(policy, "k1")
    assert view == PolicyView.build(policy, "k1")
    assert view.max_tokens_cap == 64 and view.key_limits is not None and view.key_limits.tokens_per_minute == 1000
    assert PolicyView.for_key(policy, "k1") is view
    other_key = PolicyView.for_key(policy, "k2")
    assert other_key.max_tokens_cap == 512 and other_key.key_limits is None


def test_a_new_policy_object_gets_its_own_view() -> None:
    """A tenant's policy published anew is a new object: its view follows it, even for an equal-looking key."""
    first = PolicyView.for_key(_policy(64), "k1")
    second = PolicyView.for_key(_policy(32), "k1")
    assert (first.max_tokens_cap, second.max_tokens_cap) == (64, 32)


def test_raw_json_response_sends_what_response_sends() -> None:
    body = {"id": "chatcmpl-1", "choices": [{"text": "hé"}]}
    headers = {"x-ratelimit-limit-requests": "60", "x-ratelimit-reset-tokens": "1.5s"}
    fast = json_response(body, headers)
    plain = Response(fast.body, media_type="application/json", headers=headers)
    assert isinstance(fast, RawJSONResponse)
    assert (fast.status_code, fast.body, fast.raw_headers) == (plain.status_code, plain.body, plain.raw_headers)
    bare = json_response(body)
    assert bare.raw_headers == Response(bare.body, media_type="application/json").raw_headers
