"""``resources/list|read``, ``resources/templates/list`` and ``prompts/list|get`` of the tenant's allowed upstream
servers, passed through Warden: prompts namespaced like tools (``<server>__<prompt>``), resources under a URI of
Warden's own (``warden://<server>/<the upstream's URI, percent-encoded>``), resource templates likewise (literal text
encoded, expressions kept: see ``namespaced_template``). What comes back is screened like a tool's result
(the tool policy's result PII masking and injection action, its size cap) before it is released, and each
operation is one record in the tenant's audit chain. A refusal is a JSON-RPC error whose message says why.
"""

from __future__ import annotations

import hashlib
import re
import time
import uuid
from typing import Any, NoReturn
from urllib.parse import quote, unquote, urlsplit

import anyio
import mcp_types as types
import orjson
from mcp.shared.exceptions import MCPError

from gateway.audit.event import AuditEvent
from gateway.audit.writer import AuditUnavailableError
from gateway.core.clock import utcnow
from gateway.core.errors import StoreUnavailable
from gateway.keys.auth import Principal
from gateway.mcp.guard import screen_texts
from gateway.mcp.registry import UpstreamServer
from gateway.mcp.tool_calls import ToolGateway
from gateway.mcp.upstream import UpstreamError
from policies import Policy
from policies.tools import namespaced, split_namespaced, valid_server_name

RESOURCE_SCHEME = "warden"
_EXPRESSION = re.compile(r"\{[^{}]*\}")


def namespaced_uri(server: str, uri: str) -> str:
    return f"{RESOURCE_SCHEME}://{server}/{quote(uri, safe='')}"


def namespaced_template(server: str, template: str) -> str:
    """An upstream's URI template (RFC 6570) as one of Warden's: its literal text percent-encoded like a namespaced
    URI, its expressions kept, so a client's expansion is a ``warden://`` URI that ``split_uri`` maps back to the
    upstream's expansion. Expanded values are decoded once on the way back: a value holding percent-encoded
    characters reaches the upstream decoded."""
    parts = _EXPRESSION.split(template)
    expressions = _EXPRESSION.findall(template)
    encoded = [quote(literal, safe="") for literal in parts]
    return f"{RESOURCE_SCHEME}://{server}/" + "".join(
        literal + expression for literal, expression in zip(encoded, [*expressions, ""], strict=True))


def split_uri(uri: str) -> tuple[str, str] | None:
    """``warden://<server>/<encoded URI>`` -> (server, upstream URI); None for a URI that is not one of Warden's."""
    parts = urlsplit(uri)
    original = unquote(parts.path.removeprefix("/"))
    if parts.scheme != RESOURCE_SCHEME or not parts.netloc or not valid_server_name(parts.netloc) or not original:
        return None
    return parts.netloc, original


class Passthrough:
    def __init__(self, gateway: ToolGateway) -> None:
        self._gateway = gateway

    async def list_resources(self, principal: Principal, request_id: str | None) -> types.ListResourcesResult:
        async def one(server: UpstreamServer) -> list[types.Resource]:
            resources = await self._gateway.clients.list_resources(server)
            return [resource.model_copy(update={"uri": namespaced_uri(server.name, resource.uri),
                                                "name": namespaced(server.name, resource.name)})
                    for resource in resources]

        listed = await self._list(principal, request_id, "mcp.resources/list", one)
        return types.ListResourcesResult(resources=listed)

    async def list_resource_templates(self, principal: Principal,
                                      request_id: str | None) -> types.ListResourceTemplatesResult:
        async def one(server: UpstreamServer) -> list[types.ResourceTemplate]:
            templates = await self._gateway.clients.list_resource_templates(server)
            return [template.model_copy(update={"uri_template": namespaced_template(server.name, template.uri_template),
                                                "name": namespaced(server.name, template.name)})
                    for template in templates]

        listed = await self._list(principal, request_id, "mcp.resources/templates/list", one)
        return types.ListResourceTemplatesResult(resource_templates=listed)

    async def list_prompts(self, principal: Principal, request_id: str | None) -> types.ListPromptsResult:
        async def one(server: UpstreamServer) -> list[types.Prompt]:
            prompts = await self._gateway.clients.list_prompts(server)
            return [prompt.model_copy(update={"name": namespaced(server.name, prompt.name)}) for prompt in prompts]

        listed = await self._list(principal, request_id, "mcp.prompts/list", one)
        return types.ListPromptsResult(prompts=listed)

    async def read_resource(self, principal: Principal, uri: str, request_id: str | None) -> types.ReadResourceResult:
        parts = split_uri(uri)

        async def fetch(server: UpstreamServer) -> types.ReadResourceResult:
            assert parts is not None
            return await self._gateway.clients.read_resource(server, parts[1])

        async def release(policy: Policy, result: types.ReadResourceResult,
                          record: dict[str, Any]) -> types.ReadResourceResult:
            texts = [item.text for item in result.contents if isinstance(item, types.TextResourceContents)]
            screened = await self._screen(principal, policy, texts, "resource_contents", record)
            released = iter(screened)
            assert parts is not None
            contents = [item.model_copy(update={"uri": namespaced_uri(parts[0], item.uri),
                                                **({"text": next(released)}
                                                   if isinstance(item, types.TextResourceContents) else {})})
                        for item in result.contents]
            return result.model_copy(update={"contents": contents})

        return await self._fetch(principal, request_id, "mcp.resources/read", parts, uri, fetch, release)

    async def get_prompt(self, principal: Principal, name: str, arguments: dict[str, str] | None,
                         request_id: str | None) -> types.GetPromptResult:
        parts = split_namespaced(name)

        async def fetch(server: UpstreamServer) -> types.GetPromptResult:
            assert parts is not None
            return await self._gateway.clients.get_prompt(server, parts[1], arguments)

        async def release(policy: Policy, result: types.GetPromptResult,
                          record: dict[str, Any]) -> types.GetPromptResult:
            texts = [message.content.text for message in result.messages
                     if isinstance(message.content, types.TextContent)]
            screened = iter(await self._screen(principal, policy, texts, "prompt_messages", record))
            messages = [message.model_copy(update={"content": message.content.model_copy(
                update={"text": next(screened)})}) if isinstance(message.content, types.TextContent) else message
                for message in result.messages]
            return result.model_copy(update={"messages": messages})

        return await self._fetch(principal, request_id, "mcp.prompts/get", parts, name, fetch, release)

    # --- the shared path ---------------------------------------------------------------------------------------------
    async def _list(self, principal: Principal, request_id: str | None, endpoint: str, one: Any) -> list[Any]:
        record = _Record(principal, request_id, endpoint, name=None)
        try:
            policy, record.policy_version = await self._gateway.policy(principal)
            servers = await self._gateway.allowed_servers(principal, policy)
        except StoreUnavailable as exc:
            await self._refuse(record, "store_unavailable", 503, exc.message)
        listed: dict[str, list[Any]] = {}
        failed: dict[str, str] = {}

        async def list_one(server: UpstreamServer) -> None:
            try:
                listed[server.name] = await one(server)
            except UpstreamError as exc:
                failed[server.name] = exc.code

        async with anyio.create_task_group() as group:
            for server in servers:
                group.start_soon(list_one, server)
        items = [item for server in servers for item in listed.get(server.name, [])]
        record.decisions.append({"stage": "list", "decision": "allowed", "servers": sorted(listed),
                                 "failed": dict(sorted(failed.items())), "items": len(items)})
        await self._record(record, 200, None)
        return items

    async def _fetch(self, principal: Principal, request_id: str | None, endpoint: str,
                     parts: tuple[str, str] | None, name: str, fetch: Any, release: Any) -> Any:
        record = _Record(principal, request_id, endpoint, name=name[:200])
        try:
            policy, record.policy_version = await self._gateway.policy(principal)
            servers = {server.name: server for server in await self._gateway.allowed_servers(principal, policy)}
        except StoreUnavailable as exc:
            await self._refuse(record, "store_unavailable", 503, exc.message)
        if parts is None or parts[0] not in servers:
            # A server that is not registered and one the policy does not allow look alike to the client.
            await self._refuse(record, "unknown", 404, f"unknown {name[:200]!r}")
        assert parts is not None
        server = servers[parts[0]]
        record.decisions.append({"stage": "upstream", "server": server.name, "server_version": server.version,
                                 "server_scope": server.scope})
        started = time.perf_counter()
        try:
            result = await fetch(server)
        except UpstreamError as exc:
            await self._refuse(record, exc.code, 502 if exc.code != "upstream_timeout" else 504, exc.message)
        finally:
            record.upstream_ms = (time.perf_counter() - started) * 1000
        raw = orjson.dumps(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        record.result_sha256 = hashlib.sha256(raw).hexdigest()
        if len(raw) > policy.tools.max_result_bytes:
            await self._refuse(record, "result_too_large", 502, f"the result ({len(raw)} bytes) is larger than the "
                               f"policy allows ({policy.tools.max_result_bytes} bytes)")
        screened: dict[str, Any] = {}
        released = await release(policy, result, screened)
        record.decisions.extend(screened.get("decisions", []))
        if screened.get("blocked"):
            await self._refuse(record, "result_blocked", 422, f"the result was blocked: {screened['blocked']}")
        await self._record(record, 200, None)
        return released

    async def _screen(self, principal: Principal, policy: Policy, texts: list[str], stage: str,
                      record: dict[str, Any]) -> list[str]:
        screened = await screen_texts(self._gateway.services.input_guard, principal.tenant_id, policy, texts, stage)
        record["decisions"] = screened.decisions
        if screened.blocked_reason is not None:
            record["blocked"] = screened.blocked_reason
            return texts  # withheld by the caller: never released
        return list(screened.value)

    async def _refuse(self, record: _Record, code: str, status: int, message: str) -> NoReturn:
        record.decisions.append({"stage": "passthrough", "decision": "refused", "status": code})
        await self._record(record, status, code)
        raise MCPError(types.INVALID_PARAMS if status in (404, 422) else types.INTERNAL_ERROR, message)

    async def _record(self, record: _Record, status: int, error_type: str | None) -> None:
        try:
            await self._gateway.services.audit.record(record.event(status, error_type))
        except AuditUnavailableError:
            raise MCPError(types.INTERNAL_ERROR, "the audit trail is unavailable; the result is withheld") from None


class _Record:
    def __init__(self, principal: Principal, request_id: str | None, endpoint: str, name: str | None) -> None:
        self.principal = principal
        self.endpoint = endpoint
        self.name = name
        self.request_id = request_id or f"req_{uuid.uuid4().hex}"
        self.started = time.perf_counter()
        self.policy_version: int | None = None
        self.decisions: list[dict[str, Any]] = []
        self.upstream_ms = 0.0
        self.result_sha256: str | None = None

    def event(self, status: int, error_type: str | None) -> AuditEvent:
        elapsed_ms = (time.perf_counter() - self.started) * 1000
        content = {"mode": "hashes", "result_sha256": self.result_sha256} if self.result_sha256 else None
        return AuditEvent(
            created_at=utcnow(), request_id=self.request_id, endpoint=self.endpoint, http_status=status,
            latency_ms=round(elapsed_ms, 3), overhead_ms=round(max(0.0, elapsed_ms - self.upstream_ms), 3),
            tenant_id=self.principal.tenant_id, key_id=self.principal.key_id, model=self.name,
            error_type=error_type, policy_version=self.policy_version, decisions=list(self.decisions),
            content=content)
