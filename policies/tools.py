"""Tool policy: which upstream MCP servers and tools a tenant (or one of its keys) may use, and on what terms.

Pure data and pure decisions (stdlib + pydantic). Tools are named ``<server>__<tool>`` at Warden's MCP endpoint: the
registered server's name, two underscores, the upstream tool's own name. Server names cannot contain ``__``, so the
split is unambiguous. Globs (``fnmatch``: ``*``, ``?``, ``[...]``) match those names case-sensitively.

The JSON Schema a rule puts on a tool's arguments is carried here as data; the gateway applies it (with
``jsonschema``) before the call leaves Warden.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

NAMESPACE_SEPARATOR = "__"
# Lower-case letters, digits and single hyphens: a name that can never contain the separator.
SERVER_NAME_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$"
_SERVER_NAME = re.compile(SERVER_NAME_PATTERN)
# The ``_meta`` key a client sets to true on a call it has had approved (a human in the loop, an approval service).
APPROVAL_META_KEY = "warden/approved"
MAX_TOOL_RULES = 256
MAX_RESULT_BYTES_CEILING = 16 * 1024 * 1024


class ToolInjectionAction(StrEnum):
    INHERIT = "inherit"  # the tenant's own injection rules (``Policy.injection``)
    OFF = "off"
    FLAG = "flag"
    BLOCK = "block"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ToolRule(_Strict):
    """Terms for the tools whose namespaced name matches the rule's key (a name or a glob)."""

    # JSON Schema the call's arguments must satisfy (in addition to the upstream tool's own input schema).
    arguments_schema: dict[str, Any] | None = None
    # The call runs only when the request's ``_meta`` carries ``"warden/approved": true``.
    requires_approval: bool = False
    # Calls per minute of the matching tools, per tenant (through the gateway's rate limiter). None: unlimited.
    calls_per_minute: int | None = Field(default=None, ge=1)


class ToolPolicy(_Strict):
    """The ``tools`` section of a tenant policy (and of a key override, which replaces it for that key)."""

    # Registered servers (by name or glob) whose tools this tenant may see and call.
    allowed_servers: list[str] = Field(default_factory=lambda: ["*"], max_length=256)
    # Namespaced tool names or globs that may be called; None: every tool of the allowed servers.
    allowed_tools: list[str] | None = Field(default=None, max_length=1024)
    # Namespaced tool names or globs that are never listed nor called; these win over ``allowed_tools``.
    denied_tools: list[str] = Field(default_factory=list, max_length=1024)
    # Per-tool terms; every rule whose key matches applies (a call must satisfy all of their schemas).
    rules: dict[str, ToolRule] = Field(default_factory=dict, max_length=MAX_TOOL_RULES)
    # Screening of tool results for prompt injection (the chat path's classifier and threshold).
    result_injection: ToolInjectionAction = ToolInjectionAction.INHERIT
    # PII actions of ``pii_input`` on what a tool returns (it is the model's next input).
    mask_result_pii: bool = True
    # PII actions of ``pii_output`` on the arguments that leave for the upstream (off by default: masking an
    # address the user asked a tool to write to breaks the call it was meant for).
    mask_argument_pii: bool = False
    # A result larger than this (serialized JSON bytes) is refused as an MCP error result.
    max_result_bytes: int = Field(default=1024 * 1024, ge=1024, le=MAX_RESULT_BYTES_CEILING)

    @field_validator("allowed_servers", "allowed_tools", "denied_tools")
    @classmethod
    def _non_empty_patterns(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and any(not pattern.strip() or len(pattern) > 200 for pattern in value):
            raise ValueError("name patterns must be non-empty and at most 200 characters")
        return value


def valid_server_name(name: str) -> bool:
    return bool(_SERVER_NAME.match(name))


def namespaced(server: str, tool: str) -> str:
    return f"{server}{NAMESPACE_SEPARATOR}{tool}"


def split_namespaced(name: str) -> tuple[str, str] | None:
    """``"<server>__<tool>"`` -> (server, tool); None for a name that is not one of Warden's."""
    server, separator, tool = name.partition(NAMESPACE_SEPARATOR)
    if not separator or not tool or not valid_server_name(server):
        return None
    return server, tool


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


def server_allowed(policy: ToolPolicy, server: str) -> bool:
    return _matches(server, policy.allowed_servers)


def tool_allowed(policy: ToolPolicy, server: str, tool: str) -> bool:
    """Whether the namespaced tool may be listed and called (its server allowed, the tool allowed, not denied)."""
    name = namespaced(server, tool)
    if not server_allowed(policy, server) or _matches(name, policy.denied_tools):
        return False
    return policy.allowed_tools is None or _matches(name, policy.allowed_tools)


def matching_rules(policy: ToolPolicy, server: str, tool: str) -> list[tuple[str, ToolRule]]:
    name = namespaced(server, tool)
    return [(pattern, rule) for pattern, rule in policy.rules.items() if fnmatchcase(name, pattern)]


class CallVerdict(StrEnum):
    ALLOWED = "allowed"
    DENIED = "denied"  # not allowed by the policy
    NEEDS_APPROVAL = "needs_approval"  # a rule requires approval the request does not carry


@dataclass(frozen=True, slots=True)
class CallDecision:
    verdict: CallVerdict
    reason: str
    # The argument schemas to check, each with the rule key it came from (for the refusal's message).
    schemas: tuple[tuple[str, dict[str, Any]], ...] = ()
    # (rule key, calls per minute) of every matching rule that limits the call rate.
    rate_limits: tuple[tuple[str, int], ...] = ()


def approved(meta: dict[str, Any] | None) -> bool:
    return meta is not None and meta.get(APPROVAL_META_KEY) is True


def decide_call(policy: ToolPolicy, server: str, tool: str, meta: dict[str, Any] | None) -> CallDecision:
    """What happens to one ``tools/call`` before it leaves Warden (argument schemas are checked by the caller)."""
    if not tool_allowed(policy, server, tool):
        return CallDecision(CallVerdict.DENIED, f"tool {namespaced(server, tool)!r} is not allowed by the policy")
    rules = matching_rules(policy, server, tool)
    if any(rule.requires_approval for _, rule in rules) and not approved(meta):
        return CallDecision(CallVerdict.NEEDS_APPROVAL,
                            f"tool {namespaced(server, tool)!r} requires approval: set _meta[{APPROVAL_META_KEY!r}]"
                            " to true once the call is approved")
    return CallDecision(
        CallVerdict.ALLOWED, "allowed",
        schemas=tuple((key, rule.arguments_schema) for key, rule in rules if rule.arguments_schema is not None),
        rate_limits=tuple((key, rule.calls_per_minute) for key, rule in rules if rule.calls_per_minute is not None),
    )
