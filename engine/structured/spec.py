"""Turn ``EngineRequest.structured`` into a grammar the matcher can compile, with a canonical cache key.

Accepted shapes (the OpenAI request fields pass through almost verbatim):

- ``{"type": "json_schema", "schema": {...}}`` or OpenAI's ``{"type": "json_schema", "json_schema": {"name",
  "schema", "strict"}}``. The whole schema is enforced whatever ``strict`` says.
- ``{"type": "json_object"}``: any JSON object.
- ``{"type": "regex", "pattern": "..."}``: the output matches the regex.
- ``{"type": "tool_calls", "tools": [...], "tool_choice": ..., "parallel_tool_calls": bool}`` with OpenAI's
  ``tools`` / ``tool_choice`` values; see ``engine.structured.tools``.

A ``None`` spec (or ``tool_choice: "none"``) means "no constraint".
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import llguidance

from engine.structured.errors import GrammarCompileError
from engine.structured.options import GRAMMAR_FORMAT_VERSION, JSON_OPTIONS
from engine.structured.schema_depth import check_schema_depth
from engine.structured.tools import tool_call_grammar


@dataclass(frozen=True, slots=True)
class GrammarSpec:
    """A normalized constraint: ``kind`` for logs/metrics, ``grammar`` in llguidance's serialized form, ``key`` a
    hash of the canonical request that identifies the compiled grammar in the cache."""

    kind: str
    grammar: str
    key: str
    source_bytes: int  # size of the caller's schema/tools/pattern, for the size cap


def canonical_json(value: Any) -> str:
    """Whitespace-free JSON that keeps key order: property order is part of the grammar (properties are emitted in
    schema order), so two schemas that differ only in key order are different grammars and must not share a key."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _key(kind: str, payload: Any) -> str:
    digest = hashlib.sha256()
    digest.update(f"{GRAMMAR_FORMAT_VERSION}\0{kind}\0".encode())
    digest.update(canonical_json(payload).encode())
    return digest.hexdigest()


def json_schema_grammar(schema: dict[str, Any] | bool) -> str:
    check_schema_depth(schema)
    try:
        return llguidance.LLMatcher.grammar_from_json_schema(schema, overrides=JSON_OPTIONS)  # type: ignore[arg-type]
    except ValueError as exc:
        raise GrammarCompileError(f"invalid JSON schema: {exc}") from exc


def _schema_from(structured: dict[str, Any]) -> dict[str, Any] | bool:
    if "json_schema" in structured:  # OpenAI's response_format shape
        wrapper = structured["json_schema"]
        if not isinstance(wrapper, dict) or "schema" not in wrapper:
            raise GrammarCompileError("response_format.json_schema must be an object with a 'schema'")
        schema = wrapper["schema"]
    elif "schema" in structured:
        schema = structured["schema"]
    else:
        raise GrammarCompileError("json_schema constraint needs a 'schema'")
    if not isinstance(schema, dict | bool):
        raise GrammarCompileError("the JSON schema must be an object (or a boolean)")
    return schema


def parse_structured(structured: dict[str, Any] | None) -> GrammarSpec | None:
    """Validate the request's constraint and build its grammar (cheap: no compilation happens here).
    Raises ``GrammarCompileError`` for a malformed constraint."""
    if structured is None:
        return None
    if not isinstance(structured, dict):
        raise GrammarCompileError("structured output spec must be an object")
    kind = structured.get("type")
    try:
        if kind == "json_schema":
            schema = _schema_from(structured)
            return GrammarSpec(kind, json_schema_grammar(schema), _key(kind, schema), len(canonical_json(schema)))
        if kind == "json_object":
            schema = {"type": "object"}
            return GrammarSpec(kind, json_schema_grammar(schema), _key(kind, schema), 0)
        if kind == "regex":
            pattern = structured.get("pattern")
            if not isinstance(pattern, str) or not pattern:
                raise GrammarCompileError("regex constraint needs a non-empty 'pattern'")
            return GrammarSpec(kind, llguidance.LLMatcher.grammar_from_regex(pattern), _key(kind, pattern),
                               len(pattern.encode()))
        if kind == "tool_calls":
            built = tool_call_grammar(
                structured.get("tools"),
                structured.get("tool_choice", "auto"),
                parallel_tool_calls=bool(structured.get("parallel_tool_calls", True)),
            )
            if built is None:
                return None
            lark, normalized = built
            payload = canonical_json(normalized)
            return GrammarSpec(kind, llguidance.LLMatcher.grammar_from_lark(lark), _key(kind, normalized),
                               len(payload.encode()))
    except GrammarCompileError:
        raise
    except (TypeError, ValueError) as exc:  # values JSON cannot carry (NaN, sets, ...)
        raise GrammarCompileError(f"invalid structured output spec: {exc}") from exc
    except RecursionError:  # nested past what the standard library encodes for the cache key
        raise GrammarCompileError("the structured output spec is nested too deeply") from None
    raise GrammarCompileError(
        f"unsupported structured output type {kind!r} (expected json_schema, json_object, regex or tool_calls)"
    )
