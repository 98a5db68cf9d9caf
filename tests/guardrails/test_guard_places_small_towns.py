"""Towns of a few thousand people, found only where a cue points at them, and place names wrapped across a line."""

import pytest

from gateway.guardrails.places import CITY_MIN_POPULATION, PlaceRecognizer, cued_towns, gazetteer


@pytest.fixture(scope="module")
def places() -> PlaceRecognizer:
    return PlaceRecognizer()


def found(places: PlaceRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in places.analyze(text, []) if r.score >= 0.5]


def test_the_small_towns_are_apart_from_the_gazetteer() -> None:
    towns = cued_towns()
    assert "modlniczka" in towns and "budzów" in towns
    assert all(population < CITY_MIN_POPULATION for population in towns.values())
    assert not towns.keys() & gazetteer().keys()


@pytest.mark.parametrize(
    ("text", "place"),
    [("[17:44] customer: im in budzów if that matters", "budzów"),
     ("Currently working remotely from Modlniczka.", "Modlniczka"),
     ("The hearing will take place in Ringgold. The form lists it.", "Ringgold"),
     ("Branch:\nModlniczka\n", "Modlniczka")],  # alone on its line
)
def test_a_small_town_after_a_cue_is_a_place(places: PlaceRecognizer, text: str, place: str) -> None:
    assert found(places, text) == [place]


@pytest.mark.parametrize(
    "text",
    ["the Modlniczka report is late",  # capitalised mid-sentence, no cue
     "I met Ringgold yesterday.",
     "we moved to production in may"],
)
def test_a_small_town_without_a_cue_is_none(places: PlaceRecognizer, text: str) -> None:
    assert found(places, text) == []


def test_a_name_wrapped_across_a_line_is_one_place(places: PlaceRecognizer) -> None:
    assert found(places, "Our field engineer is based near Saunders\nCounty.") == ["Saunders\nCounty"]


def test_a_blank_line_ends_a_name(places: PlaceRecognizer) -> None:
    assert "Saunders\n\nCounty" not in found(places, "based near Saunders\n\nCounty")


@pytest.mark.parametrize(
    "text",
    ["Hay lanzadera desde la estación de Cuyapo.",  # an article and a noun in lower case
     "Kind regards,\nSara\n",  # a first name alone on its line: a signature
     "a note from Sara about the invoice"],  # a person cue before a town named like a person
)
def test_a_small_town_spelled_like_words_or_people_needs_more(places: PlaceRecognizer, text: str) -> None:
    assert not {"la estación", "Sara"} & set(found(places, text))
