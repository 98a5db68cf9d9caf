"""The /v1 routes. Bodies are parsed inside the handler (not by FastAPI) so that a malformed request is
refused and audited through the same path as every other outcome."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gateway.openai.dependencies import ServicesDep, services_of
from gateway.openai.openai_surfaces import CHAT_COMPLETIONS, COMPLETIONS
from gateway.openai.schemas import ChatCompletionRequest, CompletionRequest, openapi_request_body
from gateway.openai.service import handle_call, handle_models

router = APIRouter(prefix="/v1", tags=["openai"])


@router.get("/models")
async def list_models(request: Request, services: ServicesDep) -> Response:
    return await handle_models(services, request)


@router.post("/chat/completions", openapi_extra=openapi_request_body(ChatCompletionRequest))
async def chat_completions(request: Request) -> Response:
    return await handle_call(services_of(request), request, CHAT_COMPLETIONS)


@router.post("/completions", openapi_extra=openapi_request_body(CompletionRequest))
async def completions(request: Request) -> Response:
    return await handle_call(services_of(request), request, COMPLETIONS)
