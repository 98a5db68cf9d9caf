"""GrammarCompiler: compile once per canonical schema, refuse with reasons, enforce size and time caps."""

from __future__ import annotations

import threading

import llguidance
import pytest

from engine.structured import GrammarCompileError, GrammarCompiler, StructuredConfig, parse_structured


def _wide_schema(n: int, tag: str) -> dict:
    """A valid schema whose compile cost grows with ``n`` (n string properties with patterns)."""
    return {
        "type": "object",
        "properties": {f"{tag}_{i}": {"type": "string", "pattern": f"^[a-z]{{{i % 7 + 1},{i % 7 + 9}}}$"}
                       for i in range(n)},
        "required": [f"{tag}_{i}" for i in range(n)],
    }


def test_identical_schemas_compile_once(compiler: GrammarCompiler) -> None:
    schema = {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
    first = compiler.compile({"type": "json_schema", "schema": schema})
    misses, hits = compiler.misses, compiler.hits
    second = compiler.compile({"type": "json_schema", "json_schema": {"name": "x", "schema": dict(schema)}})
    assert second is first
    assert (compiler.misses, compiler.hits) == (misses, hits + 1)
    assert first.compile_ms > 0


def test_concurrent_requests_for_one_schema_share_the_compile(ll_tokenizer: llguidance.LLTokenizer) -> None:
    compiler = GrammarCompiler(ll_tokenizer, StructuredConfig(compile_threads=2))
    spec = {"type": "json_schema", "schema": _wide_schema(40, "same")}
    results = []
    threads = [threading.Thread(target=lambda: results.append(compiler.compile(spec))) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    compiler.close()
    assert len(results) == 6 and all(r is results[0] for r in results)
    assert compiler.misses == 1


def test_unimplemented_keyword_is_refused_with_its_name(compiler: GrammarCompiler) -> None:
    with pytest.raises(GrammarCompileError, match=r"Unimplemented keys: \[\"if\", \"then\"\]"):
        compiler.compile({"type": "json_schema", "schema": {"type": "object", "if": {}, "then": {}}})
    with pytest.raises(GrammarCompileError, match="Unknown format: color"):
        compiler.compile({"type": "json_schema", "schema": {"type": "string", "format": "color"}})
    with pytest.raises(GrammarCompileError, match="does not exist"):
        compiler.compile({"type": "json_schema", "schema": {"$ref": "#/definitions/missing"}})


def test_a_schema_cannot_loosen_the_enforcement_options(compiler: GrammarCompiler) -> None:
    # "lenient" would make llguidance ignore the keyword it cannot enforce; Warden's overrides win.
    schema = {"type": "object", "if": {}, "x-guidance": {"lenient": True}}
    with pytest.raises(GrammarCompileError, match="Unimplemented keys"):
        compiler.compile({"type": "json_schema", "schema": schema})


def test_size_cap(ll_tokenizer: llguidance.LLTokenizer) -> None:
    compiler = GrammarCompiler(ll_tokenizer, StructuredConfig(max_source_bytes=1000))
    with pytest.raises(GrammarCompileError, match="the limit is 1000"):
        compiler.compile({"type": "json_schema", "schema": _wide_schema(50, "big")})
    compiler.close()


def test_grammar_size_cap_refuses(ll_tokenizer: llguidance.LLTokenizer) -> None:
    compiler = GrammarCompiler(ll_tokenizer, StructuredConfig(max_grammar_size=200))
    with pytest.raises(GrammarCompileError, match="cannot enforce"):
        compiler.compile({"type": "json_schema", "schema": _wide_schema(60, "grammar")})
    compiler.close()


def test_time_cap_refuses_and_the_refusal_stands(ll_tokenizer: llguidance.LLTokenizer) -> None:
    compiler = GrammarCompiler(ll_tokenizer, StructuredConfig(compile_timeout_s=0.0))
    spec = {"type": "json_schema", "schema": _wide_schema(300, "slow")}
    with pytest.raises(GrammarCompileError, match="longer than 0 s to compile"):
        compiler.compile(spec)
    compiler.close()  # waits for nothing; the worker finishes the compile in the background
    compiler._pool.shutdown(wait=True)
    with pytest.raises(GrammarCompileError, match="longer than 0 s"):  # stable even though the compile finished
        compiler.compile(spec)


def test_cache_is_bounded(ll_tokenizer: llguidance.LLTokenizer) -> None:
    compiler = GrammarCompiler(ll_tokenizer, StructuredConfig(cache_size=3))
    for i in range(6):
        compiler.compile({"type": "regex", "pattern": f"x{{{i + 1}}}"})
    assert compiler.cache_len() == 3
    compiler.compile({"type": "regex", "pattern": "x{1}"})  # evicted: compiled again
    assert compiler.misses == 7
    compiler.close()


def test_submit_is_non_blocking_and_parse_is_separate(compiler: GrammarCompiler) -> None:
    spec = parse_structured({"type": "regex", "pattern": "[0-9]{3}-[0-9]{4}"})
    future = compiler.submit(spec)
    grammar = future.result(timeout=30)
    assert grammar.kind == "regex" and grammar.key == spec.key
