"""E-mail addresses with "@" and "." spelled out, bracketed or spaced are found as EMAIL_ADDRESS (so the policy's
e-mail action applies), on input and on output, whole and streamed; ordinary English with "at" and "dot" in it is
not. Digits written with spaces or dashes were already found (checked here so it stays so)."""

from __future__ import annotations

import pytest
from guard_support import assert_streamed_output_equals_whole

from gateway.guardrails import InputGuard, PiiAnalyzer
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

SPELLED = [
    "dana dot k at example dot org",
    "dana [at] example [dot] org",
    "dana(at)example(dot)org",
    "dana.k AT example DOT org",
    "dana {at} example.co.uk",
    "dana [ at ] mail [ dot ] example [ dot ] com",
    "dana @ example.org",
    "dana@example[.]org",
    "dana@example dot org",
    "ｄａｎａ［ａｔ］ｅｘａｍｐｌｅ［ｄｏｔ］ｏｒｇ",  # full-width, folded by the reader view first
]
PROSE = [
    "meet me at the office",
    "Meet me at the office at 5. Then dinner.",
    "look at example.com for details",
    "the docs are at docs.python.org now",
    "we were at the dot com boom",
    "email me at the dot com address",
    "I am at work dot dot dot",
    "the price is 5 at most, dot the i's",
    "He was good at math. Dot products are fun.",
    "use the x[.]y notation or @ mention someone",
    "reach us at example dot notarealtld",
]


@pytest.mark.parametrize("address", SPELLED)
def test_spelled_out_addresses_are_email_addresses(analyzer: PiiAnalyzer, address: str) -> None:
    text = f"please write to {address}, thanks"
    found = [(text[f.start : f.end], f.score >= 0.5) for f in analyzer.analyze(text, ner_enabled=False)
             if f.entity_type == "EMAIL_ADDRESS"]  # fmt: skip
    assert found == [(address, True)]


def test_a_word_after_the_address_is_not_taken_for_its_domain(analyzer: PiiAnalyzer) -> None:
    text = "reach me at dana dot k at example dot org dot Then we talk"
    assert [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)] == [
        "dana dot k at example dot org"
    ]


@pytest.mark.parametrize("text", PROSE)
def test_prose_with_at_and_dot_is_not_an_address(analyzer: PiiAnalyzer, text: str) -> None:
    assert analyzer.analyze(text, ner_enabled=False) == []


@pytest.mark.parametrize(
    ("entity", "value"),
    [("CREDIT_CARD", "4111 1111 1111 1111"), ("CREDIT_CARD", "4111-1111-1111-1111"),
     ("PHONE_NUMBER", "415 555 0132"), ("PHONE_NUMBER", "415-555-0132"), ("US_SSN", "536 22 1234")],
)  # fmt: skip
def test_digits_grouped_with_spaces_or_dashes_were_already_found(analyzer: PiiAnalyzer, entity: str,
                                                                 value: str) -> None:
    text = f"here: {value} ok"
    found = analyzer.analyze(text, ner_enabled=False)
    assert (entity, value) in {(f.entity_type, text[f.start : f.end]) for f in found}


def test_input_applies_the_email_action_to_spelled_addresses(guard: InputGuard) -> None:
    policy = Policy(pii_input=PiiRules(entities={"EMAIL_ADDRESS": PiiAction.BLOCK}, ner_enabled=False),
                    injection=InjectionRules(action=InjectionAction.OFF))
    messages = [{"role": "user", "content": "write to dana dot k at example dot org"}]
    blocked = guard.scan_messages_sync("t1", messages, policy)
    assert blocked.blocked and blocked.block_reason.endswith("EMAIL_ADDRESS")
    policy = Policy(pii_input=PiiRules(entities={"EMAIL_ADDRESS": PiiAction.MASK}, ner_enabled=False),
                    injection=InjectionRules(action=InjectionAction.OFF))
    text = "write to dana dot k at example dot org or dana(at)example(dot)org; meet me at the office"
    masked = guard.scan_messages_sync("t1", [{"role": "user", "content": text}], policy)
    assert masked.messages[0]["content"] == "write to <EMAIL_ADDRESS> or <EMAIL_ADDRESS>; meet me at the office"
    prose = [{"role": "user", "content": line} for line in PROSE]
    assert guard.scan_messages_sync("t1", prose, policy).messages == prose


def test_output_redaction_whole_and_streamed_masks_spelled_addresses(analyzer: PiiAnalyzer) -> None:
    text = "Sure: write to dana dot k at example dot org, or dana [at] example [dot] org. Meet me at the office."
    expected = "Sure: write to <EMAIL_ADDRESS>, or <EMAIL_ADDRESS>. Meet me at the office."
    assert_streamed_output_equals_whole(analyzer, text, expected, ("dana",))
