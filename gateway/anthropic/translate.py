"""An Anthropic Messages request, translated into the internal chat request every surface is served through.

The translation is exact or refused: ``system`` becomes the system message; an assistant's ``tool_use`` blocks
become its ``tool_calls`` (``input`` as the JSON arguments); a user's ``tool_result`` blocks become ``tool`` messages
answering those calls; ``tools`` become function tools whose ``parameters`` are the ``input_schema`` (enforced by
the same constrained decoding as chat); ``tool_choice`` ``auto`` / ``any`` / ``tool`` / ``none`` become ``auto`` /
``required`` / the named function / ``none``; ``output_config.format`` becomes a ``json_schema`` response format.
What cannot be translated without changing its meaning (a final assistant message, which Anthropic continues as a
prefill; images; server tools...) is a 400 naming the parameter.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from gateway.anthropic.schemas import (
    UNSUPPORTED_BLOCKS,
    UNSUPPORTED_FIELDS,
    MessagesRequest,
    TextBlock,
    ToolChoiceAny,
    ToolChoiceAuto,
    ToolChoiceNone,
    ToolChoiceTool,
    ToolResultBlock,
    ToolUseBlock,
)
from gateway.core.errors import APIError, invalid_request
from gateway.openai.schemas import ChatCompletionRequest

THINKING_DISABLED = {"type": "disabled"}  # the one thinking setting served (schemas.ThinkingDisabled)
TOOL_ERROR_PREFIX = "Error: "  # how a tool_result with is_error reaches the model (the template has no error flag)


def unsupported(message: str, param: str) -> APIError:
    return invalid_request(message, param=param, code="unsupported_feature")


_BLOCK_TAGS = frozenset({"text", "tool_use", "tool_result"})
_CHOICE_TAGS = frozenset({"auto", "any", "tool", "none"})


def _param(loc: tuple[Any, ...]) -> str | None:
    """The parameter a validation error is about, as the client wrote it: pydantic also names union branches in the
    location (``str``, ``list[...]``, a discriminator's tag), which are left out."""
    parts: list[str] = []
    previous: Any = None
    for segment in loc:
        text = str(segment)
        branch = "[" in text or text == "str"
        # A block's tag follows its index in a message's content; a tool choice's follows "tool_choice".
        block_tag = (text in _BLOCK_TAGS and isinstance(previous, int) and len(parts) == 4
                     and parts[0] == "messages" and parts[2] == "content")
        choice_tag = text in _CHOICE_TAGS and previous == "tool_choice"
        previous = segment
        if not (branch or block_tag or choice_tag):
            parts.append(text)
    return ".".join(parts) or None


def validation_error(exc: ValidationError) -> APIError:
    errors = exc.errors()
    # A content union reports its string branch first ("should be a valid string") even when the client sent a
    # list of blocks; the error inside the list is the one that says what is wrong.
    first = next((e for e in errors if "str" not in e.get("loc", ())[-1:] or len(errors) == 1), errors[0])
    param = _param(tuple(first.get("loc", ())))
    if first.get("type") == "extra_forbidden":
        return invalid_request(f"{param}: Extra inputs are not permitted", param=param)
    message = first.get("msg", "invalid value")
    return invalid_request(f"{param}: {message}" if param else message, param=param)


def _refuse_unsupported(body: dict[str, Any]) -> None:
    """Features Anthropic offers that this gateway cannot serve, refused by name before validation."""
    for name, reason in UNSUPPORTED_FIELDS.items():
        if body.get(name) is not None and not (name == "thinking" and body[name] == THINKING_DISABLED):
            raise unsupported(reason, name)
    output_config = body.get("output_config")
    if isinstance(output_config, dict) and output_config.get("effort") is not None:
        raise unsupported("effort is not supported: this model does not reason before it answers",
                          "output_config.effort")
    messages = body.get("messages")
    for i, message in enumerate(messages if isinstance(messages, list) else []):
        content = message.get("content") if isinstance(message, dict) else None
        for j, block in enumerate(content if isinstance(content, list) else []):
            _refuse_block(block, f"messages.{i}.content.{j}")
            inner = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
            for k, part in enumerate(inner if isinstance(inner, list) else []):
                _refuse_block(part, f"messages.{i}.content.{j}.content.{k}")
    system = body.get("system")
    for j, block in enumerate(system if isinstance(system, list) else []):
        _refuse_block(block, f"system.{j}")
    tools = body.get("tools")
    for i, tool in enumerate(tools if isinstance(tools, list) else []):
        kind = tool.get("type") if isinstance(tool, dict) else None
        if kind not in (None, "custom"):
            raise unsupported(f"server tools ({kind!s:.60}) are not supported; declare client tools with "
                              "name and input_schema", f"tools.{i}.type")


def _refuse_block(block: Any, param: str) -> None:
    kind = block.get("type") if isinstance(block, dict) else None
    if isinstance(kind, str) and kind in UNSUPPORTED_BLOCKS:
        raise unsupported(f"{kind} content blocks are not supported: this model reads text only", param)


def _chat_messages(request: MessagesRequest) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system = request.system_text()
    if system is not None:
        out.append({"role": "system", "content": system})
    called: set[str] = set()
    for i, message in enumerate(request.messages):
        if message.role == "assistant":
            texts = [b.text for b in message.blocks() if isinstance(b, TextBlock)]
            uses = [(j, b) for j, b in enumerate(message.blocks()) if isinstance(b, ToolUseBlock)]
            turn: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(texts) if texts else None}
            if uses:
                turn["tool_calls"] = [{"id": u.id, "type": "function", "function": {
                    "name": u.name, "arguments": _arguments(u, f"messages.{i}.content.{j}.input")}} for j, u in uses]
                called.update(u.id for _, u in uses)
            out.append(turn)
            continue
        pending_text: list[str] = []
        for j, block in enumerate(message.blocks()):
            if isinstance(block, ToolResultBlock):
                if block.tool_use_id not in called:
                    raise invalid_request("tool_result answers no earlier tool_use block",
                                          param=f"messages.{i}.content.{j}.tool_use_id")
                if pending_text:
                    out.append({"role": "user", "content": "\n\n".join(pending_text)})
                    pending_text = []
                text = block.text()
                out.append({"role": "tool", "tool_call_id": block.tool_use_id,
                            "content": TOOL_ERROR_PREFIX + text if block.is_error else text})
            elif isinstance(block, TextBlock):
                pending_text.append(block.text)
        if pending_text or not message.blocks():
            out.append({"role": "user", "content": "\n\n".join(pending_text)})
    return out


