"""A models' place in a French, Spanish or German window that is a frequent word of that language and no place the
gazetteer holds is a noun or a sentence's first word, not a place (``ner._frequent_word_no_place``)."""

from __future__ import annotations

import pytest

from gateway.guardrails.ner import (
    NerModel,
    _frequent_word_no_place,
    _in_no_place_table,
    _unconfirmed_in_continental,
)


@pytest.fixture(scope="module")
def ner_model() -> NerModel:
    return NerModel()


def _span(text: str, word: str) -> tuple[int, int]:
    start = text.index(word)
    return start, start + len(word)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Er hat 85515267090 ins Feld für die Kennung geschrieben.", "Feld"),
        ("Das Hotel will 3007 837348 5572 als Sicherheit.", "Sicherheit"),
        ("Danke und Gruß,\nLuke", "Gruß"),  # casefolded "gruss", as wordfreq keeps it
        ("Das kostet 5,530.65 EUR im Monat.", "Monat"),
        ("Mañana vuelve a casa; dice que está muy cansado.", "Mañana"),
        ("Délai dépassé après 22h 50m, merci de livrer la commande.", "Délai"),
    ],
)
def test_a_frequent_word_of_the_windows_language_is_no_place(text, word):
    assert _frequent_word_no_place(text, *_span(text, word))


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Ich wohne in Essen, nicht in Berlin.", "Essen"),  # a frequent word the gazetteer holds as a city
        ("Wir fahren morgen nach Köln und dann weiter.", "Köln"),
        ("Am Montag fahre ich zum Kunden nach Karabağlar.", "Karabağlar"),  # no frequent word
        ("The Field office moved and the team is happy.", "Field"),  # an English window: not read here
        ("Er ist in der Nähe von Zug aufgewachsen.", "Zug"),  # 'der Zug' is the train; Zug, a town of its table
    ],
)
def test_a_place_a_table_holds_or_a_rare_word_stays(text, word):
    assert not _frequent_word_no_place(text, *_span(text, word))


def test_the_analyzer_drops_the_noun_and_keeps_the_town(analyzer):
    text = "Er hat 85515267090 ins Feld für die Kennung geschrieben. Ich wohne in Essen, nicht in Berlin."
    places = {text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "LOCATION"}
    assert "Feld" not in places
    assert {"Essen", "Berlin"} <= places


def test_a_label_and_its_particle_are_no_first_and_last_name():
    # The English model's person "Lieu de" in French: 'de' is a particle, no surname, so Warden's model decides.
    window = "----------- au téléphone. Lieu de naissance : Priština L'article 3327-2683-9649-6352 est de retour"
    start = window.index("Lieu")
    assert _unconfirmed_in_continental(window, start, start + len("Lieu de"), [(46, 64)])


def test_a_first_and_last_name_of_the_lists_stays_a_person_in_spanish():
    window = "Por favor, envía el borrador a Teresa Kohl antes de la reunión."
    start = window.index("Teresa")
    assert not _unconfirmed_in_continental(window, start, start + len("Teresa Kohl"), [])


def test_a_place_both_models_read_stays_a_place(ner_model):
    text = "Say hi to everyone in Berlin from me! Please pay the deposit today."
    assert ("Berlin", "LOCATION") in {(text[f.start : f.end], f.entity_type) for f in ner_model.find(text)}


@pytest.mark.parametrize("span", ["Москва", "Berlin", "Köln"])
def test_a_place_a_table_holds_is_in_one(span):
    assert not _in_no_place_table(span)


def test_a_name_no_table_holds():
    assert _in_no_place_table("Божимир")
