"""Per-tool call limits through the gateway's limiters: the in-process one and Redis (shared by every worker)."""

from __future__ import annotations

import uuid
from types import SimpleNamespace

from gateway.keys.auth import Principal
from gateway.mcp.tool_calls import ToolCall, ToolGateway
from gateway.ratelimit import RateLimiter


def _call(tenant_id: str) -> ToolCall:
    return ToolCall(principal=Principal(tenant_id=tenant_id, key_id="k" * 16), name="github__search",
                    request_id="req_test", arguments_sha256="0" * 64)


async def test_each_rule_counts_per_tenant_and_refuses_past_its_limit(limiter: RateLimiter) -> None:
    gateway = ToolGateway(SimpleNamespace(limiter=limiter), directory=None, clients=None)  # type: ignore[arg-type]
    tenant, other = str(uuid.uuid4()), str(uuid.uuid4())
    outcomes = [await gateway._rate_limited(_call(tenant), "github__*", 3) for _ in range(4)]
    assert outcomes[:3] == [None, None, None]
    refused = outcomes[3]
    assert refused is not None and refused[0] == "rate_limited"
    assert refused[1].is_error and (refused[1].meta or {})["warden/error"] == "rate_limited"
    # Another rule and another tenant have counters of their own.
    assert await gateway._rate_limited(_call(tenant), "github__search", 3) is None
    assert await gateway._rate_limited(_call(other), "github__*", 3) is None
