"""``POST /v1/messages``: Anthropic's Messages API as a surface of the one /v1 request path.

Credentials: ``x-api-key: wdn_...`` (what Anthropic's clients send) or ``Authorization: Bearer wdn_...``; when both
are present ``x-api-key`` is the one checked. ``anthropic-version``: Warden serves the Messages API's shapes of
``2023-06-01`` and the versions since, which only added fields (current clients send a later date); whatever a later
version adds that Warden does not serve is in the body, which is validated strictly, so it is refused by name. An
earlier version (``2023-01-01`` streamed differently) or a value that is not a date is a 400; a request without the
header is served as ``2023-06-01``. ``anthropic-beta`` is not read, for the same reason: a beta feature that changes
the request shows in its body.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import Request
from starlette.responses import Response

from engine.tool_calls import ToolCall
from gateway.anthropic.errors import error_response
from gateway.anthropic.message import message_body, stop_sequence_of
from gateway.anthropic.stream import MessageStreamEncoder
from gateway.anthropic.translate import to_chat_request
from gateway.core.errors import APIError, invalid_request
from gateway.openai.schemas import ChatCompletionRequest
from gateway.openai.surface import CallMeta, CallResult

OLDEST_VERSION = "2023-06-01"
VERSION_HEADER = "anthropic-version"
_VERSION_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def version_supported(version: str | None) -> bool:
    return version is None or (bool(_VERSION_PATTERN.match(version)) and version >= OLDEST_VERSION)


class MessagesSurface:
    endpoint = "messages"
    id_prefix = "msg_"

    def __init__(self, version: str | None = None, request_id: str | None = None) -> None:
        self.version = version
        self.request_id = request_id

    @classmethod
    def for_request(cls, request: Request) -> MessagesSurface:
        return cls(request.headers.get(VERSION_HEADER), getattr(request.state, "request_id", None))

    def credentials(self, request: Request) -> str | None:
        api_key = request.headers.get("x-api-key")
        if api_key is not None:
            return f"Bearer {api_key}"
        return request.headers.get("authorization")

    def parse(self, body: dict[str, Any]) -> ChatCompletionRequest:
        if not version_supported(self.version):
            raise invalid_request(f"anthropic-version must be a version date from {OLDEST_VERSION} on (or absent)",
                                  param=VERSION_HEADER, code="unsupported_version")
        return to_chat_request(body)

    def render(self, result: CallResult) -> dict[str, Any]:
        choice = result.choices[0]
        calls = [ToolCall(c["function"]["name"], c["function"]["arguments"]) for c in choice.tool_calls or []]
        body = message_body(msg_id=result.meta.response_id, model=result.meta.model,
                            text="" if calls else choice.text, tool_calls=calls, finish_reason=choice.finish_reason,
                            stop_sequence=stop_sequence_of(choice.finish_reason, choice.stop_reason),
                            usage=result.usage)
        # The call ids the chat path assigned, so the ids a client answers are the ones the audit holds.
        tool_blocks = [block for block in body["content"] if block["type"] == "tool_use"]
        for block, call in zip(tool_blocks, choice.tool_calls or [], strict=True):
            block["id"] = "toolu_" + call["id"].removeprefix("call_")
        return body

    def encoder(self, meta: CallMeta) -> MessageStreamEncoder:
        return MessageStreamEncoder(msg_id=meta.response_id, model=meta.model, input_tokens=meta.prompt_tokens,
                                    cached_tokens=meta.cached_tokens, request_id=self.request_id)

    def error_response(self, exc: APIError) -> Response:
        return error_response(exc, self.request_id)
