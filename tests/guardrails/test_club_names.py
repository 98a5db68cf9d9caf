"""club_names: a place or a name inside a sports club's name ("Marseille – Borussia Dortmund 1:1", "FC Porto", "Le
Bayern München s'impose") is the club's, no place nor person; a city the shape does not make a club stays a place."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer


@pytest.fixture(scope="module")
def analyzer() -> PiiAnalyzer:
    return PiiAnalyzer()


def _names(analyzer: PiiAnalyzer, text: str) -> set[str]:
    found = analyzer.analyze_many([text], ner_enabled=True)[0]
    return {text[f.start : f.end] for f in found if f.entity_type in ("PERSON", "LOCATION") and f.score >= 0.5}


@pytest.mark.parametrize(
    "text",
    [
        "Bundesliga: Marseille – Borussia Dortmund 1:1",  # a fixture: two teams, a dash, a score
        "Serie A: Benfica – Legia Warszawa 2-2",
        "Paris 2-1 Lyon hier soir.",  # a fixture: two teams around the score
        "Lech Poznań 1-0 Valencia Objeto saiu da unidade.",
        "Der Trainer von FC Porto bleibt.",  # a club's abbreviated form before the city
        "La Atlético de Madrid vince in trasferta.",  # a club's opener, a particle between
        "El Real Madrid ficha a un delantero.",
        "Le Bayern München s'impose à domicile.",  # a sentence's article before a city
        "La Lyon vince in trasferta.",
        "O Napoli empatou fora de casa.",  # Portuguese "o" before a foreign city: the club
    ],
)
def test_a_club_is_no_place(analyzer: PiiAnalyzer, text: str) -> None:
    assert _names(analyzer, text) == set()


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Ich fahre von Berlin nach Hamburg 2-3 Tage.", "Hamburg"),  # no fixture: the line does not open with a team
        ("PyData Warszawa 12-14 November - Call for proposals.", "Warszawa"),  # days of a month, no score
        ("Train Paris – Lyon 10:45, platform 3.", "Lyon"),  # a clock, no score
        ("Le Havre est une ville portuaire.", "Le Havre"),  # the article is the city's own
        ("La Paz está a 3.600 metros.", "La Paz"),
        ("O Porto é a segunda cidade do país.", "Porto"),  # Portuguese gives some of its own cities an "o"
        ("As Madrid grows, rents rise.", "Madrid"),  # "As" opens the sentence: no club's "AS"
        ("Der Flughafen Kokstad ist gesperrt.", "Kokstad"),  # a German noun between the article and the city
    ],
)
def test_a_place_outside_a_club_stays(analyzer: PiiAnalyzer, text: str, place: str) -> None:
    assert place in _names(analyzer, text)


def test_a_person_after_a_fixture_stays(analyzer: PiiAnalyzer) -> None:
    # the NER runs the away team into the next sentence's person: the person is kept
    text = "Ligue 1 : Bayern München 2-1 Benfica Agnès Lecomte est né à Lyon."
    assert any("Agnès Lecomte" in name for name in _names(analyzer, text))
    assert "München" not in _names(analyzer, text)
