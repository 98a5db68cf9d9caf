"""Refusing text no store can keep, at the edge: a NUL or a lone surrogate anywhere in a request is a 400.

JSON lets a client write ``"\\u0000"`` and ``"\\ud800"``; Python decodes both, but Postgres refuses NUL in text and
JSON, and UTF-8 (orjson, every log shipper) has no lone surrogates. Such a string reaching the request path would
poison the records, logs and queries made from it, so it never does: the body (every string, keys included), the
path and the query string are checked before the app sees them. The check is a byte scan that almost always
stops there: a JSON body can only hold these characters as ``\\u`` escapes (raw control characters are not valid
JSON), so a body without ``\\u0000`` or ``\\ud8``-``\\udf`` escapes is never parsed here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.core.edge_errors import edge_error_body
from gateway.core.errors import invalid_request
from gateway.core.middleware import replaying

UNSAFE_CHARACTERS = re.compile("[\x00\ud800-\udfff]")
# A JSON escape that may decode to NUL or a surrogate (case-insensitive hex, as JSON allows).
_UNSAFE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_UNSAFE_QUERY = re.compile(rb"%00|%[eE][dD]%[aAbB]", re.IGNORECASE)  # NUL, and UTF-8's encoding of a surrogate


MAX_PARAM_CHARS = 256  # a path as long as the body would make the refusal (and its audit record) as large
# A step of the walk: (a value, the key or index that leads to it from its parent, the parent's step).
_Step = tuple[Any, str | int | None, Any]


def unsafe_path(value: Any) -> str | None:
    """The JSON path of the first string (or key) in ``value`` holding a NUL or a lone surrogate, else None.
    The path shows offending characters escaped, so it is itself safe to print and store.

    Iterative, and the path is spelled once, for the finding only: a body nested as deep as its parser allows
    must not exhaust the interpreter's stack here, and spelling every member's path on the way down would copy a
    long prefix once per member (long keys nested deep over a wide object took seconds)."""
    stack: list[_Step] = [(value, None, None)]
    while stack:
        step = stack.pop()
        item, key = step[0], step[1]
        if isinstance(key, str) and UNSAFE_CHARACTERS.search(key):
            return _spelled((None, _escaped(key), step[2]))
        if isinstance(item, str):
            if UNSAFE_CHARACTERS.search(item):
                return _spelled(step)
        elif isinstance(item, dict):
            stack.extend((child, name, step) for name, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((item[index], index, step) for index in range(len(item) - 1, -1, -1))
    return None


def _spelled(step: _Step) -> str:
    keys: list[str | int] = []
    while step[1] is not None:
        keys.append(step[1])
        step = step[2]
    path = ""
    for key in reversed(keys):
        path += f"[{key}]" if isinstance(key, int) else f"{'.' if path else ''}{key}"
        if len(path) > MAX_PARAM_CHARS:
            return path[:MAX_PARAM_CHARS] + "..."
    return path or "$"


def _escaped(text: str) -> str:
    return UNSAFE_CHARACTERS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def unsafe_body_param(body: bytes) -> str | None:
    """The parameter of a JSON body that holds unsafe text, None if there is none (or the body is not JSON: the
    app's own parsing answers that)."""
    if not _UNSAFE_ESCAPE.search(body):
        return None
    try:
        # The standard library decodes lone surrogates (orjson refuses them, so it cannot say where they are).
        parsed = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    except RecursionError:
        # Nested deeper than the standard library parses, and holding such an escape: refused, as the app's parser
        # (orjson) reads deeper and would let the character through.
        return "body"
    return unsafe_path(parsed)


def unsafe_url_part(scope: Scope) -> str | None:
    if UNSAFE_CHARACTERS.search(scope.get("path", "")):
        return "path"
    query: bytes = scope.get("query_string", b"")
    if query and (_UNSAFE_QUERY.search(query) or b"\x00" in unquote_to_bytes(query)):
        return "query"
    return None


RejectHook = Callable[[Scope, str], Awaitable[None]]


def _error_body(scope: Scope, param: str) -> bytes:
    return edge_error_body(scope, invalid_request(
        f"{param}: text may not contain NUL characters or unpaired UTF-16 surrogates", param=param,
        code="invalid_text"))


class TextSafetyMiddleware:
    """Answers 400 (code ``invalid_text``, in the error shape of the path's API) to a request whose path, query or
    JSON body holds a NUL or a lone surrogate. Runs inside the body size limit, which has already buffered the body:
    it reads the body once and replays it to the app."""

    def __init__(self, app: ASGIApp, on_reject: RejectHook | None = None) -> None:
        self.app = app
        self.on_reject = on_reject

    async def _reject(self, scope: Scope, send: Send, param: str) -> None:
        if self.on_reject is not None:
            await self.on_reject(scope, param)
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": _error_body(scope, param)})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        param = unsafe_url_part(scope)
        if param is not None:
            await self._reject(scope, send, param)
            return
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        param = unsafe_body_param(body)
        if param is not None:
            await self._reject(scope, send, param)
            return
        await self.app(scope, replaying(body, receive), send)
