"""A place the NER models read that is a common given name and no place is a person (``given_name_places``)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.given_name_places import is_given_name_not_place


def _span(text: str, word: str) -> tuple[str, int, int]:
    start = text.index(word)
    return text, start, start + len(word)


@pytest.mark.parametrize(
    ("text", "word"),
    [("Obrigado pela ajuda!\nAbraço, Beatriz", "Beatriz"), ("Grazie mille. Saluti, Melania", "Melania"),
     ("Vi ses, hälsningar Kjetil", "Kjetil"), ("Say hi to Imre from me!", "Imre"), ("Bisous à Imre !", "Imre"),
     ("Please reach out to Imre about it.", "Imre")],
)  # fmt: skip
def test_a_given_name_no_gazetteer_holds_is_a_person(text: str, word: str) -> None:
    assert is_given_name_not_place(*_span(text, word))


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Je suis à Sofia, Beatriz", "Sofia"),  # a city the gazetteer holds
        ("Hilsen, Alsace", "Alsace"),  # a region
        ("We spent a week in Brittany", "Brittany"),  # after a preposition of place
        ("We flew to Imre last year", "Imre"),  # a preposition of place that ends no regards
        ("Say hi to Paris for me!", "Paris"),  # regards sent to a city the gazetteer holds
        ("Abraço, BEATRIZ", "BEATRIZ"),  # capitals: no name read alone
        ("Reserva para agosto", "Reserva"),  # no given name
    ],
)
def test_a_place_an_acronym_or_a_word_stays_as_read(text: str, word: str) -> None:
    assert not is_given_name_not_place(*_span(text, word))


def test_the_analyzer_finds_a_given_name_signing_a_message(analyzer: PiiAnalyzer) -> None:
    text = "Obrigado pela ajuda!\nAbraço, Beatriz"
    found = [(f.entity_type, text[f.start : f.end]) for f in analyzer.analyze(text) if f.score >= 0.5]
    assert ("PERSON", "Beatriz") in found and ("LOCATION", "Beatriz") not in found


def test_the_analyzer_reads_no_person_in_a_place_after_a_preposition(analyzer: PiiAnalyzer) -> None:
    text = "We spent a week in Brittany last summer."
    assert not [f for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "word"),
    [("Von: GERTZ Priska <p@example.de>", "Priska"), ("Kind regards,\nOdalis Sotelo Guerrero", "Odalis")],
)
def test_a_given_name_beside_another_capitalised_word_is_left_to_the_name_rules(text: str, word: str) -> None:
    assert not is_given_name_not_place(*_span(text, word))
