"""Structured outputs on /v1/chat/completions, gateway side.

In: ``response_format`` / ``tools`` / ``tool_choice`` / ``parallel_tool_calls`` become the engine's constraint
(``EngineRequest.structured``, enforced by ``engine.structured``; a constraint the engine cannot compile comes back
as a 400 naming the field), and the tools are described in the system prompt (SmolLM2's template has no tool
section). Out: an output held to the tool-call grammar becomes OpenAI ``tool_calls`` — whole in a response, and in a
stream as ``delta.tool_calls`` chunks once the output is known to be a call (text is held back from the moment it
could be the start of ``<tool_call>``).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import jsonschema

from engine.errors import InvalidRequestError
from engine.tool_calls import TOOL_CALL_OPEN, ToolCall, normalize_tools, parse_tool_calls, tools_system_prompt
from gateway.core.errors import invalid_request
from gateway.openai.hooks import OutputShape
from gateway.openai.schemas import (
    ChatCompletionRequest,
    NamedToolChoice,
    ResponseFormatJsonObject,
    ResponseFormatJsonSchema,
)


def engine_constraint(request: ChatCompletionRequest) -> dict[str, Any] | None:
    """The engine's constraint for this request, or None for free text. Raises a 400 for fields that contradict
    each other (the engine enforces one grammar per output: a tool call or a formatted answer, not both)."""
    if request.tool_choice is not None and not request.tools:
        raise invalid_request("tool_choice is only allowed when tools are specified", param="tool_choice")
    if isinstance(request.tool_choice, NamedToolChoice):
        name = request.tool_choice.function.name
        if name not in {tool.function.name for tool in request.tools or []}:
            raise invalid_request(f"tool_choice names unknown function {name!r}", param="tool_choice")
    response_format = request.response_format
    if request.calls_tools:
        if response_format is not None and response_format.type != "text":
            raise invalid_request("response_format cannot be combined with tools unless tool_choice is 'none'",
                                  param="response_format")
        choice = request.tool_choice or "auto"
        return {"type": "tool_calls", "tools": tool_dicts(request),
                "tool_choice": choice if isinstance(choice, str) else choice.model_dump(),
                "parallel_tool_calls": request.parallel_tool_calls is not False}
    if isinstance(response_format, ResponseFormatJsonSchema):
        wrapper = response_format.json_schema.model_dump(by_alias=True, exclude_none=True)
        return {"type": "json_schema", "json_schema": wrapper}
    if isinstance(response_format, ResponseFormatJsonObject):
        return {"type": "json_object"}
    return None


def output_shape(constraint: dict[str, Any] | None) -> OutputShape:
    """What the output guardrails must keep valid: a JSON document, tool calls in free text, or plain text."""
    if constraint is None:
        return "text"
    return "tool_calls" if constraint["type"] == "tool_calls" else "json"


def _valid(schema: dict[str, Any] | bool, value: Any) -> bool:
    if isinstance(schema, bool):
        return schema
    return jsonschema.validators.validator_for(schema)(schema).is_valid(value)


def conforms(constraint: dict[str, Any], text: str) -> bool:
    """Whether a finished output satisfies its constraint (checked after the output guardrails rewrote part of it:
    a masked value keeps the JSON valid but may break a ``pattern``, ``format``, ``enum`` or length)."""
    if constraint["type"] == "tool_calls":
        calls = parse_calls(text)
        if calls is None:
            return not text.lstrip().startswith(TOOL_CALL_OPEN)  # a plain answer conforms; a broken call does not
        parameters = {spec.name: spec.parameters for spec in normalize_tools(constraint["tools"])}
        return all(call.name in parameters and _valid(parameters[call.name], json.loads(call.arguments))
                   for call in calls)
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if constraint["type"] == "json_object":
        return isinstance(value, dict)
    return _valid(constraint["json_schema"].get("schema", {}), value)


def tool_dicts(request: ChatCompletionRequest) -> list[dict[str, Any]]:
    return [tool.model_dump(exclude_none=True) for tool in request.tools or []]


def tools_prompt(request: ChatCompletionRequest) -> str | None:
    """The system-prompt block describing the tools, when the model may call them (not under ``"none"``: a model
    told to answer only in calls would then write unconstrained call syntax as its answer)."""
    if not request.calls_tools:
        return None
    try:
        return tools_system_prompt(tool_dicts(request))
    except InvalidRequestError as exc:
        raise invalid_request(str(exc), param=exc.param or "tools") from None


# -- the model's output back to OpenAI's shape ---------------------------------------------------------------------
def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


def parse_calls(text: str) -> list[ToolCall] | None:
    """The calls in a finished output; None when it is a plain answer or a call cut short (``length``): the text is
    then returned as content, as it was produced."""
    try:
        return parse_tool_calls(text)
    except (ValueError, KeyError, TypeError):  # json.JSONDecodeError is a ValueError
        return None


def tool_calls_body(calls: list[ToolCall]) -> list[dict[str, Any]]:
    return [{"id": new_call_id(), "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in calls]


def stream_deltas(calls: list[ToolCall]) -> list[dict[str, Any]]:
    """``delta`` objects for a stream, as OpenAI sends them: per call, its index, id, type and name with empty
    arguments, then its arguments."""
    deltas: list[dict[str, Any]] = []
    for index, call in enumerate(tool_calls_body(calls)):
        head = {"index": index, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}}
        deltas.append({"tool_calls": [head]})
        deltas.append({"tool_calls": [{"index": index, "function": {"arguments": call["function"]["arguments"]}}]})
    return deltas


class ToolCallHold:
    """One streamed choice under the tool-call grammar: releases plain text as it comes, but holds everything back
    from the moment the output could be opening ``<tool_call>`` until it is known which it is.

    Linear in the output: the held deltas are kept as a list and joined once, and only the start of the output past
    its leading whitespace (never longer than the tag while undecided) is compared with the tag; a held call is not
    copied per delta.
    """

    __slots__ = ("_head", "_parts", "calling")

    def __init__(self) -> None:
        self._parts: list[str] = []  # the held text, in deltas
        self._head = ""  # the held text less its leading whitespace, while undecided
        self.calling: bool | None = None  # None: undecided; True: a tool call; False: plain text

    def feed(self, text: str) -> str:
        """New output in; the text that may be released as content now."""
        if self.calling is False:
            return text
        self._parts.append(text)
        if self.calling:
            return ""
        self._head = self._head + text if self._head else text.lstrip()
        if self._head.startswith(TOOL_CALL_OPEN):
            self.calling = True
            return ""
        if TOOL_CALL_OPEN.startswith(self._head):
            return ""  # whitespace or a prefix of the tag: not known yet
        self.calling = False
        released = "".join(self._parts)
        self._parts, self._head = [], ""
        return released

    def finish(self) -> tuple[str, list[ToolCall] | None]:
        """At the end of the output: (content still to release, the calls or None)."""
        held = "".join(self._parts)
        self._parts, self._head = [], ""
        calls = parse_calls(held) if self.calling else None
        return ("", calls) if calls is not None else (held, None)


def arguments_json(arguments: str) -> Any:
    """An assistant turn's call arguments as JSON for the prompt (kept as a string when they are not JSON, or are
    nested deeper than the standard library's parser goes: a client's echoed call must not be a 500)."""
    try:
        return json.loads(arguments)
    except (ValueError, RecursionError):
        return arguments
