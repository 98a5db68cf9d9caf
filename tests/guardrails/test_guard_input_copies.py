"""The screened messages are copies of the request's: the redacted texts are written into them, never into the
request (the audit record keeps what the client sent). ``input_guard._copied`` copies them as ``copy.deepcopy``
would: every dict and list anew, anything that is not JSON deep-copied."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from gateway.guardrails import InputGuard
from gateway.guardrails.input_guard import _copied
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

MASK_ALL = Policy(pii_input=PiiRules(entities={}, default_action=PiiAction.MASK, ner_enabled=False),
                  injection=InjectionRules(action=InjectionAction.OFF))  # fmt: skip


class Opaque:
    def __init__(self, value: list[int]) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Opaque) and other.value == self.value

    __hash__ = None  # type: ignore[assignment]


def containers(value: Any) -> Iterator[int]:
    """The ids of every dict and list inside ``value``, itself included."""
    if isinstance(value, dict):
        yield id(value)
        for item in value.values():
            yield from containers(item)
    elif isinstance(value, list):
        yield id(value)
        for item in value:
            yield from containers(item)


def message() -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "mail dana.k@example.org"},
                    {"type": "image_url", "image_url": {"url": "x"}}],
        "tool_calls": [{"id": "c1", "type": "function",
                        "function": {"name": "send", "arguments": '{"to": "dana.k@example.org"}'}}],
        "n": 3, "ratio": 0.5, "flag": True, "none": None, "pair": (1, 2), "opaque": Opaque([1, 2]),
    }  # fmt: skip


def test_copied_is_deepcopy_for_messages() -> None:
    original = message()
    copied = _copied(original)
    assert copied == copy.deepcopy(original) == original
    assert set(containers(copied)).isdisjoint(containers(original))  # no dict or list shared
    assert copied["opaque"] is not original["opaque"] and copied["opaque"].value is not original["opaque"].value
    assert copied["content"][0]["text"] is original["content"][0]["text"]  # strings are kept, as deepcopy keeps them


def test_screening_writes_into_copies_only(guard: InputGuard) -> None:
    request = [{"role": "user", "content": "hello"}, message()]
    sent = copy.deepcopy(request)
    result = guard.scan_messages_sync("t1", request, MASK_ALL)
    assert request == sent  # the request is as the client sent it
    screened = result.messages[1]
    assert screened["content"][0]["text"] == "mail <EMAIL_ADDRESS>"
    assert "<EMAIL_ADDRESS>" in screened["tool_calls"][0]["function"]["arguments"]
    assert screened["content"][1] == sent[1]["content"][1] and screened["opaque"] == sent[1]["opaque"]
    assert set(containers(result.messages)).isdisjoint(containers(request))