def _arguments(block: ToolUseBlock, param: str) -> str:
    """A tool_use block's input as the JSON arguments of a chat tool call; a 400 when the input nests deeper than
    the standard library encodes (the body parser reads a little deeper)."""
    try:
        return json.dumps(block.input, ensure_ascii=False)
    except RecursionError:
        raise invalid_request(f"{param}: tool_use input is nested too deeply", param=param) from None


def _tool_fields(request: MessagesRequest) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    choice = request.tool_choice
    if choice is not None and not request.tools:
        raise invalid_request("tool_choice is only allowed when tools are specified", param="tool_choice")
    if request.tools:
        names = {tool.name for tool in request.tools}
        if len(names) != len(request.tools):
            raise invalid_request("tool names must be unique", param="tools")
        fields["tools"] = [{"type": "function", "function": {
            "name": tool.name, "parameters": tool.input_schema,
            **({"description": tool.description} if tool.description is not None else {})}}
            for tool in request.tools]
    if isinstance(choice, ToolChoiceTool):
        if choice.name not in {tool.name for tool in request.tools or []}:
            raise invalid_request(f"tool_choice names unknown tool {choice.name!r}", param="tool_choice.name")
        fields["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
    elif isinstance(choice, ToolChoiceAny):
        fields["tool_choice"] = "required"
    elif isinstance(choice, ToolChoiceAuto):
        fields["tool_choice"] = "auto"
    elif isinstance(choice, ToolChoiceNone):
        fields["tool_choice"] = "none"
    if choice is not None and not isinstance(choice, ToolChoiceNone) and choice.disable_parallel_tool_use:
        fields["parallel_tool_calls"] = False
    return fields


def to_chat_request(body: dict[str, Any]) -> ChatCompletionRequest:
    """The internal chat request for an Anthropic Messages body; ``APIError`` (400, naming ``param``) when it is
    invalid or asks for something Warden cannot serve."""
    _refuse_unsupported(body)
    try:
        request = MessagesRequest.model_validate(body)
    except ValidationError as exc:
        raise validation_error(exc) from None
    if request.messages[-1].role == "assistant":
        raise unsupported("a final assistant message (prefill) is not supported; end with a user message",
                          f"messages.{len(request.messages) - 1}")
    chat: dict[str, Any] = {"model": request.model, "messages": _chat_messages(request),
                            "max_tokens": request.max_tokens, "stream": request.stream}
    if request.stream:
        chat["stream_options"] = {"include_usage": True}  # message_delta always carries the usage
    if request.stop_sequences:
        chat["stop"] = list(request.stop_sequences)
    for name in ("temperature", "top_p", "top_k"):
        value = getattr(request, name)
        if value is not None:
            chat[name] = value
    if request.metadata is not None and request.metadata.user_id is not None:
        chat["user"] = request.metadata.user_id
    chat.update(_tool_fields(request))
    output_format = request.output_config.format if request.output_config is not None else None
    if output_format is not None:
        if chat.get("tools") and chat.get("tool_choice") != "none":
            raise invalid_request("output_config.format cannot be combined with tools unless tool_choice is 'none'",
                                  param="output_config.format")
        chat["response_format"] = {"type": "json_schema",
                                   "json_schema": {"name": "output", "schema": output_format.schema_}}
    try:
        return ChatCompletionRequest.model_validate(chat)
    except ValidationError as exc:
        # Everything above was validated on Anthropic's terms; what is left is a limit only chat states.
        error = exc.errors()[0]
        raise invalid_request(f"{error.get('msg', 'invalid value')}", param="messages") from None
