"""OpenAI response bodies (non-streamed objects and streamed chunks), built as plain dicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.outputs import TokenLogprob, Usage

SYSTEM_FINGERPRINT = "warden"


@dataclass(slots=True)
class ChoiceState:
    """What one choice has produced so far."""

    text: str = ""  # released text (after output guardrails)
    raw_text: str = ""  # what the model produced
    logprobs: list[TokenLogprob] = field(default_factory=list)
    finish_reason: str | None = None
    stop_reason: str | int | None = None  # the engine's: the stop string or requested stop token that ended it
    usage: Usage | None = None
    tool_calls: list[dict[str, Any]] | None = None  # OpenAI tool_calls, when the output was a tool call


def usage_body(prompt_tokens: int, completion_tokens: int, cached_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }


def _token_bytes(lp: TokenLogprob) -> list[int]:
    return lp.bytes if lp.bytes is not None else list(lp.token.encode("utf-8", "surrogatepass"))


def chat_logprobs(logprobs: list[TokenLogprob]) -> dict[str, Any]:
    return {
        "content": [
            {
                "token": lp.token,
                "logprob": lp.logprob,
                "bytes": _token_bytes(lp),
                "top_logprobs": [
                    {"token": tok, "logprob": value, "bytes": list(tok.encode("utf-8", "surrogatepass"))}
                    for _tid, tok, value in lp.top_logprobs
                ],
            }
            for lp in logprobs
        ],
        "refusal": None,
    }


def completion_logprobs(logprobs: list[TokenLogprob], text_offset: int = 0) -> dict[str, Any]:
    offsets: list[int] = []
    position = text_offset
    for lp in logprobs:
        offsets.append(position)
        position += len(lp.token)
    return {
        "tokens": [lp.token for lp in logprobs],
        "token_logprobs": [lp.logprob for lp in logprobs],
        "top_logprobs": [{tok: value for _tid, tok, value in lp.top_logprobs} for lp in logprobs],
        "text_offset": offsets,
    }


def _message(choice: ChoiceState) -> dict[str, Any]:
    if choice.tool_calls:
        return {"role": "assistant", "content": None, "refusal": None, "tool_calls": choice.tool_calls}
    return {"role": "assistant", "content": choice.text, "refusal": None}


def chat_completion(*, response_id: str, created: int, model: str, choices: list[ChoiceState],
                    want_logprobs: bool, usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "chat.completion",
        "created": created,
        "model": model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [
            {
                "index": index,
                "message": _message(choice),
                "logprobs": chat_logprobs(choice.logprobs) if want_logprobs else None,
                "finish_reason": choice.finish_reason,
            }
            for index, choice in enumerate(choices)
        ],
        "usage": usage,
    }


def text_completion(*, response_id: str, created: int, model: str, choices: list[ChoiceState],
                    want_logprobs: bool, usage: dict[str, Any], prefixes: list[str]) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "text_completion",
        "created": created,
        "model": model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [
            {
                "index": index,
                "text": prefixes[index] + choice.text,
                "logprobs": completion_logprobs(choice.logprobs, len(prefixes[index])) if want_logprobs else None,
                "finish_reason": choice.finish_reason,
            }
            for index, choice in enumerate(choices)
        ],
        "usage": usage,
    }


def chat_chunk(*, response_id: str, created: int, model: str, index: int, delta: dict[str, Any],
               logprobs: list[TokenLogprob] | None, finish_reason: str | None,
               with_usage_field: bool) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": response_id,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [{"index": index, "delta": delta,
                     "logprobs": chat_logprobs(logprobs) if logprobs is not None else None,
                     "finish_reason": finish_reason}],
    }
    if with_usage_field:
        chunk["usage"] = None
    return chunk


def completion_chunk(*, response_id: str, created: int, model: str, index: int, text: str,
                     logprobs: list[TokenLogprob] | None, finish_reason: str | None,
                     with_usage_field: bool) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": response_id,
        "object": "text_completion",
        "created": created,
        "model": model,
        "system_fingerprint": SYSTEM_FINGERPRINT,
        "choices": [{"index": index, "text": text,
                     "logprobs": completion_logprobs(logprobs) if logprobs is not None else None,
                     "finish_reason": finish_reason}],
    }
    if with_usage_field:
        chunk["usage"] = None
    return chunk


def usage_chunk(*, response_id: str, created: int, model: str, object_name: str,
                usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": response_id, "object": object_name, "created": created, "model": model,
            "system_fingerprint": SYSTEM_FINGERPRINT, "choices": [], "usage": usage}
