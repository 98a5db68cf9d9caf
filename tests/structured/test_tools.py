"""Tool calling: grammar per tool_choice, the prompt block, and parsing back to OpenAI tool_calls."""

from __future__ import annotations

import json

import pytest
import tokenizers

from engine.structured import GrammarCompileError, GrammarCompiler, parse_structured, parse_tool_calls
from engine.structured.tools import tools_system_prompt

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
            "required": ["city", "unit"],
            "additionalProperties": False,
        },
    },
}
TIME = {"type": "function", "function": {"name": "get_time"}}  # no parameters: an empty object


def _spec(tool_choice: object, parallel: bool = True) -> dict:
    return {"type": "tool_calls", "tools": [WEATHER, TIME], "tool_choice": tool_choice,
            "parallel_tool_calls": parallel}


def _accepts(compiler: GrammarCompiler, spec: dict, tokenizer: tokenizers.Tokenizer, text: str) -> bool:
    matcher = compiler.compile(spec).new_matcher()
    ids = tokenizer.encode(text).ids
    return matcher.accept_tokens(ids) == len(ids) and matcher.is_accepting()


CALL = '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}]</tool_call>'
TWO_CALLS = ('<tool_call>[{"name": "get_weather", "arguments": {"city": "Oslo", "unit": "f"}}, '
             '{"name": "get_time", "arguments": {}}]</tool_call>')


@pytest.mark.parametrize(
    ("tool_choice", "parallel", "text", "accepted"),
    [
        ("required", True, CALL, True),
        ("required", True, TWO_CALLS, True),
        ("required", False, TWO_CALLS, False),
        ("required", True, "The weather is fine.", False),
        ("required", True, CALL.replace('"c"', '"k"'), False),  # enum violated
        ("required", True, CALL.replace("get_weather", "get_wether"), False),  # unknown function
        ("required", True, '<tool_call>[{"name": "get_time", "arguments": {"x": 1}}]</tool_call>', False),
        ("auto", True, "The weather is fine.", True),
        ("auto", True, CALL, True),
        ("auto", True, '<tool_call>[{"name": "get_weather", "arguments": {"town": "Paris"}}]</tool_call>', False),
        ("auto", True, ' \n<tool_call>[{"name": "get_weather", "arguments": {"town": "Paris"}}]</tool_call>', False),
        ("auto", True, "Use <tool_call> tags to call a tool.", True),
        ({"type": "function", "function": {"name": "get_time"}}, True,
         '<tool_call>[{"name": "get_time", "arguments": {}}]</tool_call>', True),
        ({"type": "function", "function": {"name": "get_time"}}, True, CALL, False),
    ],
)
def test_tool_call_grammar(
    compiler: GrammarCompiler, hf_tokenizer: tokenizers.Tokenizer, tool_choice: object, parallel: bool, text: str,
    accepted: bool,
) -> None:
    assert _accepts(compiler, _spec(tool_choice, parallel), hf_tokenizer, text) is accepted


def test_forced_choice_forces_the_call_prefix(compiler: GrammarCompiler, hf_tokenizer: tokenizers.Tokenizer) -> None:
    matcher = compiler.compile(_spec({"type": "function", "function": {"name": "get_weather"}})).new_matcher()
    # llguidance stops forcing where a longer token could still merge across the boundary (the value's opening
    # quote may join its first letters), so the forced text ends at the key.
    forced = hf_tokenizer.decode(matcher.forced_tokens())
    assert forced.startswith('<tool_call>[{"name": "get_weather", "arguments": {"city":')


def test_tool_choice_none_is_unconstrained() -> None:
    assert parse_structured(_spec("none")) is None


@pytest.mark.parametrize(
    ("spec", "message", "param"),
    [
        ({"type": "tool_calls", "tools": []}, "non-empty list", "tools"),
        ({"type": "tool_calls", "tools": [{"type": "retrieval"}]}, "unsupported tool type", "tools"),
        ({"type": "tool_calls", "tools": [{"name": "bad name!"}]}, "invalid function name", "tools"),
        ({"type": "tool_calls", "tools": [TIME, TIME]}, "unique", "tools"),
        (_spec({"type": "function", "function": {"name": "nope"}}), "unknown function 'nope'", "tool_choice"),
        (_spec("sometimes"), "tool_choice must be", "tool_choice"),
    ],
)
def test_bad_tool_specs_are_refused(spec: dict, message: str, param: str) -> None:
    with pytest.raises(GrammarCompileError, match=message) as info:
        parse_structured(spec)
    assert info.value.param == param


def test_parse_tool_calls_round_trip() -> None:
    calls = parse_tool_calls(TWO_CALLS)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("get_weather", {"city": "Oslo", "unit": "f"}),
        ("get_time", {}),
    ]
    assert parse_tool_calls("Just text.") is None
    with pytest.raises(ValueError, match="incomplete"):
        parse_tool_calls(CALL[:30])


def test_system_prompt_lists_every_tool_and_the_format() -> None:
    prompt = tools_system_prompt([WEATHER, TIME])
    assert '"name": "get_weather"' in prompt and '"name": "get_time"' in prompt
    assert "<tool_call>[" in prompt and prompt.endswith("</tool_call>")
