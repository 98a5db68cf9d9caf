"""Warden's errors in Anthropic's shape: ``{"type": "error", "error": {"type", "message"}, "request_id"}``.

The HTTP status is Warden's own (the same as on the OpenAI surface, so the official client raises the matching
exception: 400 ``BadRequestError``, 401 ``AuthenticationError``, 429 ``RateLimitError``...); the error ``type`` is
the Anthropic name for that status. Headers (``retry-after``, the rate-limit headers) are kept.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse

from gateway.core.errors import APIError

# Anthropic's error type for each status it documents; others fall back by class (4xx / 5xx).
_TYPE_BY_STATUS: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",  # Warden answers overload, a dead engine and an unavailable store with 503
    504: "timeout_error",
    529: "overloaded_error",
}


def error_type(status: int) -> str:
    return _TYPE_BY_STATUS.get(status, "invalid_request_error" if status < 500 else "api_error")


def error_body(exc: APIError, request_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {"type": error_type(exc.status), "message": exc.message}}
    if request_id:
        body["request_id"] = request_id
    return body


def error_response(exc: APIError, request_id: str | None = None) -> JSONResponse:
    return JSONResponse(error_body(exc, request_id), status_code=exc.status, headers=exc.headers)


def error_event(exc: APIError, request_id: str | None = None) -> bytes:
    """The ``error`` event that ends a stream which failed after it started (the status is already 200)."""
    return b"event: error\ndata: " + orjson.dumps(error_body(exc, request_id)) + b"\n\n"
