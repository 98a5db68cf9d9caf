"""What the HTTP edge sends for a rate-limit decision: OpenAI's x-ratelimit-* headers, the 429 and the 503."""

from __future__ import annotations

import math

from fastapi.responses import JSONResponse

from gateway.ratelimit.admission import Admission, LimitStatus, Refusal
from gateway.ratelimit.errors import RateLimiterUnavailable
from gateway.ratelimit.limits import MAX_PER_MINUTE, LimitKind, RateLimits

# The x-ratelimit-* values of a dimension nothing meters (no limit set in it): the largest limit a policy can set,
# all of it remaining, nothing to wait for. OpenAI always sends all six headers and clients read them as integers
# and durations, so an unlimited dimension gets numbers that never throttle a client rather than no header.
UNLIMITED = LimitStatus(limit=MAX_PER_MINUTE, remaining=MAX_PER_MINUTE, reset_ms=0)

_DESCRIPTIONS = {
    LimitKind.REQUESTS_PER_MINUTE: "requests per minute",
    LimitKind.TOKENS_PER_MINUTE: "tokens per minute",
    LimitKind.CONCURRENT_REQUESTS: "concurrent requests",
    LimitKind.MONTHLY_TOKEN_BUDGET: "monthly token budget",
}


def format_duration(ms: int) -> str:
    """OpenAI's reset format: '20ms', '1s', '1.5s', '6m0s', '1h2m3s'."""
    if ms < 1000:
        return f"{ms}ms"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds = f"{rest / 1000:.3f}".rstrip("0").rstrip(".")
    if hours:
        return f"{hours}h{minutes}m{seconds}s"
    if minutes:
        return f"{minutes}m{seconds}s"
    return f"{seconds}s"


def rate_limit_headers(admission: Admission) -> dict[str, str]:
    """All six x-ratelimit-* headers for every response (admitted or refused), plus Retry-After / retry-after-ms
    on a refusal that can clear. A dimension without a limit shows ``UNLIMITED``; a degraded admission (the store
    unreachable, the policy failing open: nothing is metered) shows each limit in force as fully available."""
    headers: dict[str, str] = {}
    _add_status(headers, "requests", admission.requests or _unmetered(admission, "requests_per_minute"))
    _add_status(headers, "tokens", admission.tokens or _unmetered(admission, "tokens_per_minute"))
    refusal = admission.refusal
    if refusal is not None and refusal.retry_after_ms is not None:
        headers["retry-after"] = str(max(1, math.ceil(refusal.retry_after_ms / 1000)))
        headers["retry-after-ms"] = str(refusal.retry_after_ms)
    return headers


def refusal_message(refusal: Refusal) -> str:
    what = _DESCRIPTIONS[refusal.kind]
    owner = "API key" if refusal.scope.value == "key" else "tenant"
    text = f"Rate limit reached for this {owner} on {what}: limit {refusal.limit}, requested {refusal.requested}."
    if refusal.retry_after_ms is None:
        return text + " This request can never fit within the limit; reduce it or ask for a higher limit."
    return text + f" Please try again in {format_duration(refusal.retry_after_ms)}."


def refusal_body(admission: Admission) -> dict[str, dict[str, str | None]]:
    refusal = admission.refusal
    if refusal is None:
        raise ValueError("refusal_body needs a refused admission")
    quota = refusal.kind is LimitKind.MONTHLY_TOKEN_BUDGET
    return {
        "error": {
            "message": refusal_message(refusal),
            # OpenAI's own values: 'requests' / 'tokens' rate limits, 'insufficient_quota' for spent budgets.
            "type": "insufficient_quota" if quota else _error_type(refusal.kind),
            "param": None,
            "code": "insufficient_quota" if quota else "rate_limit_exceeded",
        }
    }


def refusal_response(admission: Admission) -> JSONResponse:
    """The 429 for a refused admission."""
    return JSONResponse(status_code=429, content=refusal_body(admission), headers=rate_limit_headers(admission))


def unavailable_response(error: RateLimiterUnavailable) -> JSONResponse:
    """The 503 when the limiter's store is down and the policy fails closed."""
    body = {
        "error": {
            "message": f"{error}. Requests are refused until it is back (this tenant's policy fails closed).",
            "type": "service_unavailable",
            "param": None,
            "code": "rate_limiter_unavailable",
        }
    }
    return JSONResponse(status_code=503, content=body, headers={"retry-after": "1"})


def _error_type(kind: LimitKind) -> str:
    return "tokens" if kind is LimitKind.TOKENS_PER_MINUTE else "requests"


def _unmetered(admission: Admission, dimension: str) -> LimitStatus:
    """What a dimension shows when its limiter reported no status: its tightest limit in force, all of it left."""
    scopes: list[RateLimits] = [admission.limits, *([admission.key_limits] if admission.key_limits else [])]
    limits = [value for scope in scopes if (value := getattr(scope, dimension)) is not None]
    if not limits:
        return UNLIMITED
    return LimitStatus(limit=min(limits), remaining=min(limits), reset_ms=0)


def _add_status(headers: dict[str, str], dimension: str, status: LimitStatus) -> None:
    headers[f"x-ratelimit-limit-{dimension}"] = str(status.limit)
    headers[f"x-ratelimit-remaining-{dimension}"] = str(status.remaining)
    headers[f"x-ratelimit-reset-{dimension}"] = format_duration(status.reset_ms)
