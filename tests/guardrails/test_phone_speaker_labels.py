"""phones' context words: a transcript's speaker label "caller:" opening a turn of words is no phone context (a bare
run after it is a part number, a version, an id as often as a phone); before a number, and "call" elsewhere, it
still is one."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def _phones(analyzer: PiiAnalyzer, text: str) -> list[str]:
    found = analyzer.analyze_many([text], ner_enabled=False)[0]
    return [text[f.start : f.end] for f in found if f.entity_type == "PHONE_NUMBER" and f.score >= 0.5]


@pytest.mark.parametrize(
    "text",
    [
        "agent: which part is it?\ncaller: part no 57-8568-8396",
        "caller: version 10.5.7403",
        "Caller (turn 3): my account is 40512 33871",
        "[00:01:12] callers: we paid 44172210 yesterday",
    ],
)
def test_a_speaker_label_is_no_phone_context(analyzer: PiiAnalyzer, text: str) -> None:
    assert _phones(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "phone"),
    [
        ("Caller: 0612345678", "0612345678"),  # a caller-ID field: the label names the number
        ("caller: call me on 0612345678", "0612345678"),  # a calling word in the turn
        ("please call 0612345678 tomorrow", "0612345678"),
        ("She called from 0612345678.", "0612345678"),
        ("caller: my number is 0121 235 4282", "0121 235 4282"),  # grouped as the region dials: no context needed
    ],
)
def test_a_calling_word_or_a_caller_id_stays_context(analyzer: PiiAnalyzer, text: str, phone: str) -> None:
    assert phone in _phones(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "Phone +1 201-556-3791\nPart No: 6880313412\nKey: 4mnA",  # a part number under a phone line
        "contact:\n  part_number: '1034664221'\n  status: open",
        "Téléphone fixe en panne. La pièce n° 1046645176 a été changée.",
        "Telefon-Support, Seriennummer 4471209388",
    ],
)
def test_an_items_number_is_no_phone(analyzer: PiiAnalyzer, text: str) -> None:
    assert [phone for phone in _phones(analyzer, text) if not phone.startswith("+")] == []


@pytest.mark.parametrize(
    "text",
    [
        "Phone +1 201-556-3791\nFoo: 6880313412\nKey: 4mnA",  # the same numbers with no item's label: phones
        "contact:\n  foo: '1034664221'\n  status: open",
        "Téléphone fixe en panne. La 1046645176 a été changée.",
        "Telefon-Support, 4471209388",
        "part no 5787 901 165, call me on 4471209388",  # a phone word after the label gives the number back
    ],
)
def test_a_bare_number_with_phone_context_and_no_items_label_stays(analyzer: PiiAnalyzer, text: str) -> None:
    assert [phone for phone in _phones(analyzer, text) if not phone.startswith("+")] != []
