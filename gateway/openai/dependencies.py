from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gateway.services import GatewayServices


async def get_services(request: Request) -> GatewayServices:
    # A coroutine: FastAPI runs a plain function dependency in a worker thread, a hop per request for an attribute.
    return request.app.state.services


ServicesDep = Annotated[GatewayServices, Depends(get_services)]


def services_of(request: Request) -> GatewayServices:
    """The services, read by a route itself: the /v1 calls' routes skip FastAPI's dependency resolution (a few
    dozen microseconds a request on the hot path) for what is one attribute."""
    services: GatewayServices = request.app.state.services
    return services
