"""An unformatted nine-digit SSN named by the W-2, the US wage statement whose box a holds the employee's SSN: a
context word of the SSN recognizer (``recognizers._SSN_CONTEXT_ELSEWHERE``), in any of the corpus' languages."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def _ssns(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "US_SSN" and f.score >= 0.5]


@pytest.mark.parametrize(
    "text",
    [
        "Auf dem W-2 steht 873809982.",
        "typo in 146145683 on the w-2, can you fix it",
        "Le W-2 indique le numéro 211172889.",
        "En el W-2 figura el 385986459.",
    ],
)
def test_nine_digits_the_w2_names_are_an_ssn(analyzer: PiiAnalyzer, text: str) -> None:
    assert len(_ssns(analyzer, text)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "Part 146145683 is out of stock again.",  # nine digits and no cue
        "Order 873809982 shipped on Monday.",
        "Seat W2 on flight KW-2, booking 873809982.",  # a seat, a flight: no hyphened W-2 standing alone
    ],
)
def test_nine_digits_without_the_w2_are_none(analyzer: PiiAnalyzer, text: str) -> None:
    assert _ssns(analyzer, text) == []
