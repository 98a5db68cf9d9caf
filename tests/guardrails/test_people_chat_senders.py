"""Chat senders saved as a relation, a role or a contact's kind in a language with no dictionary here (Swahili SMS
threads: "Mimi", "Ofisi", "Benki") are no people; a sender with a name stays one."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=True) if f.entity_type == "PERSON"]


@pytest.mark.parametrize(
    "sender",
    ["Mimi", "Ofisi", "Benki", "Kaka", "Dada", "Baba", "Mke", "Jirani", "Bank", "Banque", "Banco"],
)
def test_a_sender_saved_as_a_relation_or_a_contact_kind_is_no_person(analyzer: PiiAnalyzer, sender: str) -> None:
    text = f"[02/04/2026 20:55] {sender}: nimefika salama\n[02/04/2026 21:02] Mama: sawa\n"
    assert people(analyzer, text) == []


def test_a_sender_with_a_name_stays_a_person(analyzer: PiiAnalyzer) -> None:
    text = "[02/04/2026 20:55] Benki: salio lako\n[02/04/2026 21:02] Wanjiru Kamau: asante sana\n"
    assert people(analyzer, text) == ["Wanjiru Kamau"]
