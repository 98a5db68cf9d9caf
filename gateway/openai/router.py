"""The /v1 routes. Bodies are parsed inside the handler (not by FastAPI) so that a malformed request is
refused and audited through the same path as every other outcome.

The two call routes are also served as plain Starlette routes (``hot_routes``) that the app puts first in line:
FastAPI's dispatch to an included router's route (matching each included router, then its request handler and
dependency resolution, for a route that has none) is CPU on the event loop that every call would pay for nothing
these routes use. Their APIRoutes stay for the OpenAPI document; exceptions still reach the app's handlers (Starlette's
request wrapper looks them up the same way).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response
from starlette.routing import Route

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


def hot_routes() -> list[Route]:
    """``chat_completions`` and ``completions`` as plain routes, for the app to match before its included routers."""
    return [Route(f"{router.prefix}/chat/completions", chat_completions, methods=["POST"], include_in_schema=False),
            Route(f"{router.prefix}/completions", completions, methods=["POST"], include_in_schema=False)]
