"""``/v1/responses``: create (the one /v1 path, on the Responses surface), retrieve, delete and list the input items
of a stored response. Those three are authenticated, scoped to the caller's tenant (another tenant's id is a 404) and
audited like every /v1 call."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.responses import Response

from gateway.core.errors import APIError, invalid_request
from gateway.openai.dependencies import ServicesDep
from gateway.openai.openai_surfaces import OpenAISurface
from gateway.openai.schemas import openapi_request_body
from gateway.openai.service import CallHandler, handle_call
from gateway.openai.surface import CallMeta, CallResult, StreamEncoder
from gateway.responses_api.input_items import input_messages, items_of, page, parse_query
from gateway.responses_api.schemas import ResponsesRequest
from gateway.responses_api.store import ResponseStore, not_found
from gateway.responses_api.surface import ResponsesSurface
from gateway.services import GatewayServices

router = APIRouter(prefix="/v1", tags=["responses"])


def response_store(services: GatewayServices) -> ResponseStore:
    return ResponseStore(services.db, retry_after_s=services.settings.store_retry_after_s)


class _StoredResponseCall(OpenAISurface):
    """A call on one stored response (GET, DELETE, its input items): OpenAI's shapes, no body, no completion."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    # The handler of a stored-response call answers from the store: it never reaches the completion path that
    # renders or streams (a call that did would be a bug, so it fails loudly instead of answering something).
    def render(self, result: CallResult) -> dict[str, Any]:
        raise RuntimeError(f"{self.endpoint} renders no completion")

    def encoder(self, meta: CallMeta) -> StreamEncoder:
        raise RuntimeError(f"{self.endpoint} streams no completion")


RETRIEVE = _StoredResponseCall("responses.retrieve")
DELETE = _StoredResponseCall("responses.delete")
INPUT_ITEMS = _StoredResponseCall("responses.input_items")


class StoredResponseHandler(CallHandler):
    def __init__(self, services: GatewayServices, http_request: Request, surface: _StoredResponseCall,
                 response_id: str) -> None:
        super().__init__(services, http_request, surface)
        self.response_id = response_id

    async def _run(self) -> Response:
        await self._authenticate()
        tenant_id = self.record.tenant_id
        assert tenant_id is not None
        self.record.policy_version = (await self.services.policies.resolve(tenant_id)).version
        query = None
        if self.endpoint == INPUT_ITEMS.endpoint:
            query = parse_query(self.http.query_params)
        for name in self.http.query_params if query is None else ():
            # include / stream / starting_after: nothing is silently ignored
            raise invalid_request(f"The query parameter {name[:64]!r} is not supported", param=name[:64])
        store = response_store(self.services)
        self.record.decide("responses", response_id=self.response_id[:128])
        if self.endpoint == DELETE.endpoint:
            if not await store.delete(tenant_id, self.response_id):
                raise not_found(self.response_id)
            await self._audit(200)
            return JSONResponse({"id": self.response_id, "object": "response", "deleted": True})
        stored = await store.load(tenant_id, self.response_id)
        if stored is None:
            raise not_found(self.response_id)
        body = stored["body"]
        if query is not None:
            items = items_of(self.response_id, input_messages(stored["conversation"], body["output"]))
            body = page(items, query)
        await self._audit(200)
        return JSONResponse(body)


async def _stored_call(services: GatewayServices, request: Request, surface: _StoredResponseCall,
                       response_id: str) -> Response:
    try:
        return await StoredResponseHandler(services, request, surface, response_id).run()
    except APIError as exc:
        return surface.error_response(exc)


@router.post("/responses", openapi_extra=openapi_request_body(ResponsesRequest))
async def create_response(request: Request, services: ServicesDep) -> Response:
    return await handle_call(services, request, ResponsesSurface(response_store(services)))


@router.get("/responses/{response_id}")
async def retrieve_response(response_id: str, request: Request, services: ServicesDep) -> Response:
    return await _stored_call(services, request, RETRIEVE, response_id)


@router.get("/responses/{response_id}/input_items")
async def list_input_items(response_id: str, request: Request, services: ServicesDep) -> Response:
    return await _stored_call(services, request, INPUT_ITEMS, response_id)


@router.delete("/responses/{response_id}")
async def delete_response(response_id: str, request: Request, services: ServicesDep) -> Response:
    return await _stored_call(services, request, DELETE, response_id)
