"""Guardrails on both directions of a tool call, through the chat path's input guard (same detectors, same
classifier, same per-tenant caches).

Arguments leave Warden for a third party: when the tool policy asks for it they get the tenant's ``pii_output``
actions. Results come back to become the model's next input: they get the ``pii_input`` actions and prompt-injection
screening (the ``tool`` role is untrusted), with the tool policy's injection action. Only string values are
rewritten, in place, so arguments and structured results keep their JSON shape.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

from gateway.core.errors import APIError
from gateway.openai.hooks import InputGuard
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy
from policies.tools import ToolInjectionAction

_NO_PII = PiiRules(entities={}, default_action=PiiAction.ALLOW, ner_enabled=False)


@dataclass(slots=True)
class Screened:
    value: Any
    decisions: list[dict[str, Any]] = field(default_factory=list)
    blocked_reason: str | None = None
    injection_flagged: bool = False


def _string_leaves(value: Any) -> list[str]:
    """Every string in ``value`` (not its keys), in the order ``_with_leaves`` puts them back."""
    leaves: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, str):
            leaves.append(item)
        elif isinstance(item, dict):
            for child in item.values():
                walk(child)
        elif isinstance(item, list):
            for child in item:
                walk(child)

    walk(value)
    return leaves


def _with_leaves(value: Any, texts: Iterator[str]) -> Any:
    """``value`` rebuilt in one walk with its strings taken from ``texts`` in ``_string_leaves``' order. One walk,
    not one copy of the enclosing containers per changed string: a masked argument object of n values would
    otherwise cost n copies of n entries."""
    if isinstance(value, str):
        return next(texts)
    if isinstance(value, dict):
        return {key: _with_leaves(item, texts) for key, item in value.items()}
    if isinstance(value, list):
        return [_with_leaves(item, texts) for item in value]
    return value


async def _screen_strings(guard: InputGuard, tenant_id: str, policy: Policy, value: Any, role: str,
                          stage: str) -> Screened:
    leaves = _string_leaves(value)
    if not leaves:
        return Screened(value)
    messages = [{"role": role, "content": text} for text in leaves]
    try:
        screened = await guard.screen_input(messages, tenant_id=tenant_id, policy=policy)
    except APIError as exc:
        decision = dict(exc.decision or {"decision": "blocked"})
        decision["stage"] = stage
        return Screened(value, [decision], blocked_reason=exc.message)
    released = [message["content"] for message in screened.messages]
    if len(released) != len(leaves):
        raise ValueError("the guard returned a different number of texts than it was given")
    if released != leaves:
        value = _with_leaves(value, iter(released))
    decisions = [{**decision, "stage": stage} for decision in screened.decisions]
    flagged = any(d.get("kind") == "injection" and d.get("action") == InjectionAction.FLAG.value for d in decisions)
    return Screened(value, decisions, injection_flagged=flagged)


async def screen_arguments(guard: InputGuard | None, tenant_id: str, policy: Policy,
                           arguments: dict[str, Any]) -> Screened:
    if guard is None or not policy.tools.mask_argument_pii:
        return Screened(arguments)
    rules = policy.model_copy(update={"pii_input": policy.pii_output,
                                      "injection": InjectionRules(action=InjectionAction.OFF)})
    return await _screen_strings(guard, tenant_id, rules, arguments, "user", "tool_arguments")


def _result_rules(policy: Policy) -> Policy:
    tools = policy.tools
    injection = policy.injection
    if tools.result_injection is not ToolInjectionAction.INHERIT:
        injection = InjectionRules(action=InjectionAction(tools.result_injection.value),
                                   threshold=policy.injection.threshold)
    return policy.model_copy(update={"pii_input": policy.pii_input if tools.mask_result_pii else _NO_PII,
                                     "injection": injection})


async def screen_result(guard: InputGuard | None, tenant_id: str, policy: Policy,
                        result: types.CallToolResult) -> tuple[types.CallToolResult, Screened]:
    """The result with its text (content blocks and structured content) screened; ``blocked_reason`` set when the
    policy refuses it."""
    if guard is None:
        return result, Screened(None, [{"stage": "tool_result", "decision": "not_screened",
                                        "reason": "guardrails are off"}])
    rules = _result_rules(policy)
    if not policy.tools.mask_result_pii and rules.injection.action is InjectionAction.OFF:
        return result, Screened(None, [{"stage": "tool_result", "decision": "not_screened", "reason": "policy"}])
    texts = [block.text if isinstance(block, types.TextContent) else None for block in result.content]
    document = {"content": [text for text in texts if text is not None],
                "structured": result.structured_content}
    screened = await _screen_strings(guard, tenant_id, rules, document, "tool", "tool_result")
    if screened.blocked_reason is not None:
        return result, screened
    masked_texts = iter(screened.value["content"])
    content = [block.model_copy(update={"text": next(masked_texts)}) if isinstance(block, types.TextContent)
               else block for block in result.content]
    updated = result.model_copy(update={"content": content, "structured_content": screened.value["structured"]})
    return updated, screened


async def screen_texts(guard: InputGuard | None, tenant_id: str, policy: Policy, texts: list[str],
                       stage: str) -> Screened:
    """Text an upstream returns other than a tool result (resource contents, prompt messages), screened like a
    tool's result: ``value`` is the list of texts as released."""
    if guard is None:
        return Screened(texts, [{"stage": stage, "decision": "not_screened", "reason": "guardrails are off"}])
    rules = _result_rules(policy)
    if not policy.tools.mask_result_pii and rules.injection.action is InjectionAction.OFF:
        return Screened(texts, [{"stage": stage, "decision": "not_screened", "reason": "policy"}])
    return await _screen_strings(guard, tenant_id, rules, list(texts), "tool", stage)
