"""Tool calling: the grammar that constrains a tool call, the prompt block that describes the tools, and the parser
that turns the constrained text back into OpenAI ``tool_calls``.

Wire format (modelled on the one SmolLM2-Instruct was tuned with; its chat template has no tool section, so the
tools are described in the system prompt by ``tools_system_prompt``)::

    <tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>

``arguments`` is constrained to the function's ``parameters`` schema and ``name`` to the declared functions.
``tool_choice``: ``"none"`` → no constraint; ``"auto"`` → either plain text (that does not start with the tag) or
tool calls; ``"required"`` → tool calls only; ``{"type": "function", "function": {"name": N}}`` → one call of N.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.structured.errors import GrammarCompileError
from engine.structured.options import JSON_OPTIONS

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")  # OpenAI's rule for function names
_EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


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
    """Accept OpenAI's ``[{"type": "function", "function": {...}}]`` or the flat ``[{"name", "parameters"}]``."""
    if not isinstance(tools, list) or not tools:
        raise GrammarCompileError("tools must be a non-empty list", param="tools")
    specs: list[FunctionSpec] = []
    for tool in tools:
        if not isinstance(tool, dict):
            raise GrammarCompileError("each tool must be an object", param="tools")
        if tool.get("type", "function") != "function":
            raise GrammarCompileError(f"unsupported tool type {tool.get('type')!r}", param="tools")
        function = tool.get("function", tool)
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise GrammarCompileError(f"invalid function name {name!r} (letters, digits, _ and -, at most 64)",
                                      param="tools")
        parameters = function.get("parameters", _EMPTY_PARAMETERS)
        if not isinstance(parameters, dict | bool):
            raise GrammarCompileError(f"parameters of {name!r} must be a JSON schema object", param="tools")
        specs.append(FunctionSpec(name, parameters, str(function.get("description", ""))))
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise GrammarCompileError("function names must be unique", param="tools")
    return specs


def _chosen_function(tool_choice: Any) -> str | None:
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function", tool_choice)
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str):
            raise GrammarCompileError("tool_choice must name a function", param="tool_choice")
        return name
    return None


def calls_schema(functions: list[FunctionSpec], *, parallel_tool_calls: bool) -> dict[str, Any]:
    """JSON schema of the array inside the tags: each item names one function and carries valid arguments."""
    items = [
        {
            "type": "object",
            "properties": {"name": {"const": spec.name}, "arguments": spec.parameters},
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for spec in functions
    ]
    schema: dict[str, Any] = {
        "type": "array",
        "items": items[0] if len(items) == 1 else {"anyOf": items},
        "minItems": 1,
    }
    if not parallel_tool_calls:
        schema["maxItems"] = 1
    schema["x-guidance"] = JSON_OPTIONS
    return schema


def tool_call_grammar(
    tools: Any, tool_choice: Any, *, parallel_tool_calls: bool = True
) -> tuple[str, dict[str, Any]] | None:
    """Lark grammar for the request and the normalized form its cache key is computed from; None for "none"."""
    if tool_choice == "none":
        return None
    functions = normalize_tools(tools)
    forced = _chosen_function(tool_choice)
    if forced is not None:
        functions = [spec for spec in functions if spec.name == forced]
        if not functions:
            raise GrammarCompileError(f"tool_choice names unknown function {forced!r}", param="tool_choice")
        parallel_tool_calls = False  # a named choice means exactly one call of that function
    elif tool_choice not in ("auto", "required"):
        raise GrammarCompileError("tool_choice must be none, auto, required or a function", param="tool_choice")
    mode = "forced" if forced is not None else str(tool_choice)
    schema = calls_schema(functions, parallel_tool_calls=parallel_tool_calls)
    calls = f'calls: "{TOOL_CALL_OPEN}" %json {json.dumps(schema)} "{TOOL_CALL_CLOSE}"'
    if mode == "auto":
        # Plain text is anything that does not begin with the tag (after optional whitespace, as the parser
        # strips it), so a reply that opens a tool call is held to the schema all the way (a lexeme that allowed
        # both would leave the call unconstrained).
        lark = (
            "start: TEXT | calls\n"
            f"TEXT: /(?s:.+)/ & ~/(?s:\\s*){re.escape(TOOL_CALL_OPEN)}(?s:.*)/\n"
            f"{calls}\n"
        )
    else:
        lark = f"start: calls\n{calls}\n"
    normalized = {"mode": mode, "parallel": parallel_tool_calls, "schema": schema}
    return lark, normalized


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
    Raises ``ValueError`` when the output opened a call but was cut short (``finish_reason == "length"``)."""
    stripped = text.strip()
    if not stripped.startswith(TOOL_CALL_OPEN):
        return None
    if not stripped.endswith(TOOL_CALL_CLOSE):
        raise ValueError("tool call output is incomplete")
    calls = json.loads(stripped[len(TOOL_CALL_OPEN) : -len(TOOL_CALL_CLOSE)])
    return [ToolCall(call["name"], json.dumps(call["arguments"], ensure_ascii=False)) for call in calls]
