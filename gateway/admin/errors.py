"""Admin API errors, in the gateway's one error shape."""

from __future__ import annotations

from gateway.core.errors import APIError


def unauthorized(message: str) -> APIError:
    return APIError(401, message, type="authentication_error", code="invalid_token",
                    headers={"www-authenticate": 'Bearer error="invalid_token"'})


def forbidden(message: str = "Your role does not allow this action") -> APIError:
    return APIError(403, message, type="permission_error", code="insufficient_role")


def not_found(what: str) -> APIError:
    # The same answer whether the resource does not exist or belongs to another tenant: existence never leaks.
    return APIError(404, f"{what} not found", type="invalid_request_error", code="not_found")


def conflict(message: str) -> APIError:
    return APIError(409, message, type="invalid_request_error", code="conflict")
