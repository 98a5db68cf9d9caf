"""A call admitted by the in-process limiter is settled by the request path itself, at once (SettlesAtOnce): its
tokens are charged and its concurrency slot freed before the handler goes on, as the settlement task did before the
response; a limiter with a store to wait for (Redis) is still settled in a task of its own."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from gateway.openai.call_record import CallRecord
from gateway.openai.service import CallHandler, Prepared, settles_at_once
from gateway.ratelimit import Admission, InProcessRateLimiter, ManualClock, RateLimits

LIMITS = RateLimits(tokens_per_minute=10_000, max_concurrent_requests=1, monthly_token_budget=1_000_000)


def _handler(limiter: Any, prompt_tokens: int, completion_tokens: int) -> CallHandler:
    handler = CallHandler.__new__(CallHandler)  # only what settling reads: the limiter and the call's usage
    handler.services = SimpleNamespace(limiter=limiter)  # type: ignore[assignment]
    handler.record = CallRecord.__new__(CallRecord)
    handler.record.prompt_tokens, handler.record.completion_tokens = prompt_tokens, completion_tokens
    return handler


def _prepared(admission: Admission) -> Prepared:
    return Prepared(meta=None, request=None, engine_requests=[], filters=[], admission=admission)  # type: ignore[arg-type]


async def test_the_in_process_limiter_is_settled_before_the_handler_goes_on() -> None:
    limiter = InProcessRateLimiter(clock=ManualClock(1_700_000_000_000))
    admission = await limiter.admit("acme", "k1", LIMITS, 500)
    prepared = _prepared(admission)
    assert settles_at_once(limiter)
    assert _handler(limiter, 120, 80)._start_settling(prepared) is None  # nothing left to await
    usage = await limiter.monthly_usage("acme")
    assert (usage.used_tokens, usage.reserved_tokens) == (200, 0)
    assert (await limiter.admit("acme", "k1", LIMITS, 500)).admitted  # its concurrency slot is free
    assert _handler(limiter, 120, 80)._start_settling(prepared) is None and prepared.settled  # settled once


async def test_settle_now_accounts_as_settle_does() -> None:
    outcomes = []
    for settle_at_once in (False, True):
        limiter = InProcessRateLimiter(clock=ManualClock(1_700_000_000_000))
        first = await limiter.admit("acme", "k1", LIMITS, 500)
        second = await limiter.admit("acme", "k1", LIMITS, 500)  # refused: one call at a time
        settled = [limiter.settle_now(a, 700) if settle_at_once else await limiter.settle(a, 700)
                   for a in (first, second, first)]  # over the reservation; the refused one and the second time: no-op
        following = await limiter.admit("acme", "k1", LIMITS, 100)
        usage = await limiter.monthly_usage("acme")
        outcomes.append((settled, following.tokens, (usage.used_tokens, usage.reserved_tokens)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[1][0] == [True, False, False]


class _StoreLimiter:
    """A limiter whose settlement waits on a store (no settle_now)."""

    def __init__(self) -> None:
        self.settled: list[int] = []

    async def settle(self, admission: Admission, used_tokens: int) -> bool:
        await asyncio.sleep(0)
        self.settled.append(used_tokens)
        return True


async def test_a_limiter_with_a_store_is_settled_in_a_task() -> None:
    limiter = _StoreLimiter()
    admission = await InProcessRateLimiter().admit("acme", "k1", LIMITS, 10)
    assert not settles_at_once(limiter)
    settling = _handler(limiter, 3, 4)._start_settling(_prepared(admission))
    assert settling is not None and limiter.settled == []
    assert await settling is True and limiter.settled == [7]
