"""Generation on the real model (SmolLM2-135M-Instruct) under JSON-schema and tool-call constraints: every output
that finishes parses and validates with ``jsonschema``; unconstrained requests share the batch untouched."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from engine.config import EngineConfig
from engine.errors import InvalidRequestError
from engine.llm_engine import LLMEngine
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.structured import GrammarCompileError, parse_tool_calls, tools_system_prompt

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "bench" / "data" / "jsonschemabench_sample"
SUBSETS = ("Glaiveai2K", "Github_trivial", "Github_easy", "Snowplow")
PER_SUBSET = 2
MAX_SCHEMA_BYTES = 1200  # keeps prompts short: the schema is shown to the model
MAX_TOKENS = 128


@pytest.fixture(scope="module")
def engine() -> Iterator[LLMEngine]:
    yield LLMEngine(EngineConfig(show_progress=False, max_num_seqs=16))


def _prompt(engine: LLMEngine, instruction: str, system: str | None = None) -> list[int]:
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": instruction}]
    return engine.tokenizer.encode(engine.tokenizer.apply_chat_template(messages))


def _drain(engine: LLMEngine) -> dict[str, tuple[str, str | None, str | None]]:
    """Step until every added request finishes: request id -> (text, finish_reason, error)."""
    texts: dict[str, str] = {}
    finished: dict[str, tuple[str, str | None, str | None]] = {}
    while engine.has_unfinished_requests():
        for delta in engine.step():
            texts[delta.request_id] = texts.get(delta.request_id, "") + delta.text
            if delta.finished:
                finished[delta.request_id] = (texts[delta.request_id], delta.finish_reason, delta.error)
    return finished


def _sample_schemas() -> list[tuple[str, dict[str, Any]]]:
    manifest = SAMPLE / "manifest.json"
    chosen: list[tuple[str, dict[str, Any]]] = []
    for subset in SUBSETS:
        rows = [r for r in json.loads(manifest.read_text()) if r["subset"] == subset and r["bytes"] <= MAX_SCHEMA_BYTES]
        chosen += [(r["schema_file"], json.loads((SAMPLE / r["schema_file"]).read_text())) for r in rows]
    return chosen


def test_outputs_validate_against_their_schemas(engine: LLMEngine) -> None:
    candidates = _sample_schemas()
    assert candidates, f"no schemas of {SUBSETS} under {MAX_SCHEMA_BYTES} bytes in {SAMPLE}"
    schemas: dict[str, tuple[str, dict[str, Any]]] = {}
    taken: dict[str, int] = {}
    for name, schema in candidates:
        subset = name.split("/")[1]
        if taken.get(subset, 0) >= PER_SUBSET:
            continue
        rid = f"schema-{len(schemas)}"
        try:
            engine.add_request(EngineRequest(
                rid,
                _prompt(engine, f"Reply with a JSON value valid against this JSON schema:\n{json.dumps(schema)}"),
                SamplingParams(max_tokens=MAX_TOKENS, temperature=0.0, repetition_penalty=1.1),
                structured={"type": "json_schema", "json_schema": {"name": "out", "schema": schema}},
            ))
        except GrammarCompileError:
            continue  # refused up front: covered by the conformance test
        schemas[rid] = (name, schema)
        taken[subset] = taken.get(subset, 0) + 1
    free = SamplingParams(max_tokens=24, temperature=0.0)
    engine.add_request(EngineRequest("free", _prompt(engine, "Say hello."), free))
    results = _drain(engine)
    assert len(schemas) >= 6
    stopped = 0
    for rid, (name, schema) in schemas.items():
        text, finish, error = results[rid]
        assert error is None, (name, error)
        if finish == "length":  # a value the model kept extending (a long string): cut, never invalid
            continue
        assert finish == "stop", (name, finish)
        jsonschema.validate(json.loads(text), schema)  # valid by construction
        stopped += 1
    assert stopped >= len(schemas) - 2, f"only {stopped} of {len(schemas)} outputs completed"
    assert results["free"][1] in ("stop", "length") and results["free"][0]


TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 40}, "unit": {"enum": ["celsius", "fahrenheit"]}},
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
    },
}]


@pytest.mark.parametrize("tool_choice", ["required", {"type": "function", "function": {"name": "get_weather"}}])
def test_tool_call_arguments_validate(engine: LLMEngine, tool_choice: object) -> None:
    request = EngineRequest(
        f"tool-{json.dumps(tool_choice)}",
        _prompt(engine, "What is the weather like in Paris today?", system=tools_system_prompt(TOOLS)),
        SamplingParams(max_tokens=96, temperature=0.0),
        structured={"type": "tool_calls", "tools": TOOLS, "tool_choice": tool_choice},
    )
    engine.add_request(request)
    text, finish, error = _drain(engine)[request.request_id]
    assert (finish, error) == ("stop", None), text
    calls = parse_tool_calls(text)
    assert calls and calls[0].name == "get_weather"
    jsonschema.validate(json.loads(calls[0].arguments), TOOLS[0]["function"]["parameters"])


def test_unenforceable_schema_is_refused_before_any_token(engine: LLMEngine) -> None:
    request = EngineRequest("refused", _prompt(engine, "hi"), SamplingParams(max_tokens=8),
                            structured={"type": "json_schema", "schema": {"type": "array", "uniqueItems": True}})
    with pytest.raises(InvalidRequestError, match="uniqueItems"):
        engine.add_request(request)
    assert not engine.has_unfinished_requests()
