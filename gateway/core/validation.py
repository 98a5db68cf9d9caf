"""Pydantic validation errors described as OpenAI describes a 400: one message, ``param`` and ``code``.

OpenAI names the field a client sent, in the client's own terms: ``messages[0].content``, ``stop``, ``from`` (a
query parameter). Pydantic's locations carry more than that: FastAPI's ``body``/``query``/``path`` prefix, and for a
union the branch it tried (``str``, ``list[TextPart]``, a discriminator's tag). Those extra parts are dropped by
walking the location through the data the client sent: a part that names nothing there is pydantic's, not the
client's. Messages name the parameter and the JSON types, never a value the client sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# FastAPI's first location part says where a parameter came from; OpenAI's ``param`` never does.
REQUEST_LOCATIONS = frozenset({"body", "query", "path", "header", "cookie"})

MAX_NAME_CHARS = 64  # a client-chosen name (unknown field, metadata key) in a param is cut to this
# Pydantic's type errors and the JSON type each one expected.
_EXPECTED_TYPES = {
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "a boolean",
    "list_type": "an array",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
}

# OpenAI's error codes for bound checks, by pydantic's error type; _bound_code prefixes a number's with integer_ or
# decimal_ and a collection's length with array_ or object_.
_BOUND_CODES = {
    "string_too_long": "string_above_max_length",
    "string_too_short": "string_below_min_length",
    "too_long": "above_max_length",
    "too_short": "below_min_length",
    "less_than_equal": "above_max_value",
    "less_than": "above_max_value",
    "greater_than_equal": "below_min_value",
    "greater_than": "below_min_value",
}


def json_type(value: Any) -> str:
    """The JSON type of a decoded value, as an error message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a decimal"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    return "an object"


def client_path(loc: Sequence[str | int], data: Any, *, missing: bool = False) -> list[str | int]:
    """The parts of ``loc`` that name something in ``data``: the field as the client sent it. ``missing``: the
    last part is a required field that is absent, kept though ``data`` lacks it."""
    path: list[str | int] = []
    node = data
    for index, part in enumerate(loc):
        if _holds(node, part):
            node = node[part]
        elif not (missing and index == len(loc) - 1):
            continue  # a union's branch or tag: pydantic's name, not the client's
        path.append(part)
    return path


def _holds(node: Any, part: str | int) -> bool:
    if isinstance(node, Mapping):
        return isinstance(part, str) and part in node
    return isinstance(node, list) and type(part) is int and 0 <= part < len(node)


def format_param(path: Sequence[str | int]) -> str | None:
    """``["messages", 0, "content"]`` -> ``messages[0].content``. A name the client chose (an unknown field, a
    metadata key) is cut to ``MAX_NAME_CHARS``: an error never echoes a long client string back."""
    text = ""
    for part in path:
        if not isinstance(part, str):
            text += f"[{part}]"
        else:
            name = part if len(part) <= MAX_NAME_CHARS else part[:MAX_NAME_CHARS] + "..."
            text += f".{name}" if text else name
    return text or None


@dataclass(frozen=True, slots=True)
class Failure:
    """What a 400 says about a failed validation: OpenAI's message, ``param`` and ``code``."""

    message: str
    param: str | None
    code: str


def describe(errors: Sequence[Mapping[str, Any]], data: Any, *, located: bool = False) -> Failure:
    """The one failure to report for pydantic's ``errors`` over the client's ``data``. Of several errors (a union
    reports one per branch) the one deepest in the client's data is reported: the branch that matched the data
    furthest. Type errors at that same place are merged into one "expected one of" message."""
    if not errors:
        return Failure("Invalid request", None, "invalid_value")
    found = [(error, error_path(error, data, located=located)) for error in errors]
    depth = max(len(path) for _, path in found)
    deepest = [path for _, path in found if len(path) == depth]
    # Of places equally deep, the one most branches refuse: [1, true] as a prompt is wrong at [1], where both the
    # strings and the token ids branch fail, not at [0], which only the strings branch refuses.
    path = max(deepest, key=deepest.count)
    return _describe([error for error, p in found if p == path], format_param(path))


def error_path(error: Mapping[str, Any], data: Any, *, located: bool = False) -> list[str | int]:
    """Where a pydantic error is, as the client names it. ``located``: the location starts with FastAPI's
    ``body``/``query``/...; a body is walked, a parameter (flat, no unions) is named as is."""
    loc = list(error.get("loc", ()))
    where = loc.pop(0) if located and loc and loc[0] in REQUEST_LOCATIONS else "body"
    if where != "body":
        return loc
    return client_path(loc, data, missing=error.get("type") == "missing")


def _describe(errors: list[Mapping[str, Any]], param: str | None) -> Failure:
    named = f"'{param}'" if param else "the request body"
    first = errors[0]
    kind = first.get("type", "")
    if kind == "missing":
        return Failure(f"Missing required parameter: {named}.", param, "missing_required_parameter")
    if kind == "extra_forbidden":
        return Failure(f"Unrecognized request argument supplied: {param}", param, "unknown_parameter")
    if all(error.get("type") in _EXPECTED_TYPES for error in errors):
        expected = list(dict.fromkeys(_EXPECTED_TYPES[str(error["type"])] for error in errors))
        wanted = expected[0] if len(expected) == 1 else f"one of {', '.join(expected[:-1])} or {expected[-1]}"
        got = json_type(first.get("input"))
        return Failure(f"Invalid type for {named}: expected {wanted}, but got {got} instead.", param, "invalid_type")
    # A union's type errors are the branches the value was not meant for; a value error says what is wrong.
    error = next((e for e in errors if e.get("type") not in _EXPECTED_TYPES), first)
    kind = str(error.get("type", ""))
    if kind == "union_tag_invalid":
        context = error.get("ctx") or {}
        message = f"{context.get('discriminator', 'type')} must be one of {context.get('expected_tags', '')}"
    else:
        message = str(error.get("msg", "invalid value")).removeprefix("Value error, ")
    return Failure(f"Invalid value for {named}: {message}" if param else message, param, _bound_code(error))


def _bound_code(error: Mapping[str, Any]) -> str:
    """OpenAI's code for a failed bound (``integer_above_max_value``, ``array_above_max_length``...)."""
    code = _BOUND_CODES.get(str(error.get("type", "")))
    if code is None:
        return "invalid_value"
    value, bounds = error.get("input"), list((error.get("ctx") or {}).values())
    if code.endswith("_value"):
        integral = type(value) is int and all(type(bound) is int for bound in bounds)
        return ("integer_" if integral else "decimal_") + code
    if code.endswith("_length") and not code.startswith("string_"):
        return ("object_" if isinstance(value, Mapping) else "array_") + code
    return code
