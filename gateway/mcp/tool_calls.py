"""The governed path of a tool call through Warden, and the aggregated tool listing.

``tools/call``, in order: the namespaced name is resolved to a registered server of the caller's tenant; the
tenant's tool policy (with the key's override) allows or denies it, and may require an approval flag in ``_meta``;
the arguments must satisfy every matching rule's JSON Schema; per-tool rate limits are taken; the call is admitted
against the tenant's token limits and charged its size (``gateway.mcp.token_meter``); arguments are
PII-screened when the policy asks; the upstream is called under the server's timeout; the result's size is capped,
its text PII-masked and screened for prompt injection. Every outcome, allowed or refused, is one record in the
tenant's audit chain. A refusal is an MCP error result (``isError: true``) whose text says why and whose ``_meta``
carries ``warden/error`` (a code) and ``warden/request_id``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import anyio
import jsonschema
import mcp_types as types
import orjson
from jsonschema.exceptions import SchemaError
from mcp.shared.exceptions import MCPError

from gateway.audit.chain import canonical_json
from gateway.audit.event import AuditEvent
from gateway.audit.writer import AuditUnavailableError
from gateway.core.clock import utcnow
from gateway.core.errors import StoreUnavailable
from gateway.keys.auth import Principal
from gateway.lifecycle import Lifecycle
from gateway.mcp.guard import screen_arguments, screen_result
from gateway.mcp.registry import UpstreamDirectory, UpstreamServer
from gateway.mcp.token_meter import TokenCharge, TokenCounter, token_limits
from gateway.mcp.upstream import UpstreamClients, UpstreamError
from gateway.openai.call_record import CLIENT_CLOSED_REQUEST, SHUTDOWN
from gateway.openai.engine_call import run_shielded
from gateway.ratelimit.errors import RateLimiterUnavailable
from gateway.ratelimit.http import refusal_message
from gateway.ratelimit.limits import LimitKind, RateLimits
from policies import AuditContent, Policy, effective_policy
from policies.tools import CallVerdict, decide_call, namespaced, server_allowed, split_namespaced, tool_allowed

log = logging.getLogger(__name__)

ENDPOINT = "mcp.tools/call"
LIST_ENDPOINT = "mcp.tools/list"
ERROR_META_KEY = "warden/error"
REQUEST_ID_META_KEY = "warden/request_id"
# Audited HTTP-like status per outcome: what a client of /v1 would have seen for the same refusal.
_STATUS = {
    "ok": 200, "tool_error": 200, "unknown_tool": 404, "denied": 403, "approval_required": 403,
    "invalid_arguments": 400, "policy_invalid": 500, "rate_limited": 429, "limiter_unavailable": 503,
    "token_rate_limited": 429, "token_budget_exhausted": 429,
    "arguments_blocked": 400, "result_blocked": 422, "result_too_large": 502, "upstream_timeout": 504,
    "upstream_error": 502, "upstream_unavailable": 502, "upstream_refused": 502, "audit_unavailable": 503,
    "store_unavailable": 503, SHUTDOWN: 503, "client_closed": CLIENT_CLOSED_REQUEST,
}


def sha256_hex(value: Any) -> str:
    return hashlib.sha256(canonical_json(value)).hexdigest()


@dataclass(slots=True)
class ToolCall:
    """One call as it moves through the gateway: what its audit record says."""

    principal: Principal
    name: str
    request_id: str
    arguments_sha256: str
    started: float = field(default_factory=time.perf_counter)
    policy_version: int | None = None
    server: UpstreamServer | None = None
    tool: str | None = None
    decisions: list[dict[str, Any]] = field(default_factory=list)
    upstream_ms: float = 0.0
    result_bytes: int | None = None
    result_sha256: str | None = None
    # What the audit record may hold of the call's content (the tenant's policy; None until the policy is read:
    # hashes only), and that content: the arguments as received and as sent upstream, the upstream's result and
    # the result as released to the client.
    audit_content: AuditContent | None = None
    arguments: dict[str, Any] | None = None
    arguments_sent: dict[str, Any] | None = None
    result_raw: dict[str, Any] | None = None
    result_released: dict[str, Any] | None = None

    def event(self, outcome: str) -> AuditEvent:
        elapsed_ms = (time.perf_counter() - self.started) * 1000
        call = {"stage": "tool_call", "decision": "allowed" if outcome in ("ok", "tool_error") else "refused",
                "status": outcome, "server": self.server.name if self.server else None,
                "server_version": self.server.version if self.server else None,
                "server_scope": self.server.scope if self.server else None, "tool": self.tool,
                "arguments_sha256": self.arguments_sha256, "result_bytes": self.result_bytes,
                "upstream_ms": round(self.upstream_ms, 3)}
        return AuditEvent(
            created_at=utcnow(), request_id=self.request_id, endpoint=ENDPOINT, http_status=_STATUS[outcome],
            latency_ms=round(elapsed_ms, 3), overhead_ms=round(max(0.0, elapsed_ms - self.upstream_ms), 3),
            tenant_id=self.principal.tenant_id, key_id=self.principal.key_id, model=self.name[:200],
            error_type=None if outcome == "ok" else outcome, policy_version=self.policy_version,
            decisions=[call, *self.decisions], content=self._content(),
        )

    def _content(self) -> dict[str, Any]:
        """The call's content as the tenant's ``audit_content`` allows: ``full`` what was received and returned,
        ``redacted`` only what passed the guardrails (the arguments as sent upstream, the result as released; none
        of a refused result), ``hashes`` digests only."""
        if self.audit_content is AuditContent.FULL:
            return {"mode": "full", "arguments": self.arguments, "result": self.result_raw}
        if self.audit_content is AuditContent.REDACTED:
            return {"mode": "redacted", "arguments": self.arguments_sent, "result": self.result_released}
        content: dict[str, Any] = {"mode": "hashes", "arguments_sha256": self.arguments_sha256}
        if self.result_sha256 is not None:
            content["result_sha256"] = self.result_sha256
        return content


def refusal(code: str, message: str, request_id: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True,
                                _meta={ERROR_META_KEY: code, REQUEST_ID_META_KEY: request_id})


def _limiter_scope(tenant_id: str, rule_key: str) -> str:
    # The tool's counters live beside the tenant's own, under a name no tenant id can take (ids are UUIDs).
    return f"{tenant_id}:tool:{hashlib.sha256(rule_key.encode()).hexdigest()[:16]}"


class ToolGateway:
    def __init__(self, services: Any, directory: UpstreamDirectory, clients: UpstreamClients,
                 lifecycle: Lifecycle | None = None) -> None:
        self._services = services
        self._directory = directory
        self._clients = clients
        self._lifecycle = lifecycle

    @property
    def directory(self) -> UpstreamDirectory:
        return self._directory

    @property
    def clients(self) -> UpstreamClients:
        return self._clients

    @property
    def services(self) -> Any:
        return self._services

    async def policy(self, principal: Principal) -> tuple[Policy, int | None]:
        """The principal's effective policy and its version."""
        return await self._policy(principal)

    async def allowed_servers(self, principal: Principal, policy: Policy) -> list[UpstreamServer]:
        """The tenant's servers in force that the policy allows."""
        return [server for server in await self._servers(principal.tenant_id)
                if server_allowed(policy.tools, server.name)]

    async def _policy(self, principal: Principal) -> tuple[Policy, int | None]:
        active = await self._services.policies.resolve(principal.tenant_id)
        return effective_policy(active.policy, principal.key_id), active.version

    async def _servers(self, tenant_id: str) -> tuple[UpstreamServer, ...]:
        servers = await self._directory.servers(tenant_id)
        self._clients.keeper.reconcile(tenant_id, servers)  # a changed or deleted record's session is closed
        return servers

    async def list_tools(self, principal: Principal, *, request_id: str | None = None) -> types.ListToolsResult:
        """The allowed tools of every allowed server, listed concurrently; a server that fails is left out (and
        logged) rather than failing the listing. Each listing is one audit record: the servers listed, those left
        out, and how many tools were offered."""
        started = time.perf_counter()
        request_id = request_id or f"req_{uuid.uuid4().hex}"
        listing: dict[str, Any] = {"stage": "tool_list", "decision": "allowed"}
        policy_version: int | None = None
        try:
            policy, policy_version = await self._policy(principal)
            servers = [server for server in await self._servers(principal.tenant_id)
                       if server_allowed(policy.tools, server.name)]
        except StoreUnavailable as exc:
            listing.update(decision="refused", reason="store_unavailable")
            await self._record_listing(principal, request_id, started, policy_version, listing, 503)
            raise MCPError(types.INTERNAL_ERROR, exc.message) from None
        listed: dict[str, list[types.Tool]] = {}
        failed: dict[str, str] = {}

        async def list_one(server: UpstreamServer) -> None:
            try:
                listed[server.name] = await self._clients.list_tools(server)
            except UpstreamError as exc:
                failed[server.name] = exc.code
                log.warning("tools/list: upstream %s left out (%s)", server.name, exc.code)

        async with anyio.create_task_group() as group:
            for server in servers:
                group.start_soon(list_one, server)
        tools = [tool.model_copy(update={"name": namespaced(server.name, tool.name)})
                 for server in servers for tool in listed.get(server.name, [])
                 if tool_allowed(policy.tools, server.name, tool.name)]
        listing.update(servers=sorted(listed), failed=dict(sorted(failed.items())), tools=len(tools))
        await self._record_listing(principal, request_id, started, policy_version, listing, 200)
        return types.ListToolsResult(tools=tools)

    async def _record_listing(self, principal: Principal, request_id: str, started: float,
                              policy_version: int | None, listing: dict[str, Any], status: int) -> None:
        elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
        event = AuditEvent(created_at=utcnow(), request_id=request_id, endpoint=LIST_ENDPOINT, http_status=status,
                           latency_ms=elapsed_ms, overhead_ms=elapsed_ms, tenant_id=principal.tenant_id,
                           key_id=principal.key_id, error_type=None if status == 200 else "store_unavailable",
                           policy_version=policy_version, decisions=[listing])
        try:
            await self._services.audit.record(event)
        except AuditUnavailableError:
            # Fail closed like a call: nothing is answered whose record cannot be made durable.
            raise MCPError(types.INTERNAL_ERROR, "the audit trail is unavailable; the listing is withheld") from None

    async def call_tool(self, principal: Principal, params: types.CallToolRequestParams, *,
                        request_id: str | None) -> types.CallToolResult:
        """The governed call, run in a task of its own that the gateway's shutdown can cut at the end of its grace
        period: a cut call is audited as ``shutdown`` and answered with an MCP error result; a call whose client
        went away is audited as ``client_closed``. No call ends without its record."""
        arguments = params.arguments or {}
        call = ToolCall(principal=principal, name=params.name, request_id=request_id or f"req_{uuid.uuid4().hex}",
                        arguments_sha256=sha256_hex(arguments), arguments=arguments)
        work = asyncio.ensure_future(self._guarded_call(call, params, arguments))
        if self._lifecycle is not None:
            self._lifecycle.track(work)
        try:
            outcome, result = await asyncio.shield(work)
        except asyncio.CancelledError:
            if not work.cancelled() or self._lifecycle is None or not self._lifecycle.cutting:
                # The caller is being cancelled (its client or session went away): the call goes with it, and its
                # record is written now, without awaiting, as the cancelled task may not await again.
                work.cancel()
                self._record_now(call, "client_closed")
                raise
            outcome, result = SHUTDOWN, refusal(SHUTDOWN, "the gateway is shutting down; the tool call was cut "
                                                "before it finished (it may have run upstream)", call.request_id)
            self._record_now(call, outcome)
            return result
        try:
            await self._services.audit.record(call.event(outcome))
        except AuditUnavailableError:
            # Fail closed like /v1: a result whose record cannot be made durable is not released.
            return refusal("audit_unavailable", "the audit trail is unavailable; the result is withheld",
                           call.request_id)
        meta = dict(result.meta or {})
        meta[REQUEST_ID_META_KEY] = call.request_id
        return result.model_copy(update={"meta": meta})

    def _record_now(self, call: ToolCall, outcome: str) -> None:
        try:
            self._services.audit.record_sync(call.event(outcome))
        except AuditUnavailableError:
            log.error("the audit record of a tool call cut short could not be made durable")

    async def _guarded_call(self, call: ToolCall, params: types.CallToolRequestParams,
                            arguments: dict[str, Any]) -> tuple[str, types.CallToolResult]:
        try:
            return await self._governed_call(call, params, arguments)
        except StoreUnavailable as exc:  # policy or registry unreadable: refused, audited, never a crash
            return "store_unavailable", refusal("store_unavailable", exc.message, call.request_id)

    async def _governed_call(self, call: ToolCall, params: types.CallToolRequestParams,
                             arguments: dict[str, Any]) -> tuple[str, types.CallToolResult]:
        request_id = call.request_id
        policy, call.policy_version = await self._policy(call.principal)
        call.audit_content = policy.audit_content
        parts = split_namespaced(params.name)
        servers = {server.name: server for server in await self._servers(call.principal.tenant_id)}
        if parts is None or parts[0] not in servers:
            return "unknown_tool", refusal("unknown_tool", f"unknown tool {params.name[:200]!r}", request_id)
        server_name, tool = parts
        call.server, call.tool = servers[server_name], tool

        decision = decide_call(policy.tools, server_name, tool, dict(params.meta) if params.meta else None)
        if decision.verdict is CallVerdict.DENIED:
            call.decisions.append({"stage": "tool_policy", "decision": "denied"})
            return "denied", refusal("denied", decision.reason, request_id)
        if decision.verdict is CallVerdict.NEEDS_APPROVAL:
            call.decisions.append({"stage": "tool_policy", "decision": "approval_required"})
            return "approval_required", refusal("approval_required", decision.reason, request_id)

        for rule_key, schema in decision.schemas:
            problem = _schema_problem(schema, arguments)
            if problem is not None:
                kind, message = problem
                call.decisions.append({"stage": "tool_arguments", "decision": "refused", "rule": rule_key})
                text = (f"arguments violate the policy's constraint for {rule_key!r}: {message}" if kind == "invalid"
                        else f"the policy's argument schema for {rule_key!r} is not a valid JSON Schema")
                return ("invalid_arguments" if kind == "invalid" else "policy_invalid"), \
                    refusal("invalid_arguments" if kind == "invalid" else "policy_invalid", text, request_id)

        for rule_key, per_minute in decision.rate_limits:
            limited = await self._rate_limited(call, rule_key, per_minute)
            if limited is not None:
                return limited

        limits = token_limits(policy, call.principal.key_id)
        if limits is None:
            return await self._screened_call(call, policy, params, tool, arguments, None)
        admitted = await self._admit_tokens(call, limits, arguments)
        if not isinstance(admitted, TokenCharge):
            return admitted
        try:
            return await self._screened_call(call, policy, params, tool, arguments, admitted)
        finally:
            await run_shielded(self._settle_tokens(admitted))

    async def _screened_call(self, call: ToolCall, policy: Policy, params: types.CallToolRequestParams, tool: str,
                             arguments: dict[str, Any], charge: TokenCharge | None) -> tuple[str, types.CallToolResult]:
        """The allowed call: arguments screened, sent upstream, the result capped, screened and released."""
        assert call.server is not None
        request_id = call.request_id
        screened_args = await screen_arguments(self._services.input_guard, call.principal.tenant_id, policy,
                                               arguments)
        call.decisions.extend(screened_args.decisions)
        if screened_args.blocked_reason is not None:
            return "arguments_blocked", refusal("arguments_blocked", screened_args.blocked_reason, request_id)

        call.arguments_sent = screened_args.value
        meta = {key: value for key, value in (params.meta or {}).items() if not key.startswith("io.modelcontext")}
        started = time.perf_counter()
        if charge is not None:
            charge.arguments_sent = True
        try:
            result = await self._clients.call_tool(call.server, tool, screened_args.value, meta)
        except UpstreamError as exc:
            return exc.code, refusal(exc.code, exc.message, request_id)
        finally:
            call.upstream_ms = (time.perf_counter() - started) * 1000

        dumped = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        raw = orjson.dumps(dumped)
        call.result_raw = dumped
        call.result_bytes = len(raw)
        call.result_sha256 = hashlib.sha256(raw).hexdigest()
        if len(raw) > policy.tools.max_result_bytes:
            call.decisions.append({"stage": "tool_result", "decision": "refused", "reason": "size",
                                   "limit_bytes": policy.tools.max_result_bytes})
            return "result_too_large", refusal(
                "result_too_large", f"the tool's result ({len(raw)} bytes) is larger than the policy allows "
                f"({policy.tools.max_result_bytes} bytes)", request_id)

        released, screened = await screen_result(self._services.input_guard, call.principal.tenant_id, policy, result)
        call.decisions.extend(screened.decisions)
        if screened.blocked_reason is not None:
            return "result_blocked", refusal("result_blocked", f"the tool's result was blocked: "
                                             f"{screened.blocked_reason}", request_id)
        if screened.injection_flagged:
            meta_out = dict(released.meta or {})
            meta_out["warden/injection_flagged"] = True
            released = released.model_copy(update={"meta": meta_out})
        call.result_released = released.model_dump(mode="json", by_alias=True, exclude_none=True)
        if charge is not None:
            charge.result_tokens = await self._counter().count(call.result_released)
        return ("tool_error" if result.is_error else "ok"), released

    def _counter(self) -> TokenCounter:
        # The engine's tokenizer, read per call: the engine may attach after the endpoint starts.
        return TokenCounter(getattr(self._services.engine, "tokenizer", None))

    async def _admit_tokens(self, call: ToolCall, limits: tuple[RateLimits, RateLimits | None],
                            arguments: dict[str, Any]) -> TokenCharge | tuple[str, types.CallToolResult]:
        """The call admitted against the tenant's token limits with its arguments reserved, or its refusal."""
        counter = self._counter()
        tokens = await counter.count(arguments)
        tenant_limits, key_limits = limits
        decision: dict[str, Any] = {"stage": "tool_tokens", "counted_with": counter.method,
                                    "arguments_tokens": tokens}
        call.decisions.append(decision)
        try:
            admission = await self._services.limiter.admit(call.principal.tenant_id, call.principal.key_id,
                                                           tenant_limits, tokens, key_limits=key_limits)
        except RateLimiterUnavailable:
            decision["decision"] = "unavailable"
            return "limiter_unavailable", refusal("limiter_unavailable", "the rate limiter is unavailable",
                                                  call.request_id)
        decision.update(admission.audit_decision())
        if not admission.admitted:
            limit = admission.refusal
            code = ("token_budget_exhausted" if limit is not None and limit.kind is LimitKind.MONTHLY_TOKEN_BUDGET
                    else "token_rate_limited")
            why = refusal_message(limit) if limit is not None else "the token limits are spent."
            return code, refusal(code, f"the tool call ({tokens} tokens of arguments) does not fit the token "
                                 f"limits: {why}", call.request_id)
        return TokenCharge(admission, tokens, decision)

    async def _settle_tokens(self, charge: TokenCharge) -> None:
        if charge.settled:
            return
        charge.settled = True
        charge.decision.update(result_tokens=charge.result_tokens, charged_tokens=charge.used)
        if not charge.admission.degraded:
            await self._services.limiter.settle(charge.admission, charge.used)

    async def _rate_limited(self, call: ToolCall, rule_key: str,
                            per_minute: int) -> tuple[str, types.CallToolResult] | None:
        limiter = self._services.limiter
        scope = _limiter_scope(call.principal.tenant_id, rule_key)
        try:
            admission = await limiter.admit(scope, "tool", RateLimits(requests_per_minute=per_minute), 0)
        except RateLimiterUnavailable:
            call.decisions.append({"stage": "tool_rate_limit", "decision": "unavailable", "rule": rule_key})
            return "limiter_unavailable", refusal("limiter_unavailable", "the rate limiter is unavailable",
                                                  call.request_id)
        await limiter.release(admission)  # only the request count matters: no slot is held during the call
        if admission.admitted:
            return None
        retry_ms = admission.refusal.retry_after_ms if admission.refusal else None
        call.decisions.append({"stage": "tool_rate_limit", "decision": "refused", "rule": rule_key,
                               "limit": per_minute})
        after = f"; retry in {retry_ms / 1000:.1f} s" if retry_ms is not None else ""
        return "rate_limited", refusal("rate_limited", f"rate limit of {per_minute} calls per minute for "
                                       f"{rule_key!r} reached{after}", call.request_id)


@lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Any:
    """A checked validator per distinct schema (checking and building one costs milliseconds: once, not per call)."""
    schema = orjson.loads(schema_json)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    return validator_class(schema)


def _schema_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> tuple[str, str] | None:
    """None when the arguments satisfy the schema; ("invalid", why) or ("schema", why) otherwise."""
    try:
        validator = _validator(canonical_json(schema).decode())
    except SchemaError as exc:
        return "schema", exc.message[:300]
    error = jsonschema.exceptions.best_match(validator.iter_errors(arguments))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(root)"
    return "invalid", f"at {where}: {error.message[:300]}"
