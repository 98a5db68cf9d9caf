"""Response objects of the Responses API (``object: "response"``) and their output items, as plain dicts."""

from __future__ import annotations

import secrets
from typing import Any

from gateway.openai.responses import ChoiceState
from gateway.responses_api.schemas import FormatJsonObject, FormatJsonSchema, ResponsesRequest, function_tools

# The engine's finish reason -> (status, incomplete_details.reason).
_INCOMPLETE = {"length": "max_output_tokens", "content_filter": "content_filter"}


def item_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(16)}"


def status_of(finish_reason: str | None) -> tuple[str, dict[str, str] | None]:
    reason = _INCOMPLETE.get(finish_reason or "")
    return ("incomplete", {"reason": reason}) if reason else ("completed", None)


def usage_body(usage: dict[str, Any]) -> dict[str, Any]:
    """Chat's usage body in the Responses API's names."""
    return {"input_tokens": usage["prompt_tokens"],
            "input_tokens_details": {"cached_tokens": usage["prompt_tokens_details"]["cached_tokens"],
                                     "cache_write_tokens": 0},
            "output_tokens": usage["completion_tokens"],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage["total_tokens"]}


def text_part(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def message_item(text: str, *, status: str, item: str | None = None) -> dict[str, Any]:
    return {"type": "message", "id": item or item_id("msg"), "status": status, "role": "assistant",
            "content": [text_part(text)]}


def function_call_item(name: str, arguments: str, call_id: str, *, status: str = "completed",
                       item: str | None = None) -> dict[str, Any]:
    return {"type": "function_call", "id": item or item_id("fc"), "call_id": call_id, "name": name,
            "arguments": arguments, "status": status}


def output_items(choice: ChoiceState) -> list[dict[str, Any]]:
    """A finished (non-streamed) choice as output items: its tool calls, else one assistant message."""
    status, _ = status_of(choice.finish_reason)
    if choice.tool_calls:
        return [function_call_item(call["function"]["name"], call["function"]["arguments"], call["id"])
                for call in choice.tool_calls]
    return [message_item(choice.text, status=status)]


def output_messages(output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Output items as the chat messages a continuation replays."""
    messages: list[dict[str, Any]] = []
    for item in output:
        if item["type"] == "message":
            messages.append({"role": "assistant", "content": "".join(p["text"] for p in item["content"])})
        elif item["type"] == "function_call":
            call = {"id": item["call_id"], "type": "function",
                    "function": {"name": item["name"], "arguments": item["arguments"]}}
            if messages and messages[-1].get("tool_calls"):
                messages[-1]["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
    return messages


class ResponseShape:
    """The fields a response object echoes from its request, and the object itself at any stage."""

    def __init__(self, request: ResponsesRequest, *, response_id: str, created: int, model: str) -> None:
        self.request = request
        self.response_id = response_id
        self.created = created
        self.model = model

    def _text(self) -> dict[str, Any]:
        text_format = self.request.text.format if self.request.text is not None else None
        if isinstance(text_format, FormatJsonSchema):
            return {"format": text_format.model_dump(by_alias=True, exclude_none=True)}
        if isinstance(text_format, FormatJsonObject):
            return {"format": {"type": "json_object"}}
        return {"format": {"type": "text"}}

    def _tool_choice(self) -> Any:
        choice = self.request.tool_choice
        return "auto" if choice is None else choice

    def body(self, *, status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None,
             incomplete_details: dict[str, str] | None = None, error: dict[str, str] | None = None) -> dict[str, Any]:
        request = self.request
        tools = [{**tool.model_dump(exclude_none=True), "strict": tool.strict is not False}
                 for tool in function_tools(request)]
        return {
            "id": self.response_id, "object": "response", "created_at": self.created, "status": status,
            "background": False, "error": error, "incomplete_details": incomplete_details,
            "instructions": request.instructions, "max_output_tokens": request.max_output_tokens,
            "model": self.model, "output": output,
            "parallel_tool_calls": request.parallel_tool_calls is not False,
            "previous_response_id": request.previous_response_id,
            "reasoning": {"effort": None, "summary": None}, "service_tier": "default", "store": request.store,
            "temperature": 1.0 if request.temperature is None else request.temperature,
            "text": self._text(), "tool_choice": self._tool_choice(), "tools": tools,
            "top_p": 1.0 if request.top_p is None else request.top_p, "truncation": "disabled",
            "usage": usage, "user": request.user, "metadata": request.metadata or {},
        }

    def finished(self, output: list[dict[str, Any]], finish_reason: str | None,
                 usage: dict[str, Any]) -> dict[str, Any]:
        status, details = status_of(finish_reason)
        return self.body(status=status, output=output, usage=usage_body(usage), incomplete_details=details)

    def failed(self, output: list[dict[str, Any]], error: dict[str, str],
               usage: dict[str, Any] | None) -> dict[str, Any]:
        """The response of a stream that failed after it started: what it had output, and why it failed."""
        return self.body(status="failed", output=output, usage=usage_body(usage) if usage is not None else None,
                         error=error)
