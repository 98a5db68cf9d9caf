"""Parsing ``EngineRequest.structured`` into grammar specs: accepted shapes, refusals, cache keys."""

from __future__ import annotations

import math

import pytest

from engine.structured import GrammarCompileError, parse_structured

PERSON = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}


def test_none_means_unconstrained() -> None:
    assert parse_structured(None) is None


def test_openai_response_format_and_flat_shape_share_a_key() -> None:
    openai_shape = {"type": "json_schema", "json_schema": {"name": "person", "schema": PERSON, "strict": True}}
    flat = {"type": "json_schema", "schema": PERSON}
    assert parse_structured(openai_shape).key == parse_structured(flat).key  # name/strict do not change the grammar


def test_key_ignores_formatting_but_not_property_order() -> None:
    reordered = {"type": "object", "properties": {"age": {"type": "integer"}, "name": {"type": "string"}}}
    base = parse_structured({"type": "json_schema", "schema": PERSON})
    assert base.key != parse_structured({"type": "json_schema", "schema": reordered}).key
    assert base.key == parse_structured({"type": "json_schema", "schema": dict(PERSON)}).key
    assert base.key != parse_structured({"type": "json_object"}).key


def test_kinds_never_share_keys() -> None:
    assert parse_structured({"type": "regex", "pattern": "a+"}).kind == "regex"
    assert parse_structured({"type": "json_object"}).kind == "json_object"


@pytest.mark.parametrize(
    ("structured", "message"),
    [
        ("not a dict", "must be an object"),
        ({"type": "yaml"}, "unsupported structured output type"),
        ({"type": "json_schema"}, "needs a 'schema'"),
        ({"type": "json_schema", "json_schema": {"name": "x"}}, "must be an object with a 'schema'"),
        ({"type": "json_schema", "schema": [1, 2]}, "must be an object"),
        ({"type": "json_schema", "schema": {"maximum": math.nan}}, "invalid structured output spec"),
        ({"type": "regex", "pattern": ""}, "non-empty 'pattern'"),
    ],
)
def test_malformed_specs_are_refused(structured: object, message: str) -> None:
    with pytest.raises(GrammarCompileError, match=message) as info:
        parse_structured(structured)  # type: ignore[arg-type]
    assert info.value.param == "response_format"
