"""The HTTP side of a decision: OpenAI's headers, the 429 body and the 503, seen through a real FastAPI app."""

from __future__ import annotations

import json

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from ratelimit_support import START_MS

from gateway.ratelimit import (
    InProcessRateLimiter,
    ManualClock,
    RateLimiterUnavailable,
    RateLimits,
    rate_limit_headers,
    refusal_body,
    refusal_response,
    unavailable_response,
)
from gateway.ratelimit.http import format_duration
from gateway.ratelimit.limits import MAX_PER_MINUTE


@pytest.mark.parametrize(
    ("ms", "text"),
    [(0, "0ms"), (20, "20ms"), (999, "999ms"), (1000, "1s"), (1500, "1.5s"), (12_345, "12.345s"),
     (360_000, "6m0s"), (3_723_000, "1h2m3s")],
)  # fmt: skip
def test_durations_use_openais_format(ms: int, text: str) -> None:
    assert format_duration(ms) == text


def build_app(limits: RateLimits, clock: ManualClock) -> FastAPI:
    """A minimal request path wired the way the gateway's must be: admit, 429 or proceed with headers."""
    limiter = InProcessRateLimiter(clock=clock)
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(body: dict) -> object:
        admission = await limiter.admit("acme", "k", limits, int(body["reserve"]))
        if not admission.admitted:
            return refusal_response(admission)
        await limiter.settle(admission, int(body["used"]))
        return JSONResponse(content={"ok": True}, headers=rate_limit_headers(admission))

    return app


def test_admitted_and_refused_responses_carry_the_headers() -> None:
    app = build_app(RateLimits(requests_per_minute=2, tokens_per_minute=1000), ManualClock(START_MS))
    with TestClient(app) as client:
        ok = client.post("/v1/chat/completions", json={"reserve": 400, "used": 100})
        assert ok.status_code == 200
        assert ok.headers["x-ratelimit-limit-requests"] == "2"
        assert ok.headers["x-ratelimit-remaining-requests"] == "1"
        assert ok.headers["x-ratelimit-reset-requests"] == "30s"
        assert ok.headers["x-ratelimit-limit-tokens"] == "1000"
        assert ok.headers["x-ratelimit-remaining-tokens"] == "600"  # as admitted, before settling
        assert ok.headers["x-ratelimit-reset-tokens"] == "24s"
        assert "retry-after" not in ok.headers

        too_big = client.post("/v1/chat/completions", json={"reserve": 950, "used": 0})
        assert too_big.status_code == 429
        assert too_big.headers["retry-after"] == "3"  # 50 tokens short at 1000/min: 3 s
        assert too_big.headers["retry-after-ms"] == "3000"
        assert too_big.headers["x-ratelimit-remaining-tokens"] == "900"
        error = too_big.json()["error"]
        assert (error["type"], error["code"], error["param"]) == ("tokens", "rate_limit_exceeded", None)
        assert "tokens per minute: limit 1000, requested 950" in error["message"]
        assert "try again in 3s" in error["message"]


RATE_LIMIT_HEADERS = {f"x-ratelimit-{what}-{dimension}" for what in ("limit", "remaining", "reset")
                      for dimension in ("requests", "tokens")}


