"""A town whose name is a stop word of some language, in lower case after a location word: the place where the
location word is a stop word of other languages alone ("to bari": English "to", Turkish "bari"), that word where
they share a language ("in vara": Swedish both) or where it is a frequent English word after an English one ("at
sale"); and the snapshot's languages are spaCy's."""

from collections.abc import Callable

import pytest

from gateway.guardrails.place_stop_words import every_stop_word, place_stop_words, stop_word_languages


@pytest.mark.parametrize(
    ("text", "place"),
    [("she relocated to bari in the spring.", "bari"),  # Turkish "bari" (at least) after English "to"
     ("our new office is in bari.", "bari"),
     ("moving to como next month", "como"),  # Spanish and Portuguese "como" after English "to"
     ("trasferito in como", "como")],  # after Italian "in"
)  # fmt: skip
def test_a_stop_word_of_other_languages_than_the_location_words_is_the_place(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    ("text", "word"),
    [("ich war in vara letzte woche", "vara"),  # "in" and "vara": both Swedish stop words
     ("tengo una casa en como", "como"),  # Spanish "en" and "como"
     ("see you at sale time", "sale"),  # a Romanian stop word, a frequent English word after English "at"
     ("bugün bari erken gel", "bari"),  # no location word before it
     ("she relocated bari", "bari")],  # a location word of no language's stop words
)  # fmt: skip
def test_a_stop_word_the_location_word_may_stand_before_stays_a_word(
    find_places: Callable[[str], list[str]], text: str, word: str
) -> None:
    assert word not in find_places(text)


def test_the_snapshot_languages_are_spacys() -> None:
    pytest.importorskip("spacy")
    spacy_languages = every_stop_word()
    assert place_stop_words() <= stop_word_languages().keys()
    assert {word: set(codes) for word, codes in stop_word_languages().items()} == {
        word: spacy_languages[word] for word in stop_word_languages()
    }
