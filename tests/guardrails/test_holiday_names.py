"""holiday_names: a holiday's name ("Noël", "Fronleichnam", "Jour de Noël") is no person and no place, from the
``holidays`` package's names in every language it translates them to (a snapshot of them)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.holiday_names import build_snapshot, read_names


@pytest.fixture(scope="module")
def analyzer() -> PiiAnalyzer:
    return PiiAnalyzer()


def _names(analyzer: PiiAnalyzer, text: str) -> list[tuple[str, str]]:
    found = analyzer.analyze_many([text], ner_enabled=True)[0]
    return [(f.entity_type, text[f.start : f.end]) for f in found
            if f.entity_type in ("PERSON", "LOCATION") and f.score >= 0.5]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "holiday"),
    [
        ("Les Français dépensent en moyenne 300 € pour Noël.", "Noël"),
        ("Herr Nette weist darauf hin, dass das Büro an Fronleichnam geschlossen bleibt.", "Fronleichnam"),
        ("Théophile, ton congé du 12 au 16 est validé. Bonne Toussaint !", "Toussaint"),
        ("Le Jour de Noël est férié dans toute l'entreprise.", "Noël"),
        ("Washington's Birthday is a federal holiday, so the office is closed.", "Washington"),
        ("facciamo la carbonara a agosto? buon natale a tutti", "natale"),  # "buon": a first name, no given name
        ("Feliz Navidad a todos!", "Navidad"),
    ],
)
def test_a_holiday_is_no_name(analyzer: PiiAnalyzer, text: str, holiday: str) -> None:
    assert not any(holiday in value for _, value in _names(analyzer, text))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Mme Toussaint a appelé ce matin.", "Toussaint"),  # a title: the surname
        ("Allen Toussaint played the piano.", "Allen Toussaint"),  # a first name before it
        ("Marie Noël a écrit ce poème.", "Marie Noël"),
        ("Moin Silvester, kommst du heute?", "Moin Silvester"),  # a greeting before it ("Silvester": New Year's Eve)
        ("Ela mora em Natal desde 2019.", "Natal"),  # Christmas in Portuguese, and a city of 900,000
        ("Luogo di nascita: Sesto San Giovanni\nRecapito: 312 333 6288", "Sesto San Giovanni"),  # a saint's town
        ("La alcaldesa de Sant Joan d'Alacant anunció un plan.", "Sant Joan d'Alacant"),
    ],
)
def test_a_name_that_is_a_holiday_stays_a_name(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert any(value == name for _, value in _names(analyzer, text))


def test_snapshot_holds_the_holidays_of_european_languages() -> None:
    names = set(read_names())
    assert {"Noël", "Fronleichnam", "Toussaint", "Pfingsten", "Tag der Deutschen Einheit", "Boże Narodzenie"} <= names
    assert not any(name.endswith(("(observed)", "(observé)", "(estimé)", "(estimated)")) for name in names)


def test_snapshot_equals_the_package() -> None:
    pytest.importorskip("holidays")
    assert build_snapshot()["names"] == read_names()
