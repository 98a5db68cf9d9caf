"""Lower-case places after a location word that are English nouns the NER's vocabulary holds (WordNet lists
"Abilene", "Bordeaux", "Boise"): they count when they are rare as English words (``frequent_words``), and not when
they are frequent ones ("reading", "nice", "mobile") nor a person's name after a word people stand after too."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [("moving to abilene next week", "abilene"),
     ("we live in bordeaux now", "bordeaux"),
     ("moved to boise last year", "boise"),
     ("back in salem lol", "salem"),
     ("we live in eugene", "eugene")],  # a first name too, after "in": no person stands there
)  # fmt: skip
def test_a_lower_case_noun_rare_as_a_word_is_a_place_after_a_location_word(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["moving to reading now",  # frequent English words
     "heading to nice stuff",
     "going to mobile tomorrow",
     "talked to eugene yesterday",  # a first name after "to"
     "reach me at dana tomorrow",  # or after "at"
     "filiz vllt der hammer liegt im keller"],  # German "in the basement": a frequent German word
)  # fmt: skip
def test_a_frequent_word_or_a_name_after_to_is_no_place(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []
