"""The Anthropic route, ``POST /v1/messages``. The body is parsed inside the handler (not by FastAPI) so that a
malformed request is refused and audited through the same path as every other outcome, in Anthropic's error shape."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gateway.anthropic.schemas import MessagesRequest
from gateway.anthropic.surface import MessagesSurface
from gateway.openai.dependencies import ServicesDep
from gateway.openai.schemas import openapi_request_body
from gateway.openai.service import handle_call

router = APIRouter(prefix="/v1", tags=["anthropic"])


@router.post("/messages", openapi_extra=openapi_request_body(MessagesRequest))
async def messages(request: Request, services: ServicesDep) -> Response:
    return await handle_call(services, request, MessagesSurface.for_request(request))
