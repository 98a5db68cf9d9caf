"""``ToolCallHold`` (a streamed choice under the tool-call grammar) is linear in its output and releases exactly what
the plain rule releases: hold the whole output while its start, past leading whitespace, is the tag or a prefix of
it; release everything held the moment it is neither."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tool_calls import TOOL_CALL_OPEN
from gateway.openai.structured import ToolCallHold, parse_calls


class PlainHold:
    """The rule as first written: the held text re-read whole on every delta (quadratic in the held length)."""

    def __init__(self) -> None:
        self.held = ""
        self.calling: bool | None = None

    def feed(self, text: str) -> str:
        if self.calling is False:
            return text
        self.held += text
        head = self.held.lstrip()
        if head.startswith(TOOL_CALL_OPEN):
            self.calling = True
            return ""
        if self.calling is None and TOOL_CALL_OPEN.startswith(head):
            return ""
        self.calling = False
        released, self.held = self.held, ""
        return released

    def finish(self) -> tuple[str, object]:
        held, self.held = self.held, ""
        calls = parse_calls(held) if self.calling else None
        return ("", calls) if calls is not None else (held, None)


# Deltas as a model writes them under the grammar: whitespace, pieces of the tag, a call's JSON, plain words.
PIECES = st.sampled_from([" ", "\n", "\t", "\u00a0", "<", "<tool", "_call", ">", "<tool_call>", "</tool_call>",
                          "[", "]", '{"name": "f", "arguments": {}}', "<tool_c", "all>", "Hi", "x", ""])
DELTAS = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=30)


@settings(max_examples=2_000, deadline=None)
@given(DELTAS)
def test_the_hold_releases_what_the_plain_rule_releases(deltas: list[str]) -> None:
    hold, plain = ToolCallHold(), PlainHold()
    for delta in deltas:
        assert hold.feed(delta) == plain.feed(delta)
        assert hold.calling == plain.calling
    assert hold.finish() == plain.finish()


def test_a_long_call_is_held_whole_and_parsed() -> None:
    arguments = '{"text": "' + "a" * 50_000 + '"}'
    deltas = [" \n", "<tool", "_call>", '[{"name": "echo", "arguments": ', *arguments, "}]", "</tool_call>"]
    hold = ToolCallHold()
    assert all(hold.feed(delta) == "" for delta in deltas)
    content, calls = hold.finish()
    assert content == "" and calls is not None and calls[0].name == "echo" and len(calls[0].arguments) > 50_000
