"""A tool call's size charged to the tenant's token limits (tokens per minute, monthly token budget) through the
same limiter and counters as model calls.

A call's size is its arguments plus its result as released to the client (what enters the agent's context),
counted with the tokenizer the gateway counts prompts with (the engine's), or as UTF-8 bytes / 4, rounded up, when
the gateway runs without an engine. As on ``/v1``, the call is admitted against the limits with its arguments
reserved, and settled with what it used once it ends: a call is refused when the tenant's (or its key's) token
limits are spent, and a result that outgrows what is left drives the bucket into the limiter's bounded debt, so the
next call waits. Only the token dimensions apply: a tool call is never refused for requests per minute or
concurrency, though while it runs its lease counts among the tenant's calls in flight, like any admission.
A tenant without token limits pays nothing here: the limiter is not consulted.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Protocol

import orjson
from starlette.concurrency import run_in_threadpool

from gateway.ratelimit.admission import Admission
from gateway.ratelimit.limits import RateLimits
from gateway.ratelimit.policy_limits import limits_for_key
from policies import Policy

# Longer texts are tokenized on a worker thread: encoding a large result would hold the event loop for
# milliseconds.
THREAD_TOKENIZE_BYTES = 64 * 1024


class Encodes(Protocol):
    def encode(self, text: str, add_special_tokens: bool = ...) -> list[int]: ...


def token_limits(policy: Policy, key_id: str) -> tuple[RateLimits, RateLimits | None] | None:
    """The tenant's and the key's token limits alone (requests and concurrency left unlimited); None when neither
    limits tokens."""
    tenant, key = limits_for_key(policy, key_id)

    def tokens_only(limits: RateLimits) -> RateLimits:
        return dataclasses.replace(limits, requests_per_minute=None, max_concurrent_requests=None)

    tenant = tokens_only(tenant)
    key = tokens_only(key) if key is not None else None
    if tenant.unlimited and (key is None or key.unlimited):
        return None
    return tenant, key


class TokenCounter:
    """Tokens of a JSON value's compact serialization: the engine's tokenizer when there is one, else bytes / 4."""

    def __init__(self, tokenizer: Encodes | None) -> None:
        self._tokenizer = tokenizer

    @property
    def method(self) -> str:
        return "tokenizer" if self._tokenizer is not None else "bytes/4"

    async def count(self, value: Any) -> int:
        if value is None:
            return 0
        raw = orjson.dumps(value)
        tokenizer = self._tokenizer
        if tokenizer is None:
            return math.ceil(len(raw) / 4)
        text = raw.decode()
        if len(raw) > THREAD_TOKENIZE_BYTES:
            return len(await run_in_threadpool(tokenizer.encode, text, add_special_tokens=False))
        return len(tokenizer.encode(text, add_special_tokens=False))


@dataclasses.dataclass(slots=True)
class TokenCharge:
    """One call's admission and what it is charged; ``decision`` is the call's audit entry, kept current."""

    admission: Admission
    arguments_tokens: int
    decision: dict[str, Any]
    result_tokens: int = 0
    arguments_sent: bool = False
    settled: bool = False

    @property
    def used(self) -> int:
        """What the call consumed: nothing when its arguments never left Warden."""
        return self.arguments_tokens + self.result_tokens if self.arguments_sent else 0
