"""The Responses API's streamed events (``event: <type>`` + ``data: {...}``, each with its ``sequence_number``):

``response.created``, ``response.in_progress``; per output item ``response.output_item.added``, for a message
``response.content_part.added``, ``response.output_text.delta``... ``response.output_text.done``,
``response.content_part.done``, for a function call ``response.function_call_arguments.delta`` / ``.done``;
``response.output_item.done``; finally ``response.completed`` (``response.incomplete`` when the output was cut at
``max_output_tokens`` or by a content filter), sent once the call's audit record is durable. An error after the
stream started is an ``error`` event followed by ``response.failed``, whose response carries the error and the
output sent so far (a message cut short is ``incomplete``); nothing follows it.
"""

from __future__ import annotations

from typing import Any

import orjson

from engine.tool_calls import ToolCall
from gateway.core.errors import APIError
from gateway.openai.structured import new_call_id
from gateway.responses_api.render import (
    ResponseShape,
    function_call_item,
    item_id,
    message_item,
    status_of,
    text_part,
)
from gateway.responses_api.translate import responses_param


class ResponsesStreamEncoder:
    def __init__(self, shape: ResponseShape) -> None:
        self.shape = shape
        self.sequence = 0
        self.output: list[dict[str, Any]] = []  # finished output items, in order
        self.finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self._message: dict[str, Any] | None = None  # the open message item
        self._text = ""

    def _event(self, kind: str, **fields: Any) -> bytes:
        payload = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(payload) + b"\n\n"

    def _in_progress(self) -> dict[str, Any]:
        return self.shape.body(status="in_progress", output=[], usage=None)

    def start(self) -> list[bytes]:
        return [self._event("response.created", response=self._in_progress()),
                self._event("response.in_progress", response=self._in_progress())]

    def _open_message(self) -> list[bytes]:
        self._message = message_item("", status="in_progress", item=item_id("msg"))
        self._message["content"] = []
        where = {"output_index": len(self.output)}
        return [self._event("response.output_item.added", **where, item=self._message),
                self._event("response.content_part.added", item_id=self._message["id"], **where, content_index=0,
                            part=text_part(""))]

    def text(self, index: int, delta: str, logprobs: list[Any] | None) -> list[bytes]:
        if not delta:
            return []
        events = self._open_message() if self._message is None else []
        self._text += delta
        assert self._message is not None
        events.append(self._event("response.output_text.delta", item_id=self._message["id"],
                                  output_index=len(self.output), content_index=0, delta=delta, logprobs=[]))
        return events

    def tool_calls(self, index: int, calls: list[ToolCall]) -> list[bytes]:
        events: list[bytes] = []
        for call in calls:
            where = {"output_index": len(self.output)}
            item = function_call_item(call.name, "", new_call_id(), status="in_progress")
            events.append(self._event("response.output_item.added", **where, item=item))
            events.append(self._event("response.function_call_arguments.delta", item_id=item["id"], **where,
                                      delta=call.arguments))
            events.append(self._event("response.function_call_arguments.done", item_id=item["id"], **where,
                                      name=call.name, arguments=call.arguments))
            done = {**item, "arguments": call.arguments, "status": "completed"}
            events.append(self._event("response.output_item.done", **where, item=done))
            self.output.append(done)
        return events

    def finish(self, index: int, finish_reason: str, stop_reason: str | int | None = None) -> list[bytes]:
        self.finish_reason = finish_reason
        if self.output and self._message is None:
            return []  # the output was tool calls
        events = self._open_message() if self._message is None else []
        assert self._message is not None
        status, _ = status_of(finish_reason)
        where = {"item_id": self._message["id"], "output_index": len(self.output), "content_index": 0}
        part = text_part(self._text)
        item = {**self._message, "status": status, "content": [part]}
        events += [self._event("response.output_text.done", **where, text=self._text, logprobs=[]),
                   self._event("response.content_part.done", **where, part=part),
                   self._event("response.output_item.done", output_index=len(self.output), item=item)]
        self.output.append(item)
        return events

    def usage(self, usage: dict[str, Any]) -> list[bytes]:
        self._usage = usage
        return []

    def final_body(self) -> dict[str, Any]:
        return self.shape.finished(self.output, self.finish_reason, self._usage or _no_usage())

    def done(self) -> list[bytes]:
        body = self.final_body()
        kind = "response.completed" if body["status"] == "completed" else "response.incomplete"
        return [self._event(kind, response=body)]

    def error(self, exc: APIError) -> list[bytes]:
        code = exc.code or exc.type
        output = list(self.output)
        if self._message is not None and self.finish_reason is None:
            output.append({**self._message, "status": "incomplete", "content": [text_part(self._text)]})
        failed = self.shape.failed(output, {"code": failure_code(exc), "message": exc.message}, self._usage)
        return [self._event("error", code=code, message=exc.message, param=responses_param(exc.param)),
                self._event("response.failed", response=failed)]


def failure_code(exc: APIError) -> str:
    """The failed response's ``error.code``, one of the codes OpenAI's response object allows (the ``error`` event
    before it carries Warden's own code)."""
    if exc.status == 429:
        return "rate_limit_exceeded"
    if exc.status == 400:
        return "invalid_prompt"
    return "server_error"


def _no_usage() -> dict[str, Any]:
    return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0,
            "prompt_tokens_details": {"cached_tokens": 0}}

