"""Two readings of a sentence confirm a name no list holds; places that only a place can be open a sentence.

Where both NER models read a window (French, Spanish and German ones; English ones too with ``SECOND_READING =
"all"``) and call the same two or more words a person, no names-dataset entry is needed (``people.confirmed``).
The gazetteer takes a one-word place opening a sentence when the word is no English word, stop word or known name,
and leaves a surname after a known first name to the person rules (``places``)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.ner import SECOND_READING, NerModel
from gateway.guardrails.people import confirmed
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import PlaceRecognizer


def _span(text: str, value: str) -> Finding:
    start = text.index(value)
    return Finding("PERSON", start, start + len(value), 0.85, "spacy_ner")


def test_both_models_calling_two_unknown_words_a_person_confirm_them():
    text = "Sittikorn Wannapaitoonsri missed the flight today."
    name = "Sittikorn Wannapaitoonsri"
    assert not any(known_names().is_name(word) for word in name.split())
    assert not confirmed(text, _span(text, name))
    assert confirmed(text, _span(text, name), agreed=True)


@pytest.mark.parametrize(
    ("text", "value"), [("Bis Morgen, das Team.", "Morgen"), ("Die Rechnung kam.", "Die Rechnung")]
)
def test_agreement_never_confirms_one_word_or_a_stop_word(text, value):
    assert not confirmed(text, _span(text, value), agreed=True)


def test_a_hyphenated_surname_is_known_by_its_parts():
    text = "Please call Ms Holst-Hansen back."
    assert confirmed(text, _span(text, "Holst-Hansen"))


@pytest.mark.parametrize(
    ("text", "reading"),
    [("Sittikorn Wannapaitoonsri hat den Flug verpasst, sagt die Assistentin.", SECOND_READING),
     ("Sittikorn Wannapaitoonsri missed the flight today.", "all")],
)  # fmt: skip
def test_the_analyzer_finds_a_name_only_the_two_readings_confirm(analyzer, text, reading):
    pii = analyzer if reading == SECOND_READING else PiiAnalyzer(ner=NerModel(second_reading=reading))
    people = [text[f.start : f.end] for f in pii.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert "Sittikorn Wannapaitoonsri" in people


def test_the_second_reading_is_one_of_three_choices():
    with pytest.raises(ValueError, match="second_reading"):
        NerModel(second_reading="sometimes")


@pytest.fixture(scope="module")
def places() -> PlaceRecognizer:
    return PlaceRecognizer()


def _places(recognizer: PlaceRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in recognizer.analyze(text, ["LOCATION"]) if r.score >= 0.5]


@pytest.mark.parametrize("text", ["Konin bleibt unser größter Markt.", "Jihlava reported a power cut."])
def test_a_rare_word_opening_a_sentence_is_a_place(places, text):
    assert _places(places, text) == [text.split()[0]]


@pytest.mark.parametrize("text", ["Marion bleibt im Büro.", "Please book a room for Calixta Rojas today.",
                                  "Anna K. Medina signed the lease."])  # fmt: skip
def test_names_are_not_taken_for_places(places, text):
    assert _places(places, text) == []


def test_a_surname_place_after_a_location_word_is_still_a_place(places):
    assert _places(places, "We flew to Medina yesterday.") == ["Medina"]


