"""The tool-call wire format, shared by the engine (its grammar holds a reply to it) and its callers (they describe
the tools in the prompt and turn the reply into OpenAI ``tool_calls``)::

    <tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>

Modelled on the format SmolLM2-Instruct was tuned with; its chat template has no tool section, so the tools are
described in the system prompt by ``tools_system_prompt``. The grammar that enforces the format lives in
``engine.structured.tools``.

Pure Python (stdlib and ``engine.errors`` only): the gateway imports this module, and it must not pull the grammar
engine or torch into a process that does not run the engine.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.errors import InvalidRequestError

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # OpenAI's rule for function names
_EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}

__all__ = [
    "TOOL_CALL_CLOSE",
    "TOOL_CALL_OPEN",
    "FunctionSpec",
    "ToolCall",
    "normalize_tools",
    "parse_tool_calls",
    "tools_system_prompt",
]


@dataclass(frozen=True, slots=True)
class FunctionSpec:
    name: str
    parameters: dict[str, Any] | bool
    description: str = ""


@dataclass(frozen=True, slots=True)
class ToolCall:
    name: str
    arguments: str  # JSON text, as OpenAI returns it


def normalize_tools(tools: Any) -> list[FunctionSpec]:
    """Accept OpenAI's ``[{"type": "function", "function": {...}}]`` or the flat ``[{"name", "parameters"}]``.
    Raises ``InvalidRequestError`` (a 400 naming ``tools``) for a malformed list."""
    if not isinstance(tools, list) or not tools:
        raise InvalidRequestError("tools must be a non-empty list", param="tools")
    specs: list[FunctionSpec] = []
    for tool in tools:
        if not isinstance(tool, dict):
            raise InvalidRequestError("each tool must be an object", param="tools")
        if tool.get("type", "function") != "function":
            raise InvalidRequestError(f"unsupported tool type {tool.get('type')!r}", param="tools")
        function = tool.get("function", tool)
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise InvalidRequestError(f"invalid function name {name!r} (letters, digits, _ and -, at most 64)",
                                      param="tools")
        parameters = function.get("parameters", _EMPTY_PARAMETERS)
        if not isinstance(parameters, dict | bool):
            raise InvalidRequestError(f"parameters of {name!r} must be a JSON schema object", param="tools")
        specs.append(FunctionSpec(name, parameters, str(function.get("description", ""))))
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise InvalidRequestError("function names must be unique", param="tools")
    return specs


def tools_system_prompt(tools: Any) -> str:
    """The system-prompt block that tells a model without a template tool format which functions it may call and
    how; the grammar enforces the same format."""
    functions = normalize_tools(tools)
    listing = "\n".join(
        json.dumps({"name": f.name, "description": f.description, "parameters": f.parameters}) for f in functions
    )
    return (
        "You are an expert in composing functions. You are given a question and a set of possible functions.\n"
        "Based on the question, you will need to make one or more function/tool calls to achieve the purpose.\n"
        f"You have access to the following tools:\n<tools>{listing}</tools>\n\n"
        "The output MUST strictly adhere to the following format, and NO other text MUST be included.\n"
        f'{TOOL_CALL_OPEN}[{{"name": "func_name1", "arguments": {{"argument1": "value1"}}}}]{TOOL_CALL_CLOSE}'
    )


def parse_tool_calls(text: str) -> list[ToolCall] | None:
    """The calls in a completed, constrained output; None when the output is plain text (``auto`` chose to answer).
    Raises ``ValueError`` when the output opened a call but was cut short (``finish_reason == "length"``), is not a
    list of calls, or nests deeper than can be parsed."""
    stripped = text.strip()
    if not stripped.startswith(TOOL_CALL_OPEN):
        return None
    if not stripped.endswith(TOOL_CALL_CLOSE):
        raise ValueError("tool call output is incomplete")
    try:
        calls = json.loads(stripped[len(TOOL_CALL_OPEN) : -len(TOOL_CALL_CLOSE)])
        if not isinstance(calls, list) or not all(isinstance(call, dict) for call in calls):
            raise ValueError("tool call output is not a list of calls")
        return [ToolCall(call["name"], json.dumps(call["arguments"], ensure_ascii=False)) for call in calls]
    except (KeyError, TypeError):
        raise ValueError("tool call output is not a list of calls") from None
    except RecursionError:
        # A schema that allows nesting lets a long output nest past the interpreter's depth: refused like any other
        # output that is not a list of calls, never an error of the caller's own.
        raise ValueError("tool call output is nested too deeply") from None
