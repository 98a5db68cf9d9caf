"""Anthropic Messages response bodies, built as plain dicts from what the internal request path produced.

Usage follows Anthropic's accounting: ``input_tokens`` are the prompt tokens *not* read from the cache, so
``input_tokens + cache_read_input_tokens`` is the whole prompt. Warden's prefix cache is automatic, so nothing is
ever billed as a cache write (``cache_creation_input_tokens`` is 0).
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from engine.tool_calls import ToolCall

# The internal finish reasons (OpenAI's) and the stop reasons Anthropic names for them. "stop" is end_turn unless a
# stop sequence ended the output; "content_filter" (output guardrails withheld part of it) is Anthropic's "refusal".
_STOP_REASONS = {"length": "max_tokens", "tool_calls": "tool_use", "content_filter": "refusal"}


def message_id(request_id: str) -> str:
    return "msg_" + request_id.removeprefix("req_")


def tool_use_id() -> str:
    return "toolu_" + secrets.token_hex(12)


def stop_sequence_of(finish_reason: str | None, engine_stop_reason: str | int | None) -> str | None:
    """The stop sequence that ended the output: the engine's stop reason when it is a stop string (a stop token id
    cannot be one, as Anthropic's requests name only strings) and the output ended there."""
    return engine_stop_reason if finish_reason == "stop" and isinstance(engine_stop_reason, str) else None


def stop_reason(finish_reason: str | None, stop_sequence: str | None) -> str | None:
    if finish_reason is None:
        return None
    if finish_reason == "stop":
        return "stop_sequence" if stop_sequence is not None else "end_turn"
    return _STOP_REASONS.get(finish_reason, "end_turn")


def usage_body(usage: dict[str, Any]) -> dict[str, Any]:
    """Anthropic's usage object from the internal (OpenAI-shaped) usage."""
    prompt = int(usage.get("prompt_tokens", 0))
    cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0))
    return {"input_tokens": prompt - cached, "output_tokens": int(usage.get("completion_tokens", 0)),
            "cache_read_input_tokens": cached, "cache_creation_input_tokens": 0, "service_tier": "standard"}


def tool_input(call: ToolCall) -> dict[str, Any] | None:
    """A call's arguments as the ``input`` object (the grammar holds them to the tool's object schema); None when
    they are not an object, which cannot be a ``tool_use`` block."""
    try:
        value = json.loads(call.arguments)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the interpreter parses
        return None
    return value if isinstance(value, dict) else None


def tool_use_block(call: ToolCall, block_id: str | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": block_id or tool_use_id(), "name": call.name, "input": tool_input(call) or {}}


def content_blocks(text: str, tool_calls: list[ToolCall] | None) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if text:
        blocks.append({"type": "text", "text": text})
    blocks.extend(tool_use_block(call) for call in tool_calls or [])
    return blocks


def message_body(*, msg_id: str, model: str, text: str, tool_calls: list[ToolCall] | None,
                 finish_reason: str | None, stop_sequence: str | None, usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content_blocks(text, tool_calls),
        "stop_reason": stop_reason(finish_reason, stop_sequence),
        "stop_sequence": stop_sequence if finish_reason == "stop" else None,
        "usage": usage_body(usage),
    }
