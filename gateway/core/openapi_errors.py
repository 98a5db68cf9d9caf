"""The OpenAPI document states the errors the gateway sends: a 400 in OpenAI's error shape, never FastAPI's 422.

FastAPI documents every operation that reads parameters or a body with a 422 ``HTTPValidationError``; the gateway
answers those failures with a 400 (``gateway.core.errors``), so a contract check reading the document (schemathesis,
a generated client) would expect a status and a body that never come. The OpenAI-shaped /v1 operations parse their
own bodies, so FastAPI documents no error for them at all; they are given the statuses the request path answers with.
A surface with its own error shape (Anthropic's Messages API) documents its errors itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI

ERROR_SCHEMA_NAME = "ErrorResponse"
ERROR_SCHEMA: dict[str, Any] = {
    "title": ERROR_SCHEMA_NAME,
    "type": "object",
    "required": ["error"],
    "additionalProperties": False,
    "properties": {
        "error": {
            "type": "object",
            "required": ["message", "type", "param", "code"],
            "additionalProperties": False,
            "properties": {
                "message": {"type": "string"},
                "type": {"type": "string"},
                "param": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "code": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            },
        }
    },
}
_FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")

INVALID_REQUEST = "Invalid request: `param` names the field"
# What a /v1 call can be answered with besides its success (docs/api.md, "Errors"); the statuses only a body's
# content can cause are left off operations without one.
PUBLIC_ERRORS = {
    "400": INVALID_REQUEST,
    "401": "Missing or invalid API key",
    "403": "The key's policy does not allow this",
    "404": "Unknown model or resource",
    "413": "Request body too large",
    "429": "Rate limit or quota reached (`Retry-After`, `x-ratelimit-*`)",
    "503": "Engine, store, rate limiter or audit trail unavailable, or overloaded (`Retry-After`)",
}
BODY_ONLY_ERRORS = frozenset({"403", "413", "429"})
# The routers (by their OpenAPI tag) whose errors are OpenAI's body: the chat/completions and Responses surfaces.
OPENAI_SURFACE_TAGS = frozenset({"openai", "responses"})


def _error_response(description: str) -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA_NAME}"}}}}


def document_errors(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with each 422 replaced by the 400 the gateway sends, and the OpenAI surfaces' errors stated."""
    for item in document.get("paths", {}).values():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            if responses.pop("422", None) is not None:
                responses["400"] = _error_response(INVALID_REQUEST)
            if OPENAI_SURFACE_TAGS.intersection(operation.get("tags", ())):
                takes_body = "requestBody" in operation
                for status, description in PUBLIC_ERRORS.items():
                    if takes_body or (status not in BODY_ONLY_ERRORS
                                      and (status != "400" or operation.get("parameters"))):
                        responses.setdefault(status, _error_response(description))
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas[ERROR_SCHEMA_NAME] = ERROR_SCHEMA
    for name in _FASTAPI_VALIDATION_SCHEMAS:
        others = {key: value for key, value in schemas.items() if key not in _FASTAPI_VALIDATION_SCHEMAS}
        if f"#/components/schemas/{name}" not in _references([document.get("paths", {}), others]):
            schemas.pop(name, None)
    return document


def _references(node: Any) -> set[str]:
    """Every ``$ref`` under ``node``."""
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_references(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_references(item) for item in node))
    return set()


def install(app: FastAPI) -> None:
    """Make ``app.openapi()`` return the document with the gateway's errors (built once, then cached)."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = document_errors(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
