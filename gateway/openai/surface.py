"""API surfaces: the translation at both ends of the one /v1 request path.

A surface is an API shape (OpenAI chat completions, OpenAI completions, the Responses API, Anthropic's Messages
API). It reads the caller's credentials and body into the internal request (a ``ChatCompletionRequest``, or a
``CompletionRequest`` for /v1/completions) and renders the finished call, streamed or whole, and its errors back
into its own shape. Everything between (auth, policy, limits, guardrails, engine, audit, deadlines, disconnects)
is ``gateway.openai.service.CallHandler``, the same for every surface, so no surface can govern less than another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fastapi import Request
from starlette.responses import Response

from engine.tool_calls import ToolCall
from gateway.core.errors import APIError
from gateway.openai.responses import ChoiceState
from gateway.openai.schemas import ChatCompletionRequest, CompletionRequest

if TYPE_CHECKING:
    from gateway.openai.call_record import CallRecord

InternalRequest = ChatCompletionRequest | CompletionRequest


@dataclass(slots=True)
class CallMeta:
    """What a response's every part names: known once the call is admitted, before the engine runs."""

    response_id: str
    created: int
    model: str
    request: InternalRequest
    choices: int  # engine outputs (prompts x n)
    prefixes: list[str]  # echo (completions): the prompt text each choice's text starts with
    want_logprobs: bool
    prompt_tokens: int = 0  # the prompts' tokens as the engine receives them (after input guardrails), each once
    # Of those, read from the tenant's prefix cache. Known only once the engine has taken the prompt: set for a
    # stream of one prompt (it starts after the engine's first output), else 0 here (the final usage has it).
    cached_tokens: int = 0


@dataclass(slots=True)
class CallResult:
    """A finished call: its choices (released text, tool calls in OpenAI's form, finish reasons) and usage."""

    meta: CallMeta
    choices: list[ChoiceState]
    usage: dict[str, Any]  # OpenAI's usage body (prompt/completion/total tokens, cached tokens)


class StreamEncoder(Protocol):
    """One per streamed response; each method returns the SSE bytes to send (maybe none)."""

    def start(self) -> list[bytes]: ...

    def text(self, index: int, delta: str, logprobs: list[Any] | None) -> list[bytes]: ...

    def tool_calls(self, index: int, calls: list[ToolCall]) -> list[bytes]: ...

    def finish(self, index: int, finish_reason: str, stop_reason: str | int | None = None) -> list[bytes]: ...

    def usage(self, usage: dict[str, Any]) -> list[bytes]: ...

    def done(self) -> list[bytes]: ...  # sent after the audit record is durable

    def error(self, exc: APIError) -> list[bytes]: ...


class Surface(Protocol):
    endpoint: str  # the audit record's endpoint: "chat.completions", "completions", "responses", "messages"
    id_prefix: str  # a response id is this prefix and the request id's hex ("chatcmpl-", "resp_", "msg_")

    def credentials(self, request: Request) -> str | None: ...  # the raw Authorization value ("Bearer <key>")

    def parse(self, body: dict[str, Any]) -> InternalRequest: ...  # APIError(400, param=...) on bad input

    def render(self, result: CallResult) -> dict[str, Any]: ...

    def encoder(self, meta: CallMeta) -> StreamEncoder: ...

    def error_response(self, exc: APIError) -> Response: ...


@runtime_checkable
class PersistsResults(Protocol):
    """A surface that keeps what it answered (the Responses API's ``store``). ``persist`` runs after the call's
    output is final and before its audit record is written, so a failure is audited as the call's outcome."""

    async def persist(self, result: CallResult, record: CallRecord) -> None: ...


@runtime_checkable
class RecallsState(Protocol):
    """A surface whose request may continue stored state (the Responses API's ``previous_response_id``).
    ``recall`` runs once the tenant is known and before ``parse``; a foreign or unknown reference is its 404."""

    async def recall(self, body: dict[str, Any], tenant_id: str) -> None: ...


def bearer_credentials(request: Request) -> str | None:
    return request.headers.get("authorization")

