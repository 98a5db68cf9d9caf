"""Schemas built to overflow the grammar engine: a flat ``$defs`` table chained by ``$ref`` (the native compiler
follows it by recursion and, a few thousand entries deep, crashed the whole process) is a 400 naming the depth;
recursive schemas, shared definitions and ordinary nesting still compile."""

from __future__ import annotations

from typing import Any

import pytest

from engine.structured import GrammarCompileError, GrammarCompiler, parse_structured
from engine.structured.schema_depth import MAX_SCHEMA_DEPTH, check_schema_depth


def _chain(length: int) -> dict[str, Any]:
    defs: dict[str, Any] = {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(length)}
    defs[f"d{length}"] = {"type": "string"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


def _nested_through_refs(length: int) -> dict[str, Any]:
    defs: dict[str, Any] = {f"d{i}": {"type": "object", "properties": {"a": {"$ref": f"#/$defs/d{i + 1}"}},
                                      "required": ["a"]} for i in range(length)}
    defs[f"d{length}"] = {"type": "integer"}
    return {"$defs": defs, "$ref": "#/$defs/d0"}


@pytest.mark.parametrize("schema", [_chain(4_000), _chain(100_000), _nested_through_refs(1_000)],
                         ids=["chain-4000", "chain-100000", "objects-through-refs-1000"])
def test_a_schema_nested_past_the_bound_through_refs_is_refused(compiler: GrammarCompiler,
                                                                schema: dict[str, Any]) -> None:
    with pytest.raises(GrammarCompileError, match="nests deeper than"):
        compiler.compile({"type": "json_schema", "json_schema": {"name": "deep", "schema": schema}})


def test_tool_parameters_nested_past_the_bound_are_refused() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": _chain(4_000)}}]
    with pytest.raises(GrammarCompileError, match="nests deeper than"):
        parse_structured({"type": "tool_calls", "tools": tools, "tool_choice": "auto"})


def test_recursion_shared_definitions_and_ordinary_nesting_compile(compiler: GrammarCompiler) -> None:
    tree = {"$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["name"]}}, "$ref": "#/$defs/node"}
    # Each definition refers twice to the next: 2**40 paths, one depth per definition.
    shared = {"$defs": {f"d{i}": {"anyOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
                        for i in range(40)} | {"d40": {"type": "boolean"}}, "$ref": "#/$defs/d0"}
    for schema in (tree, shared, _nested_through_refs(10), _chain(100)):
        check_schema_depth(schema)
        assert compiler.compile({"type": "json_schema", "schema": schema}) is not None


def test_the_bound_counts_containers_and_ref_hops() -> None:
    check_schema_depth(_chain(MAX_SCHEMA_DEPTH - 5))  # one level per hop
    with pytest.raises(GrammarCompileError):
        check_schema_depth(_chain(MAX_SCHEMA_DEPTH + 5))
    nested: Any = {"type": "string"}
    for _ in range(MAX_SCHEMA_DEPTH - 5):
        nested = {"type": "array", "items": nested}
    check_schema_depth(nested)
    for _ in range(10):
        nested = {"type": "array", "items": nested}
    with pytest.raises(GrammarCompileError):
        check_schema_depth(nested)