@pytest.mark.parametrize(("limits", "key_limits", "expected"), [
    # No limits at all: both dimensions unlimited.
    (RateLimits(), None, {"requests": (MAX_PER_MINUTE, MAX_PER_MINUTE, "0ms"),
                          "tokens": (MAX_PER_MINUTE, MAX_PER_MINUTE, "0ms")}),
    # Only requests limited: the tokens dimension is unlimited.
    (RateLimits(requests_per_minute=3), None, {"requests": (3, 2, "20s"),
                                               "tokens": (MAX_PER_MINUTE, MAX_PER_MINUTE, "0ms")}),
    # Only tokens limited, and only on the key: the key's bucket is what the client runs into.
    (RateLimits(), RateLimits(tokens_per_minute=600), {"requests": (MAX_PER_MINUTE, MAX_PER_MINUTE, "0ms"),
                                                       "tokens": (600, 500, "10s")}),
])  # fmt: skip
async def test_all_six_headers_whatever_the_policy_limits(limits: RateLimits, key_limits: RateLimits | None,
                                                          expected: dict[str, tuple[int, int, str]]) -> None:
    limiter = InProcessRateLimiter(clock=ManualClock(START_MS))
    admission = await limiter.admit("acme", "k", limits, 100, key_limits=key_limits)
    headers = rate_limit_headers(admission)
    assert set(headers) == RATE_LIMIT_HEADERS
    for dimension, (limit, remaining, reset) in expected.items():
        assert headers[f"x-ratelimit-limit-{dimension}"] == str(limit)
        assert headers[f"x-ratelimit-remaining-{dimension}"] == str(remaining)
        assert headers[f"x-ratelimit-reset-{dimension}"] == reset


async def test_a_refusal_on_one_dimension_still_sends_all_six() -> None:
    limiter = InProcessRateLimiter(clock=ManualClock(START_MS))
    limits = RateLimits(requests_per_minute=1)
    assert (await limiter.admit("acme", "k", limits, 1)).admitted
    refused = await limiter.admit("acme", "k", limits, 1)
    headers = rate_limit_headers(refused)
    assert not refused.admitted and set(headers) == RATE_LIMIT_HEADERS | {"retry-after", "retry-after-ms"}
    assert (headers["x-ratelimit-remaining-requests"], headers["x-ratelimit-limit-tokens"]) == ("0",
                                                                                              str(MAX_PER_MINUTE))


async def test_spent_budget_is_insufficient_quota() -> None:
    limiter = InProcessRateLimiter(clock=ManualClock(START_MS))
    limits = RateLimits(monthly_token_budget=10)
    await limiter.settle(await limiter.admit("acme", "k", limits, 10), 10)
    refused = await limiter.admit("acme", "k", limits, 1)
    body = refusal_body(refused)["error"]
    assert (body["type"], body["code"]) == ("insufficient_quota", "insufficient_quota")
    assert "monthly token budget" in body["message"]
    assert refused.audit_decision() == {
        "decision": "refused",
        "reserved_tokens": 1,
        "degraded": False,
        "limit": "monthly_token_budget",
        "scope": "tenant",
        "limit_value": 10,
        "requested": 1,
        "retry_after_ms": refused.refusal.retry_after_ms,
    }
    assert int(refusal_response(refused).headers["retry-after"]) == -(-refused.refusal.retry_after_ms // 1000)


async def test_a_request_that_can_never_fit_says_so_without_retry_after() -> None:
    limiter = InProcessRateLimiter(clock=ManualClock(START_MS))
    refused = await limiter.admit("acme", "k", RateLimits(tokens_per_minute=100), 500)
    response = refusal_response(refused)
    assert response.status_code == 429
    assert "retry-after" not in response.headers
    assert "can never fit" in json.loads(response.body)["error"]["message"]


def test_unavailable_is_a_503_in_openai_shape() -> None:
    response = unavailable_response(RateLimiterUnavailable("rate limiter unavailable: cannot reach its store"))
    assert response.status_code == 503
    error = json.loads(response.body)["error"]
    assert error["code"] == "rate_limiter_unavailable"
    assert error["message"].startswith("rate limiter unavailable")
    assert set(error) == {"message", "type", "param", "code"}


async def test_refusal_body_needs_a_refusal() -> None:
    admitted = await InProcessRateLimiter().admit("acme", "k", RateLimits(), 1)
    assert admitted.audit_decision() == {"decision": "admitted", "reserved_tokens": 1, "degraded": False}
    with pytest.raises(ValueError, match="refused admission"):
        refusal_body(admitted)
