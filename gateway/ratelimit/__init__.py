"""Rate limits and token quotas: requests/min, tokens/min, concurrent requests and a monthly token budget.

The request path, after auth:
    limits, key_limits = limits_for_key(policy, key_id)
    admission = await limiter.admit(tenant_id, key_id, limits, prompt_tokens + max_tokens, key_limits=key_limits)
    if not admission.admitted: return refusal_response(admission)            # 429
    ... run the request, adding rate_limit_headers(admission) to the response ...
    await limiter.settle(admission, prompt_tokens + completion_tokens)        # or release() if nothing ran
RateLimiterUnavailable from admit() maps to unavailable_response() (503).

An admission's lease is renewed by the process holding it (leases.py); a lease that lapses because its process
died frees its concurrency slot and is charged its whole reservation. overload.py is the per-worker admission gate
(in-flight bound, wait queue, 503 overloaded) and the request deadline, which run before the rate limits.
"""

from gateway.ratelimit.admission import Admission, LimitStatus, MonthlyUsage, Refusal
from gateway.ratelimit.clock import Clock, ManualClock, SystemClock
from gateway.ratelimit.errors import RateLimiterUnavailable
from gateway.ratelimit.factory import build_limiter
from gateway.ratelimit.http import rate_limit_headers, refusal_body, refusal_response, unavailable_response
from gateway.ratelimit.limits import LimitKind, RateLimits, Scope
from gateway.ratelimit.memory import InProcessRateLimiter
from gateway.ratelimit.policy_limits import limits_for_key
from gateway.ratelimit.protocol import RateLimiter
from gateway.ratelimit.redis_limiter import RedisRateLimiter

__all__ = [
    "Admission",
    "Clock",
    "InProcessRateLimiter",
    "LimitKind",
    "LimitStatus",
    "ManualClock",
    "MonthlyUsage",
    "RateLimiter",
    "RateLimiterUnavailable",
    "RateLimits",
    "RedisRateLimiter",
    "Refusal",
    "Scope",
    "SystemClock",
    "build_limiter",
    "limits_for_key",
    "rate_limit_headers",
    "refusal_body",
    "refusal_response",
    "unavailable_response",
]
