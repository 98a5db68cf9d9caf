"""The Anthropic route, ``POST /v1/messages``. The body is parsed inside the handler (not by FastAPI) so that a
malformed request is refused and audited through the same path as every other outcome, in Anthropic's error shape,
which the OpenAPI document states for each error status the request path answers with."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from gateway.anthropic.schemas import MessagesRequest
from gateway.anthropic.surface import MessagesSurface
from gateway.openai.dependencies import ServicesDep
from gateway.openai.schemas import openapi_request_body
from gateway.openai.service import handle_call

ERROR_SCHEMA: dict[str, Any] = {
    "title": "AnthropicErrorResponse",
    "type": "object",
    "required": ["type", "error"],
    "additionalProperties": False,
    "properties": {
        "type": {"const": "error"},
        "error": {"type": "object", "required": ["type", "message"], "additionalProperties": False,
                  "properties": {"type": {"type": "string"}, "message": {"type": "string"}}},
        "request_id": {"type": "string"},
    },
}
ERRORS = {
    "400": "Invalid request (invalid_request_error)",
    "401": "Missing or invalid API key (authentication_error)",
    "403": "The key's policy does not allow this (permission_error)",
    "404": "Unknown model (not_found_error)",
    "429": "Rate limit or quota reached (rate_limit_error; `retry-after`, `x-ratelimit-*`)",
    "503": "Engine, store, rate limiter or audit trail unavailable, or overloaded (overloaded_error; `retry-after`)",
    "504": "The call passed the request timeout (timeout_error)",
}


def _openapi() -> dict[str, Any]:
    responses = {status: {"description": description,
                          "content": {"application/json": {"schema": ERROR_SCHEMA}}}
                 for status, description in ERRORS.items()}
    return {**openapi_request_body(MessagesRequest), "responses": responses}


router = APIRouter(prefix="/v1", tags=["anthropic"])


@router.post("/messages", openapi_extra=_openapi())
async def messages(request: Request, services: ServicesDep) -> Response:
    return await handle_call(services, request, MessagesSurface.for_request(request))
