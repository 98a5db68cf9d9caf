"""``POST /v1/responses`` as a surface of the one /v1 request path: one instance per request.

A response's id is its own random ``resp_`` id (not derived from the request id, which a client may choose), so a
stored response can be neither guessed nor collided with. The call's audit record names it in a ``responses``
decision, with whether it was stored and under which content mode.
"""

from __future__ import annotations

import secrets
from typing import Any

from fastapi import Request
from starlette.responses import Response

from gateway.core.errors import APIError, invalid_request
from gateway.openai.call_record import CallRecord
from gateway.openai.schemas import ChatCompletionRequest
from gateway.openai.surface import CallMeta, CallResult, bearer_credentials
from gateway.responses_api.models import StoredResponse
from gateway.responses_api.render import ResponseShape, output_items, output_messages
from gateway.responses_api.schemas import ResponsesRequest, parse_request
from gateway.responses_api.store import ResponseStore, not_found
from gateway.responses_api.stream import ResponsesStreamEncoder
from gateway.responses_api.translate import chat_request, responses_param
from policies import AuditContent


def in_responses_terms(exc: APIError) -> APIError:
    """The error with ``param`` named as the Responses API names it (``max_output_tokens``, ``text.format``)."""
    param = responses_param(exc.param)
    if param == exc.param:
        return exc
    renamed = APIError(exc.status, exc.message, type=exc.type, code=exc.code, param=param, headers=exc.headers,
                       decision=exc.decision)
    return renamed


class ResponsesSurface:
    endpoint = "responses"
    id_prefix = "resp_"

    def __init__(self, store: ResponseStore) -> None:
        self.store = store
        self.response_id = "resp_" + secrets.token_hex(24)
        self.request: ResponsesRequest | None = None
        self._replayed: list[dict[str, Any]] = []  # the continued conversation (previous_response_id)
        self._new_messages: list[dict[str, Any]] = []  # this request's input as chat messages
        self._body: dict[str, Any] | None = None  # the non-streamed response, once rendered
        self._encoder: ResponsesStreamEncoder | None = None

    def credentials(self, request: Request) -> str | None:
        return bearer_credentials(request)

    async def recall(self, body: dict[str, Any], tenant_id: str) -> None:
        previous = body.get("previous_response_id")
        if not isinstance(previous, str) or not previous or len(previous) > 128:
            return  # absent, or a type/length parse() refuses
        stored = await self.store.load(tenant_id, previous)
        if stored is None:
            error = not_found(previous)
            error.param = "previous_response_id"
            raise error
        if stored["conversation"] is None:
            raise invalid_request(f"Response '{previous}' was stored without its content (this tenant's audit-content "
                                  "policy keeps hashes only) and cannot be continued", param="previous_response_id")
        self._replayed = stored["conversation"]

    def parse(self, body: dict[str, Any]) -> ChatCompletionRequest:
        self.request = parse_request(body)
        chat, self._new_messages = chat_request(self.request, self._replayed)
        return chat

    def _shape(self, meta: CallMeta) -> ResponseShape:
        assert self.request is not None
        return ResponseShape(self.request, response_id=self.response_id, created=meta.created, model=meta.model)

    def render(self, result: CallResult) -> dict[str, Any]:
        choice = result.choices[0]
        self._body = self._shape(result.meta).finished(output_items(choice), choice.finish_reason, result.usage)
        return self._body

    def encoder(self, meta: CallMeta) -> ResponsesStreamEncoder:
        self._encoder = ResponsesStreamEncoder(self._shape(meta))
        return self._encoder

    def error_response(self, exc: APIError) -> Response:
        return in_responses_terms(exc).response()

    async def persist(self, result: CallResult, record: CallRecord) -> None:
        assert self.request is not None and record.tenant_id is not None
        if not self.request.store:
            record.decide("responses", response_id=self.response_id, stored=False)
            return
        body = self._body if self._encoder is None else self._encoder.final_body()
        assert body is not None
        mode = record.audit_content or AuditContent.HASHES
        conversation: list[dict[str, Any]] | None
        if mode is AuditContent.FULL:
            conversation = self._replayed + self._new_messages + output_messages(body["output"])
        elif mode is AuditContent.REDACTED:
            seen = record.prompt_screened if record.prompt_screened is not None else record.prompt
            if self.request.instructions is not None:
                seen = seen[1:]  # instructions are not carried into a continuation (as OpenAI does)
            conversation = list(seen) + output_messages(body["output"])
        else:
            conversation, body = None, {**body, "output": []}
        await self.store.save(StoredResponse(
            id=self.response_id, tenant_id=record.tenant_id, request_id=record.request_id, model=result.meta.model,
            previous_response_id=self.request.previous_response_id, content_mode=str(mode),
            conversation=conversation, body=body))
        record.decide("responses", response_id=self.response_id, stored=True, content=str(mode))
