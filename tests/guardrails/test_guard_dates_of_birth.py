"""Dates of birth in English, French, Spanish and German, with birth words in those languages and in field keys."""

import pytest

from gateway.guardrails import PiiAnalyzer


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Elle est née le 3 février 1991 à Nantes.", "3 février 1991"),
        ("nacido el 7 de octubre de 1979, según el DNI", "7 de octubre de 1979"),
        ("geboren am 21. März 1968 in Graz", "21. März 1968"),
        ('{"date_of_birth": "1983-11-02"}', "1983-11-02"),
        ("patient_birthdate=02/11/1983", "02/11/1983"),
        ("my bday is Aug 9 2001 lol", "Aug 9 2001"),
    ],
)
def test_dates_next_to_birth_words(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    found = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
             if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]
    assert found == [date]


@pytest.mark.parametrize("text", ["released on 3 février 1991", "invoice due 2024-11-02", "el 7 de octubre de 1979"])
def test_dates_without_birth_words_stay_below_the_threshold(analyzer: PiiAnalyzer, text: str) -> None:
    findings = analyzer.analyze(text, ner_enabled=False)
    assert not [f for f in findings if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]
