from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gateway.services import GatewayServices


async def get_services(request: Request) -> GatewayServices:
    # A coroutine: FastAPI runs a plain function dependency in a worker thread, a hop per request for an attribute.
    return request.app.state.services


ServicesDep = Annotated[GatewayServices, Depends(get_services)]
