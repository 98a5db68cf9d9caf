"""A value split across consecutive messages ("my card is 4111 1111" then "1111 1111") is found, and each message's
part of it gets the policy's action; adjacent messages that hold no such value are left alone; a resent history's
boundaries are served from the cache, and an appended message adds only the windows that reach into it."""

from __future__ import annotations

from typing import Any

import pytest

from gateway.guardrails import GuardConfig, InputGuard, PiiAnalyzer
from gateway.guardrails.boundaries import BoundaryWindow, Segment, boundary_windows
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

SECRET = b"test-server-secret"
MASK_ALL = Policy(pii_input=PiiRules(entities={}, default_action=PiiAction.MASK, ner_enabled=False),
                  injection=InjectionRules(action=InjectionAction.OFF))  # fmt: skip


def user(*contents: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": content} for content in contents]


@pytest.mark.parametrize(
    ("contents", "masked"),
    [
        (["my card is 4111 1111", "1111 1111"], ["my card is <CREDIT_CARD>", "<CREDIT_CARD>"]),
        (["my card is 4111", "1111", "1111", "1111 thanks"],  # four pieces
         ["my card is <CREDIT_CARD>", "<CREDIT_CARD>", "<CREDIT_CARD>", "<CREDIT_CARD> thanks"]),
        (["mail dana.k@exam", "ple.org please"], ["mail <EMAIL_ADDRESS>", "<EMAIL_ADDRESS> please"]),  # in a token
        (["mail dana dot k at", "example dot org"], ["mail <EMAIL_ADDRESS>", "<EMAIL_ADDRESS>"]),
        (["call (415) 555", "0132 now"], ["call <PHONE_NUMBER>", "<PHONE_NUMBER> now"]),
        (["iban DE89 3704 0044", "", "0532 0130 00"], ["iban <IBAN_CODE>", "", "<IBAN_CODE>"]),  # empty between
    ],
)  # fmt: skip
def test_a_value_split_across_messages_is_masked_in_each(guard: InputGuard, contents: list[str],
                                                         masked: list[str]) -> None:
    result = guard.scan_messages_sync("t1", user(*contents), MASK_ALL)
    assert [message["content"] for message in result.messages] == masked
    entities = result.decisions[0]["entities"]
    assert [(row["entity_type"], row["count"]) for row in entities] == [(masked[0].split("<")[1][:-1], 1)]  # once


def test_a_split_value_across_roles_and_content_parts_blocks(guard: InputGuard) -> None:
    policy = Policy(pii_input=PiiRules(entities={"CREDIT_CARD": PiiAction.BLOCK}, ner_enabled=False),
                    injection=InjectionRules(action=InjectionAction.OFF))
    messages = [{"role": "user", "content": [{"type": "text", "text": "card: 4111 1111"}]},
                {"role": "assistant", "content": "1111 1111"}]  # fmt: skip
    result = guard.scan_messages_sync("t1", messages, policy)
    assert result.blocked and result.block_reason.endswith("CREDIT_CARD")
    assert result.decisions[0]["entities"] == [
        {"entity_type": "CREDIT_CARD", "action": "block", "count": 1, "max_score": 1.0}
    ]


@pytest.mark.parametrize(
    "contents",
    [
        ["version 1.2", "3 apples"],
        ["Meet me at the office", "at 5 tomorrow"],
        ["ticket 4111", "and 1111 1111 1111"],  # digits, but no card reads across the boundary
        ["my PIN is 1234", "5678 is my locker"],
        ["Call me Maria.", "Garcia's report is due."],
        ["Мы встретимся в офисе.", "Сорока, хор, сок."],
    ],
)
def test_adjacent_messages_without_a_split_value_are_left_alone(analyzer: PiiAnalyzer, contents: list[str]) -> None:
    guard = InputGuard(SECRET, analyzer=analyzer)
    policy = Policy(pii_input=PiiRules(entities={}, default_action=PiiAction.MASK),  # NER on too
                    injection=InjectionRules(action=InjectionAction.OFF))
    alone = [guard.scan_messages_sync("t1", user(content), policy).messages[0] for content in contents]
    together = guard.scan_messages_sync("t1", user(*contents), policy)
    assert together.messages == alone and together.boundary_chars > 0


def test_split_windows_can_be_switched_off(analyzer: PiiAnalyzer) -> None:
    guard = InputGuard(SECRET, analyzer=analyzer, config=GuardConfig(split_window_chars=0))
    result = guard.scan_messages_sync("t1", user("my card is 4111 1111", "1111 1111"), MASK_ALL)
    assert "CREDIT_CARD" not in str(result.decisions) and result.messages[1]["content"] == "1111 1111"
    assert result.boundary_chars == 0


def test_an_appended_message_adds_only_the_windows_that_reach_into_it(analyzer: PiiAnalyzer) -> None:
    calls: list[list[str]] = []

    class CountingAnalyzer:
        def analyze_many(self, texts: list[str], *, ner_enabled: bool = True) -> list[Any]:
            calls.append(list(texts))
            return analyzer.analyze_many(texts, ner_enabled=ner_enabled)

    guard = InputGuard(SECRET, analyzer=CountingAnalyzer())  # type: ignore[arg-type]
    history = user(*[f"turn {i}: " + "some words of history " * 8 for i in range(30)])
    first = guard.scan_messages_sync("t1", history, MASK_ALL)
    assert first.boundary_chars > 0
    calls.clear()
    history.append({"role": "user", "content": "my card is 4111 1111"})
    history.append({"role": "user", "content": "1111 1111"})
    second = guard.scan_messages_sync("t1", history, MASK_ALL)
    assert [m["content"] for m in second.messages[-2:]] == ["my card is <CREDIT_CARD>", "<CREDIT_CARD>"]
    analysed = [text for call in calls for text in call]
    assert analysed[:2] == ["my card is 4111 1111", "1111 1111"]
    assert all("my card is" in text or "1111 1111" in text for text in analysed[2:])  # no window of old text alone
    # Bounded by the window, not the history: (96 visible characters + a word each side) per reading, 2 readings,
    # for the two boundaries the new messages make (the long messages before keep the others away from them).
    assert second.boundary_chars <= 2 * 2 * 2 * (96 + 30)
    assert guard.scan_messages_sync("t1", history, MASK_ALL).scanned_chars == 0  # a resend rescans nothing


def test_windows_reach_into_short_texts_and_widen_to_whitespace() -> None:
    texts = ["a" * 300, "bb", "", "c d", "x " * 100]
    windows = boundary_windows(texts, 10, 4)
    # The first reaches 10 visible characters back into the long token, widens 10 more and still cuts it; forward,
    # it reaches through "bb" and "c d" (the empty text holds nothing) into the spaced text and ends at a space.
    assert windows[0] == BoundaryWindow((Segment(0, 280, 300), Segment(1, 0, 2), Segment(3, 0, 3),
                                         Segment(4, 0, 5)), cut_start=True, cut_end=False)  # fmt: skip
    # Back from "c d", through "bb" into the long token; forward, 10 visible characters widened to the next space.
    assert windows[1:] == [
        BoundaryWindow((Segment(0, 282, 300), Segment(1, 0, 2), Segment(3, 0, 3), Segment(4, 0, 7)), True, False),
        BoundaryWindow((Segment(0, 285, 300), Segment(1, 0, 2), Segment(3, 0, 3), Segment(4, 0, 11)), True, False),
    ]
