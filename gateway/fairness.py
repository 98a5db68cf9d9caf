"""The fairness id an inference gateway's endpoint picker queues a request under, set from the authenticated tenant.

The Gateway API Inference Extension's endpoint picker (EPP) runs its flow control, and chooses a pod, before Warden
sees the request; it groups requests into flows by the ``x-gateway-inference-fairness-id`` request header. A client
that sets that header itself chooses its own queue (or another tenant's). So Warden offers an external-authorization
check for the gateway (Envoy's ``ext_authz``, Envoy Gateway's SecurityPolicy ``extAuth``), run before the picker:

- ``/authz/fairness-id`` (any method, any path beneath it, as ext_authz appends the original path) reads the API key
  the way the /v1 surfaces do (``Authorization: Bearer`` or ``x-api-key``) and answers 200 with
  ``x-gateway-inference-fairness-id`` set: the tenant's fairness id for a valid key, ``unauthenticated`` for anything
  else. The gateway copies that header onto the upstream request, replacing whatever the client sent.
- It always allows: it sets a header, it does not gatekeep. The request then reaches a Warden pod, which
  authenticates it again and refuses and audits a bad key there, so the audit trail is the same with or without the
  gateway, and a forged or absent key can only ever land in the one ``unauthenticated`` flow.
- The fairness id is an HMAC of the tenant id under a key derived from the server secret: the same on every pod,
  unlinkable to the tenant id without the secret, and independent of the tenant's prefix-cache salt.

Inside a pod the header is never read: the engine's fair scheduler keys on the tenant of the authenticated key.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from gateway.core.errors import StoreUnavailable
from gateway.keys.auth import AuthenticationFailed
from gateway.openai.dependencies import ServicesDep

FAIRNESS_ID_HEADER = "x-gateway-inference-fairness-id"
UNAUTHENTICATED_FLOW = "unauthenticated"
AUTHZ_PATH = "/authz/fairness-id"
# ext_authz forwards the original method; every method an API call can use is answered.
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

router = APIRouter(include_in_schema=False)


def _credentials(request: Request) -> str | None:
    """The credentials a /v1 surface would check: ``x-api-key`` (Anthropic's clients) before ``Authorization``."""
    api_key = request.headers.get("x-api-key")
    return f"Bearer {api_key}" if api_key is not None else request.headers.get("authorization")


async def fairness_id_of(request: Request, services: ServicesDep) -> str:
    try:
        principal = await services.authenticator.authenticate(_credentials(request))
    except (AuthenticationFailed, StoreUnavailable):
        # Not known to be a tenant's (a bad key, or a key the store cannot confirm now): the shared flow. The pod
        # decides the request's fate itself.
        return UNAUTHENTICATED_FLOW
    return services.secrets.fairness_id(principal.tenant_id)


@router.api_route(AUTHZ_PATH, methods=METHODS)
@router.api_route(AUTHZ_PATH + "/{original_path:path}", methods=METHODS)
async def authorize_fairness_id(request: Request, services: ServicesDep) -> Response:
    flow = await fairness_id_of(request, services)
    return Response(status_code=200, headers={FAIRNESS_ID_HEADER: flow, "cache-control": "no-store"})
