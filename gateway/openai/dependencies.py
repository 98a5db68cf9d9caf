from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from gateway.services import GatewayServices


def get_services(request: Request) -> GatewayServices:
    return request.app.state.services


ServicesDep = Annotated[GatewayServices, Depends(get_services)]
