"""LOCATION written in capitals, as labels and tickets print places: read title-cased, with guards."""

import pytest

from gateway.guardrails.places import PlaceRecognizer


@pytest.fixture(scope="module")
def recognizer() -> PlaceRecognizer:
    return PlaceRecognizer()


def places(recognizer: PlaceRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in recognizer.analyze(text, ["LOCATION"])]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("CONSIGNEE CITY: POGGIBONSI\nWEIGHT: 2 KG", "POGGIBONSI"),
        ("DEPARTURE FROM JIHLAVA AT 06:10", "JIHLAVA"),
    ],
)
def test_a_place_in_capitals_is_found(recognizer: PlaceRecognizer, text: str, place: str) -> None:
    assert places(recognizer, text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "PLEASE WRITE IN BLOCK CAPITALS",  # ordinary words
        "FARE: SUPER SAVER RETURN",
        "PASSENGER CONTACT: FLORENCE",  # a town, and a first name: left to the name rules
        "STATE: NY, COUNTRY CODE: DE",  # codes
    ],
)
def test_capitals_that_are_words_names_or_codes_are_no_places(recognizer: PlaceRecognizer, text: str) -> None:
    assert places(recognizer, text) == []


def test_capitals_keep_the_rules_of_title_case(recognizer: PlaceRecognizer) -> None:
    # The same text title-cased finds the same place: the capitals are read by the gazetteer's own rules.
    assert places(recognizer, "Consignee City: Poggibonsi") == ["Poggibonsi"]
