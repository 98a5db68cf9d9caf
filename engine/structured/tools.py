"""Tool calling's grammar: the constraint that holds a reply to the tool-call wire format (``engine.tool_calls``,
which also holds the prompt block that describes the tools and the parser that turns the constrained text back into
OpenAI ``tool_calls``).

``arguments`` is constrained to the function's ``parameters`` schema and ``name`` to the declared functions.
``tool_choice``: ``"none"`` → no constraint; ``"auto"`` → either plain text (that does not start with the tag) or
tool calls; ``"required"`` → tool calls only; ``{"type": "function", "function": {"name": N}}`` → one call of N.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.errors import InvalidRequestError
from engine.structured.errors import GrammarCompileError
from engine.structured.options import JSON_OPTIONS
from engine.structured.schema_depth import check_schema_depth
from engine.tool_calls import (
    TOOL_CALL_CLOSE,
    TOOL_CALL_OPEN,
    FunctionSpec,
    ToolCall,
    normalize_tools,
    parse_tool_calls,
    tools_system_prompt,
)

__all__ = [
    "TOOL_CALL_CLOSE",
    "TOOL_CALL_OPEN",
    "FunctionSpec",
    "ToolCall",
    "calls_schema",
    "normalize_tools",
    "parse_tool_calls",
    "tool_call_grammar",
    "tools_system_prompt",
]


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
    try:
        functions = normalize_tools(tools)
    except InvalidRequestError as exc:  # the wire format's own check, refused here as the grammar's error
        raise GrammarCompileError(str(exc), param=exc.param) from None
    for spec in functions:  # each function's parameters are a schema document of their own ($refs resolve there)
        check_schema_depth(spec.parameters)
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
