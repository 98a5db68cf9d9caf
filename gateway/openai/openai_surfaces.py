"""The OpenAI surfaces /v1/chat/completions and /v1/completions (and /v1/models, which only authenticates):
their bodies are the internal request as they stand, and their responses and SSE chunks are OpenAI's."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from pydantic import BaseModel, ValidationError
from starlette.responses import Response

from engine.tool_calls import ToolCall
from gateway.core.errors import APIError, invalid_request, validation_error
from gateway.openai import responses, structured
from gateway.openai.schemas import ChatCompletionRequest, CompletionRequest
from gateway.openai.streaming import SSE_DONE, sse_event
from gateway.openai.surface import CallMeta, CallResult, InternalRequest, bearer_credentials


class OpenAISurface:
    """What every OpenAI surface shares: Bearer credentials, OpenAI's error body, ``[DONE]`` at a stream's end."""

    endpoint = ""
    id_prefix = ""
    request_model: type[BaseModel] | None = None

    def credentials(self, request: Request) -> str | None:
        return bearer_credentials(request)

    def parse(self, body: dict[str, Any]) -> InternalRequest:
        if self.request_model is None:
            raise invalid_request(f"{self.endpoint} takes no request body")
        try:
            return self.request_model.model_validate(body)  # type: ignore[return-value]
        except ValidationError as exc:
            raise validation_error(exc.errors(), body) from None  # param named as OpenAI does

    def error_response(self, exc: APIError) -> Response:
        return exc.response()


class _ChatEncoder:
    def __init__(self, meta: CallMeta) -> None:
        self.meta = meta

    def _chunk(self, index: int, delta: dict[str, Any], logprobs: list[Any] | None,
               finish_reason: str | None) -> bytes:
        meta = self.meta
        return sse_event(responses.chat_chunk(
            response_id=meta.response_id, created=meta.created, model=meta.model, index=index, delta=delta,
            logprobs=logprobs, finish_reason=finish_reason, with_usage_field=meta.request.include_usage))

    def start(self) -> list[bytes]:
        return [self._chunk(index, {"role": "assistant", "content": ""}, None, None)
                for index in range(self.meta.choices)]

    def text(self, index: int, delta: str, logprobs: list[Any] | None) -> list[bytes]:
        return [self._chunk(index, {"content": delta}, (logprobs or []) if self.meta.want_logprobs else None, None)]

    def tool_calls(self, index: int, calls: list[ToolCall]) -> list[bytes]:
        return [self._chunk(index, delta, None, None) for delta in structured.stream_deltas(calls)]

    def finish(self, index: int, finish_reason: str, stop_reason: str | int | None = None) -> list[bytes]:
        return [self._chunk(index, {}, [] if self.meta.want_logprobs else None, finish_reason)]

    def usage(self, usage: dict[str, Any]) -> list[bytes]:
        if not self.meta.request.include_usage:
            return []
        meta = self.meta
        return [sse_event(responses.usage_chunk(response_id=meta.response_id, created=meta.created, model=meta.model,
                                                object_name="chat.completion.chunk", usage=usage))]

    def done(self) -> list[bytes]:
        return [SSE_DONE]

    def error(self, exc: APIError) -> list[bytes]:
        return [sse_event(exc.body())]


class _CompletionEncoder(_ChatEncoder):
    def _text_chunk(self, index: int, text: str, logprobs: list[Any] | None, finish_reason: str | None) -> bytes:
        meta = self.meta
        return sse_event(responses.completion_chunk(
            response_id=meta.response_id, created=meta.created, model=meta.model, index=index, text=text,
            logprobs=logprobs, finish_reason=finish_reason, with_usage_field=meta.request.include_usage))

    def start(self) -> list[bytes]:
        prefixes = self.meta.prefixes
        return [self._text_chunk(index, prefix, None, None) for index, prefix in enumerate(prefixes) if prefix]

    def text(self, index: int, delta: str, logprobs: list[Any] | None) -> list[bytes]:
        return [self._text_chunk(index, delta, (logprobs or []) if self.meta.want_logprobs else None, None)]

    def tool_calls(self, index: int, calls: list[ToolCall]) -> list[bytes]:
        return []  # completions offer no tools

    def finish(self, index: int, finish_reason: str, stop_reason: str | int | None = None) -> list[bytes]:
        return [self._text_chunk(index, "", [] if self.meta.want_logprobs else None, finish_reason)]

    def usage(self, usage: dict[str, Any]) -> list[bytes]:
        if not self.meta.request.include_usage:
            return []
        meta = self.meta
        return [sse_event(responses.usage_chunk(response_id=meta.response_id, created=meta.created, model=meta.model,
                                                object_name="text_completion", usage=usage))]


class ChatCompletionsSurface(OpenAISurface):
    endpoint = "chat.completions"
    id_prefix = "chatcmpl-"
    request_model = ChatCompletionRequest

    def render(self, result: CallResult) -> dict[str, Any]:
        meta = result.meta
        return responses.chat_completion(response_id=meta.response_id, created=meta.created, model=meta.model,
                                         choices=result.choices, want_logprobs=meta.want_logprobs,
                                         usage=result.usage)

    def encoder(self, meta: CallMeta) -> _ChatEncoder:
        return _ChatEncoder(meta)


class CompletionsSurface(OpenAISurface):
    endpoint = "completions"
    id_prefix = "cmpl-"
    request_model = CompletionRequest

    def render(self, result: CallResult) -> dict[str, Any]:
        meta = result.meta
        return responses.text_completion(response_id=meta.response_id, created=meta.created, model=meta.model,
                                         choices=result.choices, want_logprobs=meta.want_logprobs,
                                         usage=result.usage, prefixes=meta.prefixes)

    def encoder(self, meta: CallMeta) -> _CompletionEncoder:
        return _CompletionEncoder(meta)


class ModelsSurface(OpenAISurface):
    """GET /v1/models: authenticated and audited like every /v1 call; it has no body and no completion."""

    endpoint = "models"

    def render(self, result: CallResult) -> dict[str, Any]:
        raise NotImplementedError("/v1/models renders its own list")

    def encoder(self, meta: CallMeta) -> _ChatEncoder:
        raise NotImplementedError("/v1/models does not stream")


CHAT_COMPLETIONS = ChatCompletionsSurface()
COMPLETIONS = CompletionsSurface()
MODELS = ModelsSurface()
