"""A NER person that is a found place with capitalised words no name list knows before it is the place
(``places_in_people``); a known name beside or inside the place keeps the person."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.places_in_people import reads_as_place


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def _span(text: str, words: str, kind: str) -> Finding:
    start = text.index(words)
    return Finding(kind, start, start + len(words), 0.85, "test")


def test_a_place_with_unnamed_words_before_it_reads_as_the_place() -> None:
    text = "Standplaats Bāndarban of thuiswerken."
    person, place = _span(text, "Standplaats Bāndarban", "PERSON"), _span(text, "Bāndarban", "LOCATION")
    assert reads_as_place(text, person, [place])
    assert not reads_as_place(text, person, [])  # no place found inside: left to the other rules


def test_a_known_name_beside_or_inside_the_place_keeps_the_person() -> None:
    text = "Bitte an Hansjürgen Washington und Georgia Bryant."
    assert not reads_as_place(
        text, _span(text, "Hansjürgen Washington", "PERSON"), [_span(text, "Washington", "LOCATION")]
    )
    assert not reads_as_place(text, _span(text, "Georgia Bryant", "PERSON"), [_span(text, "Georgia", "LOCATION")])


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Orbis Konsultointi Oy\nthuttunen@orbis.fi\nToimipiste Anjala\nwww.orbis.fi", "Toimipiste Anjala"),
        ("Standplaats Bāndarban of thuiswerken binnen Kaapverdië.", "Standplaats Bāndarban"),
    ],
)
def test_places_read_with_a_word_before_them_are_no_people(analyzer: PiiAnalyzer, text: str, read: str) -> None:
    assert read not in people(analyzer, text)


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Georgia Bryant lives in Leeds.", "Georgia Bryant"),
        ("Votre enfant Arnaude Lopez participera à la sortie scolaire à Marseille.", "Arnaude Lopez"),
    ],
)
def test_people_named_like_places_are_still_people(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)
