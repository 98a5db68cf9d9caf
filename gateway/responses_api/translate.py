"""A Responses API request as the internal chat request that the one /v1 path serves.

``instructions`` is the first (system) message; the conversation a ``previous_response_id`` names is replayed
next (its stored messages: that response's input and output); then the new input items: messages keep their role
(``developer`` is ``system`` to the model), ``function_call`` items are an assistant turn's tool calls (consecutive
calls are one turn, as the model emitted them), and ``function_call_output`` items are tool results. Function
tools, ``tool_choice``, ``parallel_tool_calls`` and ``text.format`` become chat's ``tools`` / ``tool_choice`` /
``response_format``, so the same grammar compiler and the same 400s apply.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from gateway.core.errors import invalid_request
from gateway.openai.schemas import ChatCompletionRequest
from gateway.responses_api.schemas import (
    FormatJsonObject,
    FormatJsonSchema,
    FunctionCallItem,
    FunctionCallOutputItem,
    FunctionToolChoice,
    InputItem,
    MessageItem,
    ResponsesRequest,
    function_tools,
    parse_items,
    tool_choice,
)

# Chat's parameter names as the Responses API calls them: a 400 raised on the internal request names the field
# the caller actually sent.
PARAM_NAMES = {"max_tokens": "max_output_tokens", "max_completion_tokens": "max_output_tokens",
               "response_format": "text.format", "messages": "input"}


def responses_param(param: str | None) -> str | None:
    if param is None:
        return None
    # A message's index is not the caller's input index (instructions and a replayed conversation come first).
    head = param.partition(".")[0].partition("[")[0]
    return PARAM_NAMES.get(head, param)


def item_messages(items: list[InputItem]) -> list[dict[str, Any]]:
    """Input items as chat messages (the form the internal request, the guardrails and the store use)."""
    messages: list[dict[str, Any]] = []
    for item in items:
        if isinstance(item, MessageItem):
            messages.append({"role": item.role, "content": item.text()})
        elif isinstance(item, FunctionCallItem):
            call = {"id": item.call_id, "type": "function",
                    "function": {"name": item.name, "arguments": item.arguments}}
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant" and last.get("tool_calls"):
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        elif isinstance(item, FunctionCallOutputItem):
            messages.append({"role": "tool", "content": item.output, "tool_call_id": item.call_id})
    return messages


def chat_request(request: ResponsesRequest, replayed: list[dict[str, Any]]) -> tuple[ChatCompletionRequest,
                                                                                    list[dict[str, Any]]]:
    """(the internal request, the new input as chat messages) for ``request`` continuing ``replayed``."""
    new_messages = item_messages(parse_items(request.input))
    messages: list[dict[str, Any]] = []
    if request.instructions is not None:
        messages.append({"role": "system", "content": request.instructions})
    messages += replayed + new_messages
    if not messages:
        raise invalid_request("input must contain at least one item", param="input")
    body: dict[str, Any] = {"model": request.model, "messages": messages, "stream": request.stream}
    for name, value in (("max_completion_tokens", request.max_output_tokens), ("temperature", request.temperature),
                        ("top_p", request.top_p), ("parallel_tool_calls", request.parallel_tool_calls)):
        if value is not None:
            body[name] = value
    tools = function_tools(request)
    if tools:
        body["tools"] = [{"type": "function", "function": tool.model_dump(exclude_none=True, exclude={"type"})}
                         for tool in tools]
    choice = tool_choice(request)
    if isinstance(choice, FunctionToolChoice):
        body["tool_choice"] = {"type": "function", "function": {"name": choice.name}}
    elif choice is not None:
        body["tool_choice"] = choice
    text_format = request.text.format if request.text is not None else None
    if isinstance(text_format, FormatJsonSchema):
        body["response_format"] = {"type": "json_schema", "json_schema": text_format.model_dump(
            by_alias=True, exclude_none=True, exclude={"type"})}
    elif isinstance(text_format, FormatJsonObject):
        body["response_format"] = {"type": "json_object"}
    try:
        return ChatCompletionRequest.model_validate(body), new_messages
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = [str(part) for part in first.get("loc", ())]
        param = responses_param(".".join(loc) or None)
        raise invalid_request(f"{param}: {first.get('msg', 'invalid value')}" if param else "invalid request",
                              param=param) from None
