"""Tool calls charged to the tenant's token limits: arguments + released result, counted with the engine's tokenizer
(bytes / 4 without an engine), through the gateway's limiters (in-process and Redis); refused with an MCP error and
audited once the budget or the tokens per minute are spent."""

from __future__ import annotations

import math
import uuid
from types import SimpleNamespace
from typing import Any

import orjson
from mcp_support import Served, audit_rows, tenant_with_upstream, warden_client

from engine.loader.source import ModelSource, default_gguf_path
from engine.tokenization.tokenizer import Tokenizer
from gateway.core.db import Database
from gateway.core.settings import Settings
from gateway.keys.auth import Principal
from gateway.mcp.token_meter import TokenCharge, TokenCounter, token_limits
from gateway.mcp.tool_calls import ToolCall, ToolGateway
from gateway.ratelimit import RateLimiter
from policies import Policy


def _call(tenant_id: str, key_id: str) -> ToolCall:
    return ToolCall(principal=Principal(tenant_id=tenant_id, key_id=key_id), name="tools__echo",
                    request_id="req_test", arguments_sha256="0" * 64)


def test_only_token_limits_apply_and_none_means_the_limiter_is_not_consulted() -> None:
    assert token_limits(Policy(), "k" * 16) is None
    assert token_limits(Policy.model_validate({"rate_limits": {"requests_per_minute": 5,
                                                                "max_concurrent_requests": 1}}), "k" * 16) is None
    limits = token_limits(Policy.model_validate({"rate_limits": {"requests_per_minute": 5, "tokens_per_minute": 100,
                                                                 "max_concurrent_requests": 1}}), "k" * 16)
    assert limits is not None
    tenant, key = limits
    assert (tenant.requests_per_minute, tenant.max_concurrent_requests, tenant.tokens_per_minute) == (None, None, 100)
    assert key is None
    override = Policy.model_validate({"key_overrides": {"k" * 16: {"rate_limits": {"monthly_token_budget": 50}}}})
    limits = token_limits(override, "k" * 16)
    assert limits is not None and limits[1] is not None and limits[1].monthly_token_budget == 50
    assert token_limits(override, "j" * 16) is None  # another key of the same tenant: no limits at all


async def test_counting_uses_the_engine_tokenizer_and_falls_back_to_bytes_over_four() -> None:
    value = {"text": "The quarterly report is attached; please summarize its risks. " * 4}
    raw = orjson.dumps(value)
    assert await TokenCounter(None).count(value) == math.ceil(len(raw) / 4)
    tokenizer = Tokenizer.from_source(ModelSource(kind="gguf", path=default_gguf_path(), served_name="smol"))
    counted = await TokenCounter(tokenizer).count(value)
    assert counted == len(tokenizer.encode(raw.decode())) and counted != math.ceil(len(raw) / 4)
    big = {"text": "word " * 20_000}  # past the thread threshold: the same count, off the event loop
    assert await TokenCounter(tokenizer).count(big) == len(tokenizer.encode(orjson.dumps(big).decode()))


async def test_a_calls_size_is_charged_and_a_spent_budget_refuses_the_next(limiter: RateLimiter) -> None:
    gateway = ToolGateway(SimpleNamespace(limiter=limiter, engine=None), directory=None,  # type: ignore[arg-type]
                          clients=None)  # type: ignore[arg-type]
    tenant, key = str(uuid.uuid4()), "k" * 16
    policy = Policy.model_validate({"rate_limits": {"monthly_token_budget": 100}})
    limits = token_limits(policy, key)
    assert limits is not None
    arguments = {"text": "x" * 100}  # 112 bytes of JSON: 28 tokens
    charge = await gateway._admit_tokens(_call(tenant, key), limits, arguments)
    assert isinstance(charge, TokenCharge) and charge.arguments_tokens == 28
    charge.arguments_sent, charge.result_tokens = True, 50
    await gateway._settle_tokens(charge)
    await gateway._settle_tokens(charge)  # settling twice charges once
    assert charge.decision["charged_tokens"] == 78
    assert (await limiter.monthly_usage(tenant)).used_tokens == 78
    refused = await gateway._admit_tokens(_call(tenant, key), limits, arguments)
    assert isinstance(refused, tuple) and refused[0] == "token_budget_exhausted"
    assert refused[1].is_error and (refused[1].meta or {})["warden/error"] == "token_budget_exhausted"
    assert "monthly token budget" in refused[1].content[0].text.lower()  # type: ignore[union-attr]
    # A call whose arguments never left Warden (blocked before the upstream) is charged nothing.
    other = str(uuid.uuid4())
    unsent = await gateway._admit_tokens(_call(other, key), limits, arguments)
    assert isinstance(unsent, TokenCharge)
    await gateway._settle_tokens(unsent)
    assert (await limiter.monthly_usage(other)).used_tokens == 0


async def test_tokens_per_minute_refuse_with_their_own_code(limiter: RateLimiter) -> None:
    gateway = ToolGateway(SimpleNamespace(limiter=limiter, engine=None), directory=None,  # type: ignore[arg-type]
                          clients=None)  # type: ignore[arg-type]
    limits = token_limits(Policy.model_validate({"rate_limits": {"tokens_per_minute": 40}}), "k" * 16)
    assert limits is not None
    tenant = str(uuid.uuid4())
    charge = await gateway._admit_tokens(_call(tenant, "k" * 16), limits, {"text": "x" * 100})
    assert isinstance(charge, TokenCharge)
    charge.arguments_sent, charge.result_tokens = True, 30  # 58 tokens: past the minute's 40, into debt
    await gateway._settle_tokens(charge)
    refused = await gateway._admit_tokens(_call(tenant, "k" * 16), limits, {"text": "y"})
    assert isinstance(refused, tuple) and refused[0] == "token_rate_limited"


def _token_decisions(db: Database, tenant_id: str, count: int) -> list[tuple[str | None, dict[str, Any]]]:
    return [(row.error_type, next(d for d in row.decisions if d.get("stage") == "tool_tokens"))
            for row in audit_rows(db, tenant_id, "mcp.tools/call", count)]


async def test_through_warden_a_spent_budget_refuses_tool_calls_and_audits_them(
        db: Database, warden_settings: Settings, warden: Served, upstream: Served) -> None:
    text = "a" * 400  # arguments about 103 tokens (bytes / 4: this Warden runs without an engine)
    tenant_id, issued = tenant_with_upstream(db, warden_settings, warden, upstream,
                                             {"rate_limits": {"monthly_token_budget": 300}})
    async with warden_client(warden.base, issued.api_key) as client:
        first = await client.call_tool("tools__echo", {"text": text})
        second = await client.call_tool("tools__echo", {"text": text})
    assert not first.is_error
    assert second.is_error and (second.meta or {})["warden/error"] == "token_budget_exhausted"
    (ok_error, charged), (refused_error, refused) = _token_decisions(db, tenant_id, 2)
    assert ok_error is None and charged["counted_with"] == "bytes/4"
    assert charged["arguments_tokens"] == math.ceil(len(orjson.dumps({"text": text})) / 4)
    assert charged["result_tokens"] >= 100  # the echoed text came back in the result
    assert charged["charged_tokens"] == charged["arguments_tokens"] + charged["result_tokens"]
    assert refused_error == "token_budget_exhausted"
    assert (refused["decision"], refused["limit"]) == ("refused", "monthly_token_budget")
    services = warden.app.state.services
    assert (await services.limiter.monthly_usage(tenant_id)).used_tokens == charged["charged_tokens"]
