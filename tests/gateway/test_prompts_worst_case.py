"""An assistant turn's tool-call arguments echoed back by a client reach the prompt whatever their nesting: parsed
JSON where the standard library reads it, the client's own string past that, never a RecursionError (a 500)."""

from __future__ import annotations

import json

import pytest

from gateway.openai.prompts import TOOL_CALL_CLOSE, TOOL_CALL_OPEN, model_messages


def _echoed_call(arguments: str) -> list[dict[str, object]]:
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": arguments}}
    return [{"role": "user", "content": "find it"}, {"role": "assistant", "content": None, "tool_calls": [call]}]


def _written_calls(messages: list[dict[str, object]]) -> object:
    content = model_messages(messages)[1]["content"]
    assert content.startswith(TOOL_CALL_OPEN) and content.endswith(TOOL_CALL_CLOSE)
    return json.loads(content[len(TOOL_CALL_OPEN):-len(TOOL_CALL_CLOSE)])


def test_json_arguments_are_written_as_json() -> None:
    assert _written_calls(_echoed_call('{"city": "Lyon", "days": [1, 2]}')) == [
        {"name": "lookup", "arguments": {"city": "Lyon", "days": [1, 2]}}]


def test_arguments_that_are_no_json_are_written_as_the_client_sent_them() -> None:
    assert _written_calls(_echoed_call("city=Lyon")) == [{"name": "lookup", "arguments": "city=Lyon"}]


@pytest.mark.parametrize("depth", [900, 990, 995, 998, 1000, 1100, 20_000])
def test_arguments_nested_past_the_parsers_depth_reach_the_prompt(depth: int) -> None:
    arguments = "[" * depth + "]" * depth
    content = model_messages(_echoed_call(arguments))[1]["content"]
    # Parsed or kept as the client's string, the brackets are written as they came (none is escaped in JSON).
    assert content.startswith(f'{TOOL_CALL_OPEN}[{{"name": "lookup", "arguments": ')
    assert arguments in content and content.endswith(TOOL_CALL_CLOSE)
