"""Anthropic's server-sent events for one streamed message, as the official clients read them.

Each event is an ``event: <type>`` line and a ``data:`` line carrying the same ``type``::

    message_start -> (content_block_start -> ping (once) -> content_block_delta* -> content_block_stop)*
    -> message_delta (stop_reason, stop_sequence, usage) -> message_stop

Text arrives as ``text_delta``s in one text block; each tool call is a ``tool_use`` block whose ``input`` is sent as
one ``input_json_delta`` (the tool-call grammar's arguments are known whole once the call is). An error after the
stream started (status already 200) is an ``error`` event, after which nothing more is sent.
"""

from __future__ import annotations

from typing import Any

import orjson

from engine.tool_calls import ToolCall
from gateway.anthropic.errors import error_event
from gateway.anthropic.message import stop_reason, stop_sequence_of, tool_input, tool_use_id, usage_body
from gateway.core.errors import APIError


def sse(event: str, payload: dict[str, Any]) -> bytes:
    return b"event: " + event.encode() + b"\ndata: " + orjson.dumps({"type": event, **payload}) + b"\n\n"


class MessageStreamEncoder:
    """The events of one streamed message (Anthropic serves one choice per request: every ``index`` is 0)."""

    def __init__(self, *, msg_id: str, model: str, input_tokens: int = 0, cached_tokens: int = 0,
                 request_id: str | None = None) -> None:
        self.msg_id = msg_id
        self.model = model
        self.request_id = request_id
        self._input_tokens = input_tokens
        self._cached_tokens = cached_tokens
        self._blocks = 0  # content blocks started so far (the next block's index)
        self._open: str | None = None  # the type of the block being streamed, if one is open
        self._pinged = False
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self._ended = False
        self._stop_sequence: str | None = None  # the stop sequence that ended the output, if one did

    # -- events -------------------------------------------------------------------------------------------------
    def start(self) -> list[bytes]:
        usage = usage_body({"prompt_tokens": self._input_tokens, "completion_tokens": 0,
                            "prompt_tokens_details": {"cached_tokens": self._cached_tokens}})
        return [sse("message_start", {"message": {
            "id": self.msg_id, "type": "message", "role": "assistant", "model": self.model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}})]

    def text(self, index: int, delta: str, logprobs: list[Any] | None = None) -> list[bytes]:
        if not delta:
            return []
        events = [] if self._open == "text" else [*self._close(), *self._open_block({"type": "text", "text": ""})]
        events.append(sse("content_block_delta", {"index": self._blocks - 1,
                                                  "delta": {"type": "text_delta", "text": delta}}))
        return events

    def tool_calls(self, index: int, calls: list[ToolCall]) -> list[bytes]:
        events = self._close()
        for call in calls:
            events += self._open_block({"type": "tool_use", "id": tool_use_id(), "name": call.name, "input": {}})
            arguments = orjson.dumps(tool_input(call) or {}).decode()
            delta = {"type": "input_json_delta", "partial_json": arguments}
            events.append(sse("content_block_delta", {"index": self._blocks - 1, "delta": delta}))
            events += self._close()
        return events

    def finish(self, index: int, finish_reason: str, stop_reason: str | int | None = None) -> list[bytes]:
        self._finish_reason = finish_reason
        self._stop_sequence = stop_sequence_of(finish_reason, stop_reason)
        return self._close()

    def usage(self, usage: dict[str, Any]) -> list[bytes]:
        self._usage = usage
        return []

    def done(self) -> list[bytes]:
        if self._ended:
            return []
        self._ended = True
        events = self._close()
        usage = usage_body(self._usage or {"prompt_tokens": self._input_tokens, "completion_tokens": 0,
                                           "prompt_tokens_details": {"cached_tokens": self._cached_tokens}})
        stop_sequence = self._stop_sequence
        events.append(sse("message_delta", {
            "delta": {"stop_reason": stop_reason(self._finish_reason, stop_sequence), "stop_sequence": stop_sequence},
            "usage": usage}))
        events.append(sse("message_stop", {}))
        return events

    def error(self, exc: APIError) -> list[bytes]:
        self._ended = True
        return [error_event(exc, self.request_id)]

    # -- blocks -------------------------------------------------------------------------------------------------
    def _open_block(self, block: dict[str, Any]) -> list[bytes]:
        events = [sse("content_block_start", {"index": self._blocks, "content_block": block})]
        self._blocks += 1
        self._open = block["type"]
        if not self._pinged:  # Anthropic pings once the first block has started
            self._pinged = True
            events.append(sse("ping", {}))
        return events

    def _close(self) -> list[bytes]:
        if self._open is None:
            return []
        self._open = None
        return [sse("content_block_stop", {"index": self._blocks - 1})]
