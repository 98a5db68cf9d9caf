"""``GET /v1/responses/{id}/input_items``: the items a stored response was generated from, in OpenAI's list shape
(``object: "list"``, ``data``, ``first_id``, ``last_id``, ``has_more``), paged by ``limit``, ``order`` and ``after``.

The items are the stored conversation without the response's own output: what every response it continued (by
``previous_response_id``) was given and answered, then its own input. ``instructions`` are not an input item.
They are listed as the tenant's audit-content policy stored them: as sent (``full``), as the model saw them after
the input guardrails (``redacted``), or not at all (``hashes``: the list is empty, as that response's output is).
An item's id is derived from the response's id and the item's place, so it is the same on every read and serves as
the ``after`` cursor.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from gateway.core.errors import invalid_request
from gateway.responses_api.render import function_call_item, message_item, output_messages

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
QUERY_PARAMS = ("limit", "order", "after")


@dataclass(frozen=True, slots=True)
class ListQuery:
    limit: int = DEFAULT_LIMIT
    order: Literal["asc", "desc"] = "desc"  # OpenAI's default: the newest item first
    after: str | None = None


def parse_query(params: Mapping[str, str]) -> ListQuery:
    """The list's paging from the query string; a 400 naming the parameter for a bad value or one not served
    (``include``, ``before``...), never silently ignored."""
    for name in params:
        if name not in QUERY_PARAMS:
            raise invalid_request(f"The query parameter {name[:64]!r} is not supported", param=name[:64])
    raw_limit = params.get("limit")
    limit = DEFAULT_LIMIT
    if raw_limit is not None:
        if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= MAX_LIMIT:
            raise invalid_request(f"limit must be an integer from 1 to {MAX_LIMIT}", param="limit")
        limit = int(raw_limit)
    order = params.get("order", "desc")
    if order not in ("asc", "desc"):
        raise invalid_request("order must be 'asc' or 'desc'", param="order")
    after = params.get("after")
    if after is not None and not after:
        raise invalid_request("after must be an item id", param="after")
    return ListQuery(limit=limit, order="asc" if order == "asc" else "desc", after=after)


def _item_id(prefix: str, response_id: str, position: int) -> str:
    return f"{prefix}_" + hashlib.sha256(f"{response_id}:{position}".encode()).hexdigest()[:32]


def input_messages(conversation: list[dict[str, Any]] | None, output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The stored conversation's input part: what precedes the response's own output messages."""
    if not conversation:
        return []
    return conversation[: max(0, len(conversation) - len(output_messages(output)))]


def items_of(response_id: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat messages as the Responses API's input items: a user / system message with ``input_text``, an assistant
    message with ``output_text``, each of an assistant's tool calls a ``function_call``, a tool result a
    ``function_call_output``."""
    items: list[dict[str, Any]] = []

    def next_id(prefix: str) -> str:
        return _item_id(prefix, response_id, len(items))

    for message in messages:
        role, content = message.get("role"), message.get("content") or ""
        if role == "tool":
            items.append({"id": next_id("fco"), "type": "function_call_output",
                          "call_id": message.get("tool_call_id", ""), "output": content, "status": "completed"})
        elif role == "assistant":
            if content or not message.get("tool_calls"):
                items.append(message_item(content, status="completed", item=next_id("msg")))
            for call in message.get("tool_calls") or []:
                function = call["function"]
                items.append(function_call_item(function["name"], function["arguments"], call["id"],
                                                item=next_id("fc")))
        else:
            items.append({"id": next_id("msg"), "type": "message", "role": role, "status": "completed",
                          "content": [{"type": "input_text", "text": content}]})
    return items


def page(items: list[dict[str, Any]], query: ListQuery) -> dict[str, Any]:
    """One page of ``items`` (oldest first) in OpenAI's list shape."""
    ordered = items if query.order == "asc" else items[::-1]
    start = 0
    if query.after is not None:
        ids = [item["id"] for item in ordered]
        if query.after not in ids:
            raise invalid_request(f"after {query.after[:128]!r} is no input item of this response", param="after")
        start = ids.index(query.after) + 1
    data = ordered[start : start + query.limit]
    return {"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
            "last_id": data[-1]["id"] if data else None, "has_more": start + query.limit < len(ordered)}
