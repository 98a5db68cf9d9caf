"""Every error leaves the gateway in OpenAI's body shape: {"error": {"message", "type", "param", "code"}}."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException

from gateway.core import openapi_errors
from gateway.core.store_health import is_store_unavailable
from gateway.core.validation import describe as describe_validation

log = logging.getLogger(__name__)


class APIError(Exception):
    """An error with its HTTP status and OpenAI error fields. ``decision`` (optional) goes into the audit."""

    def __init__(self, status: int, message: str, *, type: str, code: str | None = None, param: str | None = None,
                 headers: dict[str, str] | None = None, decision: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.headers = headers or {}
        self.decision = decision

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def invalid_request(message: str, *, param: str | None = None, code: str | None = None) -> APIError:
    return APIError(400, message, type="invalid_request_error", param=param, code=code)


def authentication_failed(message: str) -> APIError:
    return APIError(401, message, type="authentication_error", code="invalid_api_key")


def permission_denied(message: str, *, decision: dict[str, Any] | None = None) -> APIError:
    return APIError(403, message, type="permission_error", code="model_not_allowed", decision=decision)


def model_not_found(model: str) -> APIError:
    return APIError(404, f"The model '{model}' does not exist", type="invalid_request_error", param="model",
                    code="model_not_found")


def request_too_large(limit: int) -> APIError:
    return APIError(413, f"Request body larger than {limit} bytes", type="invalid_request_error",
                    code="request_too_large")


def rate_limited(message: str, *, retry_after_s: float | None = None, headers: dict[str, str] | None = None,
                 decision: dict[str, Any] | None = None) -> APIError:
    all_headers = dict(headers or {})
    if retry_after_s is not None:
        all_headers.setdefault("retry-after", str(max(1, round(retry_after_s + 0.5))))
    return APIError(429, message, type="rate_limit_error", code="rate_limit_exceeded", headers=all_headers,
                    decision=decision)


ENGINE_RETRY_AFTER_S = 5  # about how long a supervised engine takes to come back after a crash


def engine_unavailable(message: str = "The inference engine is unavailable") -> APIError:
    return APIError(503, message, type="service_unavailable_error", code="engine_unavailable",
                    headers={"retry-after": str(ENGINE_RETRY_AFTER_S)})


def audit_unavailable() -> APIError:
    return APIError(503, "The audit trail cannot record requests right now; retry shortly",
                    type="service_unavailable_error", code="audit_unavailable", headers={"retry-after": "5"})


class StoreUnavailable(APIError):
    """The database could not serve this request (unreachable, shutting down, or past a timeout budget). An
    APIError, so every router audits and answers it as the 503 it is; the message never carries SQL or values."""

    def __init__(self, retry_after_s: int, *, stage: str | None = None) -> None:
        super().__init__(503, "The gateway's store is temporarily unavailable; retry shortly",
                         type="service_unavailable_error", code="store_unavailable",
                         headers={"retry-after": str(max(1, retry_after_s))},
                         decision={"stage": stage, "decision": "unavailable", "reason": "store"} if stage else None)


def validation_error(errors: Sequence[Mapping[str, Any]], data: Any, *, located: bool = False) -> APIError:
    """The 400 for pydantic's ``errors`` over the client's decoded ``data``, ``param`` named as OpenAI names it
    (``messages[0].content``). ``located``: FastAPI's errors, whose locations start with ``body``/``query``/..."""
    failure = describe_validation(errors, data, located=located)
    return invalid_request(failure.message, param=failure.param, code=failure.code)


def unexpected_error(exc: Exception, request: Request, *, store_retry_after_s: int) -> APIError:
    """What an exception no handler expected answers: a store outage that reached the edge unconverted is still a
    503; anything else is a 500 whose message says nothing of its cause (the log has it)."""
    if isinstance(exc, SQLAlchemyError) and is_store_unavailable(exc):
        log.warning("store unavailable on %s %s: %s", request.method, request.url.path, type(exc).__name__)
        return StoreUnavailable(store_retry_after_s)
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return APIError(500, "Internal server error", type="server_error", code="internal_error")


def install_error_handlers(app: FastAPI, *, store_retry_after_s: int = 5) -> None:
    openapi_errors.install(app)  # the document says 400 in this shape, as the handlers below answer

    @app.exception_handler(APIError)
    async def _api_error(_request: Request, exc: APIError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return validation_error(exc.errors(), exc.body, located=True).response()

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        error_type = "invalid_request_error" if exc.status_code < 500 else "server_error"
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
        return APIError(exc.status_code, str(exc.detail), type=error_type, code=code,
                        headers=dict(exc.headers or {})).response()

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return unexpected_error(exc, request, store_retry_after_s=store_retry_after_s).response()

    @app.exception_handler(SQLAlchemyError)
    async def _store(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        return unexpected_error(exc, request, store_retry_after_s=store_retry_after_s).response()
