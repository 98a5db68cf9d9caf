"""The body of a refusal made at the edge, before a request reaches its route (a body over the size limit, text
with a NUL or a lone surrogate): in the error shape of the API the path belongs to, so a client reads every refusal
of its API the same way. Anthropic's Messages API answers in Anthropic's shape, everything else in OpenAI's."""

from __future__ import annotations

import orjson
from starlette.types import Scope

from gateway.anthropic.errors import error_body as anthropic_error_body
from gateway.core.errors import APIError

ANTHROPIC_PATHS = frozenset({"/v1/messages"})


def edge_error_body(scope: Scope, error: APIError) -> bytes:
    if scope.get("path") in ANTHROPIC_PATHS:
        state = scope.get("state") or {}
        return orjson.dumps(anthropic_error_body(error, state.get("request_id")))
    return orjson.dumps(error.body())
