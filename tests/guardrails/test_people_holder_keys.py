"""A value under a holder's or a next of kin's key is a person's name, in every key=value syntax a log, a config or a
metric writes ("holder=...", "HOLDER=...", "kin_name: ...", a Prometheus label); a team, a null or a secret under
such a key is none."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    found = analyzer.analyze(text, ner_enabled=True)
    return [text[f.start : f.end] for f in found if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('level=info svc=kyc msg="saved" holder="Cécile-Catherine Trottier" dur=18ms', "Cécile-Catherine Trottier"),
        ("MESSAGE=record updated\nHOLDER=Wanjiru\n\n__CURSOR=s=6ccbe4fe58", "Wanjiru"),
        ('+    kin_name: "Baraka"\n+    card_no: "5167"', "Baraka"),
        ('kyc_pending_check{instance="app-1:9100",kin_name="Amani Otieno"} 3', "Amani Otieno"),
        ('contact = {\n  holder = "Martine Lemay"\n}', "Martine Lemay"),
    ],
)
def test_a_holders_or_kins_key_names_a_person(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    ["holder: null", 'placeholder: "Enter name"', "the holder: Billing Team", 'kin_name: "unknown"'],
)
def test_no_name_under_a_holders_key_is_no_person(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []
