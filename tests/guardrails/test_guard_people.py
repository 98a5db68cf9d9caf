"""PERSON with names-dataset's names: NER's people kept only when they hold a known name, and known first + last name
pairs that NER misses (foreign sentences, lower-case chat)."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.people import confirmed, name_pairs
from gateway.guardrails.person_names import known_names


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def test_the_snapshot_holds_names_of_many_countries_with_their_diacritics() -> None:
    names = known_names()
    assert len(names.first) > 50_000 and len(names.last) > 50_000
    assert names.is_first("Małgorzata") and names.is_last("Wójcik") and names.is_last("Jiménez")
    assert names.is_first("Oluwaseun") and names.is_last("Nguyen")
    assert not names.is_name("Verspätung") and not names.is_name("Utilisez")


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Bitte schick den Vertrag an Jürgen Weißmann bis Freitag.", "Jürgen Weißmann"),
        ("Envoyez le dossier à Amélie Fontaine avant midi.", "Amélie Fontaine"),
        ("Por favor, llama a Lucía Gutiérrez mañana.", "Lucía Gutiérrez"),
        ("The reviewer is Małgorzata K. Wójcik.", "Małgorzata K. Wójcik"),
        ("hey its tomasz nowak here can u reset my login", "tomasz nowak"),  # all lower case: chat
    ],
)
def test_known_first_and_last_names_are_people(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert person in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "Virez le montant sur le compte. Utilisez ce jeton.",  # French imperatives NER reads as names
        "Ahora actualiza el número de tarjeta.",  # Spanish words, one of them in names-dataset as a name
        "Der Flug hatte zwei Stunden Verspätung.",  # German nouns; "Der" is a stop word
        "Mit freundlichen Grüßen",  # a closing
    ],
)
def test_capitalised_words_that_are_no_names_are_not_people(analyzer: PiiAnalyzer, text: str) -> None:
    assert people(analyzer, text) == []


def test_a_pair_inside_another_finding_is_left_to_it() -> None:
    text = "Ship to 12 Walker Street, attention Tom Walker"
    taken = [Finding("STREET_ADDRESS", 8, 24, 0.7, "test")]
    pairs = [text[f.start : f.end] for f in name_pairs(text, frozenset(), taken)]
    assert pairs == ["Tom Walker"]


def test_lower_case_pairs_of_dictionary_words_are_no_people() -> None:
    text = "can you grant will access to the repo"
    assert name_pairs(text, frozenset({"grant", "will"}), []) == []
    assert confirmed("Ahora", Finding("PERSON", 0, 5, 0.85, "spacy_ner")) is False
