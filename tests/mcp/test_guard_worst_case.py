"""Screening a tool call's arguments rewrites every masked string in one walk of the value, whatever its shape:
many strings (an object of thousands of masked values) and deep nesting keep the JSON shape, keys and non-string
values exactly, and put each screened text back where its original stood."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gateway.guardrails import InputGuard, PiiAnalyzer
from gateway.mcp.guard import _string_leaves, _with_leaves, screen_arguments
from gateway.openai.guardrails_adapter import GuardrailsInput
from policies import Policy

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5),
    max_leaves=40,
)


def _mapped(value: Any, change: Any) -> Any:
    """The plain rule: every string replaced by ``change(string)``, everything else as it was."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: _mapped(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_mapped(item, change) for item in value]
    return value


@settings(max_examples=200, deadline=None)
@given(JSON)
def test_rebuilding_from_the_leaves_is_the_plain_rule(value: Any) -> None:
    leaves = _string_leaves(value)
    assert _with_leaves(value, iter(leaves)) == value
    changed = [f"<{text}>" for text in leaves]
    assert _with_leaves(value, iter(changed)) == _mapped(value, lambda text: f"<{text}>")


def test_thousands_of_masked_arguments_and_deep_nesting_keep_their_shape() -> None:
    guard = GuardrailsInput(InputGuard(b"test-server-secret", analyzer=PiiAnalyzer()))
    policy = Policy.model_validate({"tools": {"mask_argument_pii": True},
                                    "pii_output": {"entities": {"EMAIL_ADDRESS": "mask"}, "ner_enabled": False}})
    nested: Any = "deep@example.com"
    for depth in range(150):
        nested = {"level": depth, "next": [nested, "plain"]}
    arguments = {**{f"user{i}@example.com": f"user{i}@example.com" for i in range(3000)}, "count": 7,
                 "nested": nested}

    screened = asyncio.run(screen_arguments(guard, "tenant", policy, arguments))

    released = screened.value
    assert list(released) == list(arguments)  # keys are never screened, and keep their order
    assert released["count"] == 7
    masked = [released[f"user{i}@example.com"] for i in range(3000)]
    assert all("@example.com" not in text for text in masked)
    assert masked[0] == masked[1]  # one mask per entity type, the same for every value
    inner = released["nested"]
    for depth in reversed(range(150)):
        assert inner["level"] == depth and inner["next"][1] == "plain"
        inner = inner["next"][0]
    assert inner == masked[0]
