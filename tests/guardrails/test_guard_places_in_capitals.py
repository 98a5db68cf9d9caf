"""LOCATION written in capitals, as labels and tickets print places: read title-cased, with guards."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("CONSIGNEE CITY: POGGIBONSI\nWEIGHT: 2 KG", "POGGIBONSI"),
        ("DEPARTURE FROM JIHLAVA AT 06:10", "JIHLAVA"),
    ],
)
def test_a_place_in_capitals_is_found(find_places: Callable[[str], list[str]], text: str, place: str) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "PLEASE WRITE IN BLOCK CAPITALS",  # ordinary words
        "FARE: SUPER SAVER RETURN",
        "PASSENGER CONTACT: FLORENCE",  # a town, and a first name: left to the name rules
        "STATE: NY, COUNTRY CODE: DE",  # codes
    ],
)
def test_capitals_that_are_words_names_or_codes_are_no_places(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


def test_capitals_keep_the_rules_of_title_case(find_places: Callable[[str], list[str]]) -> None:
    # The same text title-cased finds the same place: the capitals are read by the gazetteer's own rules.
    assert find_places("Consignee City: Poggibonsi") == ["Poggibonsi"]
