"""The tool-call parser on output nobody tuned for: whatever follows the opening tag, the answer is the calls, None
(plain text) or a ValueError, which the callers turn into plain content; never another exception, whatever the
nesting depth."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tool_calls import TOOL_CALL_CLOSE, TOOL_CALL_OPEN, parse_tool_calls


@pytest.mark.parametrize("depth", [10, 900, 5_000, 100_000])
def test_arguments_nested_past_the_interpreters_depth_are_a_value_error(depth: int) -> None:
    arguments = "[" * depth + "1" + "]" * depth
    text = f'{TOOL_CALL_OPEN}[{{"name": "f", "arguments": {arguments}}}]{TOOL_CALL_CLOSE}'
    try:
        calls = parse_tool_calls(text)
    except ValueError as exc:
        assert "nested too deeply" in str(exc)
    else:  # shallow enough: parsed exactly
        assert calls is not None and calls[0].arguments == arguments.replace("][", "], [")


@pytest.mark.parametrize("body", [
    "{}", '{"name": "f"}', '"f"', "1", "[1]", '[{"arguments": {}}]', "[[]]", "{" * 5_000, "[" * 5_000,
    TOOL_CALL_OPEN * 1_000, TOOL_CALL_CLOSE * 1_000,
])
def test_a_body_that_is_not_a_list_of_calls_is_a_value_error(body: str) -> None:
    with pytest.raises(ValueError):
        parse_tool_calls(f"{TOOL_CALL_OPEN}{body}{TOOL_CALL_CLOSE}")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["[", "]", "{", "}", '"', ":", ",", "1", '"name"', '"arguments"', " ", "\\",
                                 "\ufffd", TOOL_CALL_OPEN, TOOL_CALL_CLOSE]), max_size=60).map("".join))
def test_any_text_after_the_tag_is_calls_or_a_value_error(body: str) -> None:
    try:
        calls = parse_tool_calls(TOOL_CALL_OPEN + body + TOOL_CALL_CLOSE)
    except ValueError:
        return
    assert isinstance(calls, list)
