"""Card and phone numbers written digit by digit ("4 1 1 1 1 1 ...", "4-1-1-1-...", "4.1.1.1...") are found, and
the whole raw value is masked, on input (alone and split across messages) and on output (whole and streamed); runs
of single digits that are no card or phone (Luhn-invalid, a non-card first digit, too short or long, a JSON array,
an IBAN's digits, a puzzle row) are not."""

from __future__ import annotations

import pytest
from guard_support import assert_streamed_output_equals_whole

from gateway.guardrails import InputGuard, PiiAnalyzer
from policies import InjectionAction, InjectionRules, PiiAction, PiiRules, Policy

MASK_ALL = Policy(pii_input=PiiRules(entities={}, default_action=PiiAction.MASK, ner_enabled=False),
                  injection=InjectionRules(action=InjectionAction.OFF))  # fmt: skip


def found(analyzer: PiiAnalyzer, text: str) -> list[tuple[str, str]]:
    """(type, raw value) of each finding the default policy threshold (0.5) keeps."""
    return [(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text, ner_enabled=False)
            if f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    "card",
    [
        "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",
        "4-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1",
        "4.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1",  # also reads as IP addresses: the card wins the overlap
        "5/5/5/5/5/5/5/5/5/5/5/5/4/4/4/4",  # Mastercard
        "3 7 8 2 8 2 2 4 6 3 1 0 0 0 5",  # Amex, 15 digits
        "4 2 2 2 2 2 2 2 2 2 2 2 2",  # Visa, 13 digits
        "6_0_1_1_0_0_0_9_9_0_1_3_9_4_2_4",  # Discover
        "4 1-1.1 1 1 1 1 1 1 1 1 1 1 1 1",  # mixed separators
        "4\u200b 1 1 1 1 1 1 1 1 1 1 1 1 1 1\u00ad 1",  # invisible characters inside
        "４ １ １ １ １ １ １ １ １ １ １ １ １ １ １ １",  # full-width digits
        "4\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01\u00a01",
    ],
)
def test_a_card_written_digit_by_digit_is_a_card(analyzer: PiiAnalyzer, card: str) -> None:
    text = f"pay with {card}, thanks"
    assert ("CREDIT_CARD", card) in found(analyzer, text)
    masked = InputGuard(b"s", analyzer=analyzer).scan_messages_sync("t1", [{"role": "user", "content": text}],
                                                                     MASK_ALL)  # fmt: skip
    assert masked.messages[0]["content"] == "pay with <CREDIT_CARD>, thanks"  # the whole raw span


def test_a_card_word_before_the_digits_is_no_iban_country_code(analyzer: PiiAnalyzer) -> None:
    card = "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"
    for word in ("CC", "MC", "VISA"):
        assert found(analyzer, f"{word} {card}") == [("CREDIT_CARD", card)]


@pytest.mark.parametrize(
    "phone", ["4 1 5 5 5 5 0 1 3 2", "4-1-5-5-5-5-0-1-3-2", "+4 4 2 0 7 9 4 6 0 9 5 8", "0.2.0.7.9.4.6.0.9.5.8"]
)
def test_a_phone_number_written_digit_by_digit_counts_with_a_phone_word(analyzer: PiiAnalyzer, phone: str) -> None:
    text = f"call me on {phone} tonight"
    assert ("PHONE_NUMBER", phone) in found(analyzer, text)
    masked = InputGuard(b"s", analyzer=analyzer).scan_messages_sync("t1", [{"role": "user", "content": text}],
                                                                     MASK_ALL)  # fmt: skip
    assert masked.messages[0]["content"] == "call me on <PHONE_NUMBER> tonight"
    # Without one it is reported below the default threshold: ten digits have other meanings too.
    text = f"the sequence {phone} appears"
    assert "PHONE_NUMBER" not in [kind for kind, _ in found(analyzer, text)]
    assert "PHONE_NUMBER" in [f.entity_type for f in analyzer.analyze(text, ner_enabled=False)]


@pytest.mark.parametrize(
    "text",
    [
        "card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 2",  # Luhn-invalid
        "card 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",  # no card network starts with 1 (nor 0, 7, 8, 9)
        "card 9 1 1 1 1 1 1 1 1 1 1 1 1 1 1 5",
        "card 4 1 1 1 1 1 1 1 1 1 1 3",  # 12 digits
        "card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",  # 24 digits
        "mask = [4,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]",  # a JSON array: no comma separates spelled digits
        "labels: [4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1]",  # an array as numpy prints it
        "[[4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1]\n [4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1]]",
        "ids 14 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1",  # "4 1 1 ..." would be a card, but it goes on from "14"
        "ids 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 12",  # and here into "12"
        "v4.1.1.1.1.1.1.1.1.1.1.1.1.1.1.1",  # glued to a word
        "IBAN D E 4 4 5 0 0 1 0 5 1 7 5 4 0 7 3 2 4 9 3 1",  # a spelled IBAN's digits
        "IBAN B E 3 1 0 4 6 6 1 0 9 9 0 6 9 5",  # 14 digits, Luhn-valid: a card but for its country code
        "IBAN: BE 3 1 0 4 6 6 1 0 9 9 0 6 9 5",
        "row: 5 3 4 6 7 8 9 1 2, then 6 7 2 1 9 5 3 4 8",  # sudoku rows of 9
        "bits 1 0 1 1 0 0 1 0 1 1 1 0 0 1 0 1",
        "release 1.2.3, build 2024-05-01, chapter 4.1.1",
    ],
)
def test_runs_of_single_digits_that_are_no_card_or_phone(analyzer: PiiAnalyzer, text: str) -> None:
    assert [kind for kind, _ in found(analyzer, text) if kind in ("CREDIT_CARD", "PHONE_NUMBER")] == []


def test_a_spelled_card_split_across_messages_is_masked_in_each(guard: InputGuard) -> None:
    messages = [{"role": "user", "content": "my card: 4 1 1 1 1 1 1 1"},
                {"role": "user", "content": "1 1 1 1 1 1 1 1 thanks"}]  # fmt: skip
    result = guard.scan_messages_sync("t1", messages, MASK_ALL)
    assert [m["content"] for m in result.messages] == ["my card: <CREDIT_CARD>", "<CREDIT_CARD> thanks"]


def test_output_masks_a_spelled_card_whole_and_streamed(analyzer: PiiAnalyzer) -> None:
    text = "Your card 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 is on file."
    assert_streamed_output_equals_whole(analyzer, text, "Your card <CREDIT_CARD> is on file.", ("1 1 1 1 1 1 1 1",))
