"""``gateway.openai.router.HotCalls``: the /v1 calls' way past Starlette's routing layers answers an escaping
exception with the handler Starlette's exception middleware would have chosen, and leaves the rest to the stack."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette._exception_handler import _lookup_exception_handler
from starlette.exceptions import HTTPException

from gateway.app import create_app
from gateway.audit.writer import AuditUnavailableError
from gateway.core.errors import StoreUnavailable, invalid_request
from gateway.core.middleware import OVERHEAD_HEADER, REQUEST_ID_HEADER
from gateway.core.settings import Settings
from gateway.openai.router import HotCalls


def _starlettes_choice(handlers: Mapping[Any, Any], exc: Exception) -> object:
    """What FastAPI's ExceptionMiddleware is handed (every handler but Exception's) and how it looks one up."""
    handed = {key: value for key, value in handlers.items() if key not in (500, Exception)}
    if isinstance(exc, HTTPException) and exc.status_code in handed:
        return handed[exc.status_code]
    return _lookup_exception_handler(handed, exc)


@pytest.mark.parametrize("exc", [
    HTTPException(404), HTTPException(405), RequestValidationError([]), invalid_request("bad"), StoreUnavailable(5),
    OperationalError("SELECT 1", {}, Exception("down")), AuditUnavailableError("no store"), ValueError("unexpected"),
    KeyError("x"),
], ids=lambda exc: type(exc).__name__)
def test_an_escaping_exception_gets_starlettes_handler(settings: Settings, exc: Exception) -> None:
    app = create_app(settings, start_engine=False)
    hot = HotCalls(app.router, app.exception_handlers)
    assert hot._handler_for(exc) is _starlettes_choice(app.exception_handlers, exc)


def test_unexpected_exceptions_go_to_the_server_error_middleware(settings: Settings) -> None:
    app = create_app(settings, start_engine=False)
    assert HotCalls(app.router, app.exception_handlers)._handler_for(ValueError("boom")) is None


def test_the_calls_take_the_short_way_and_other_methods_the_router(settings: Settings) -> None:
    app = create_app(settings, start_engine=False)
    with TestClient(app) as client:
        stack = app.middleware_stack
        while stack is not None and not isinstance(stack, HotCalls):
            stack = getattr(stack, "app", None)
        assert isinstance(stack, HotCalls)  # in the built stack, inside the app's own middleware
        for path in ("/v1/chat/completions", "/v1/completions"):
            refused = client.post(path, content=b"{", headers={"authorization": "Bearer wdn_x_y"})
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "invalid_api_key"
            assert REQUEST_ID_HEADER in refused.headers and OVERHEAD_HEADER in refused.headers
            wrong_method = client.get(path)
            assert wrong_method.status_code == 405 and wrong_method.headers["allow"] == "POST"


def test_fastapis_own_telemetry_stays_off(settings: Settings) -> None:
    # Warden's telemetry is its own: FastAPI's would double its spans and metrics under a configured global provider,
    # and costs every request a look at the global providers; with all three signals off it never looks.
    app = create_app(settings, start_engine=False)
    assert [app._telemetry[signal] for signal in ("tracing", "metrics", "logs")] == [False, False, False]
    assert not app._native_telemetry.enabled()
