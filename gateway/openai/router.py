"""The /v1 routes. Bodies are parsed inside the handler (not by FastAPI) so that a malformed request is
refused and audited through the same path as every other outcome.

The two call routes are served by ``HotCalls``, the innermost of the app's middleware: a POST to either goes
straight to its handler, past Starlette's exception middleware, FastAPI's exit-stack middleware, the router's
matching and its request-response wrappers, which every call would otherwise pay CPU on the event loop for and
none of which these routes use. An exception the handler lets out is answered by the app's own handler for it, as
the exception middleware would answer it (an unexpected one goes on to the server-error middleware's 500). The
routes are also kept, as plain Starlette routes first in line (``hot_routes``), for what the middleware leaves to
the router (another method: 405), and as APIRoutes for the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import APIRouter, Request
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

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


HOT_CALLS: dict[str, Callable[[Request], Awaitable[Response]]] = {
    f"{router.prefix}/chat/completions": chat_completions,
    f"{router.prefix}/completions": completions,
}


def hot_routes() -> list[Route]:
    """``chat_completions`` and ``completions`` as plain routes, for the app to match before its included routers."""
    return [Route(path, endpoint, methods=["POST"], include_in_schema=False) for path, endpoint in HOT_CALLS.items()]


ExceptionHandler = Callable[[Request, Exception], Awaitable[Response]]


class HotCalls:
    """Serves a POST to one of ``HOT_CALLS`` without the layers below it (see the module's docstring).
    ``exception_handlers`` is the app's own mapping, read when an exception needs a handler (handlers registered
    after the middleware count)."""

    def __init__(self, app: ASGIApp, exception_handlers: Mapping[Any, Any]) -> None:
        self.app = app
        self._exception_handlers = exception_handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        endpoint = (HOT_CALLS.get(scope["path"]) if scope["type"] == "http" and scope["method"] == "POST"
                    and not scope.get("root_path") else None)
        if endpoint is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive, send)
        try:
            response = await endpoint(request)
        except Exception as exc:
            handler = self._handler_for(exc)
            if handler is None:
                raise  # the server-error middleware's 500, with the app's handler for Exception
            response = await handler(request, exc)
        await response(scope, receive, send)

    def _handler_for(self, exc: Exception) -> ExceptionHandler | None:
        """The handler Starlette's exception middleware would pick: by status code for an HTTPException, else the
        nearest class in the exception's MRO; ``Exception`` itself is the server-error middleware's."""
        handlers = self._exception_handlers
        if isinstance(exc, HTTPException) and exc.status_code in handlers:
            handler: ExceptionHandler = handlers[exc.status_code]
            return handler
        for cls in type(exc).__mro__:
            if cls is Exception:
                return None
            if cls in handlers:
                handler = handlers[cls]
                return handler
        return None
