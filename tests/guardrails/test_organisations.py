"""organisations: a place or a name inside an organisation's name that opens with an institution noun ("Banco de
Portugal", "Bank of America", "Hospital Santa Maria", "Crédit Agricole", "Air France") is the organisation's; a
place or a person the noun does not name stays one."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.organisations import names_an_organisation


def _finding(text: str, span: str, kind: str) -> Finding:
    start = text.index(span)
    return Finding(kind, start, start + len(span), 0.85, "SpacyRecognizer")


@pytest.mark.parametrize(
    ("text", "span", "kind"),
    [
        ("Banco de Portugal anuncia lucros recorde.", "Portugal", "LOCATION"),  # noun, particle, place
        ("Banca di Roma chiude il bilancio in utile.", "Roma", "LOCATION"),
        ("Bank of America posted record profits.", "America", "LOCATION"),
        ("Sie studiert an der Universität Wien.", "Wien", "LOCATION"),  # noun, then the place
        ("Elle travaille à l'Université d'Orléans.", "Orléans", "LOCATION"),  # an elided particle
        ("Air France schrapt banen.", "France", "LOCATION"),  # an airline
        ("Banco de Portugal ogłasza wyniki.", "Banco de Portugal", "PERSON"),  # the whole name read as a person
        ("Le Crédit Agricole et la Société Générale ont relevé leurs taux.", "Crédit Agricole", "PERSON"),
        ("Le Crédit Agricole et la Société Générale ont relevé leurs taux.", "Société Générale", "PERSON"),
        ("Air Jordan is sponsoring the charity run.", "Air Jordan", "PERSON"),  # a large place after the noun
        ("Ela foi operada no Hospital Santa Maria.", "Santa Maria", "PERSON"),  # a saint's name after the noun
        ("Estudió en la Universidad de Sevilla.", "Universidad", "LOCATION"),  # the noun read alone
    ],
)
def test_an_organisations_words_are_no_name(text: str, span: str, kind: str) -> None:
    assert names_an_organisation(text, _finding(text, span, kind))


@pytest.mark.parametrize(
    ("text", "span", "kind"),
    [
        ("Ich habe im Krankenhaus Anna Weber getroffen.", "Anna Weber", "PERSON"),  # German capitalises nouns
        ("Ich habe im Krankenhaus Anna Weber getroffen.", "Krankenhaus Anna", "PERSON"),  # a given name follows
        ("Das Museum von Anna Weber ist offen.", "Anna Weber", "PERSON"),  # a person's possessive
        ("Agnès Lecomte est né à University Heights en 1952.", "University Heights", "LOCATION"),  # a town so named
        ("Il quitte Hôpital Saint-Louis pour Heusden.", "Saint-Louis", "LOCATION"),
        ("Il quitte Hôpital Saint-Louis pour Heusden.", "Hôpital Saint-Louis", "LOCATION"),
        ("The bank of Lisbon called.", "Lisbon", "LOCATION"),  # a common noun in lower case opens no name
        ("Bank, Lisbon branch: closed.", "Lisbon", "LOCATION"),  # punctuation between
        ("Sie arbeitet im Krankenhaus in Hamburg.", "Hamburg", "LOCATION"),  # a preposition, no particle
        ("Air quality in Madrid is poor.", "Madrid", "LOCATION"),
    ],
)
def test_a_name_the_noun_does_not_open_stays(text: str, span: str, kind: str) -> None:
    assert not names_an_organisation(text, _finding(text, span, kind))


def _names(analyzer: PiiAnalyzer, text: str) -> set[str]:
    found = analyzer.analyze_many([text], ner_enabled=True)[0]
    return {text[f.start : f.end] for f in found if f.entity_type in ("PERSON", "LOCATION") and f.score >= 0.5}


def test_the_analyzer_drops_an_organisations_place(analyzer: PiiAnalyzer) -> None:
    assert _names(analyzer, "Banco de Portugal anuncia lucros recorde.") == set()
    assert _names(analyzer, "Air France posted record profits this quarter.") == set()


def test_the_analyzer_keeps_a_place_beside_an_organisation(analyzer: PiiAnalyzer) -> None:
    assert "Málaga" in _names(analyzer, "Estudió en la Universidad de Sevilla y vive en Málaga.")
