"""LOCATION: a place name that names a thing (a disease, a breed, an institution, a treaty, a club), every ISO 3166-2
subdivision and Irish country names, places in capitals of any Latin letters, the locative words of chat's other
languages and the stop words of every language in lower case."""

from collections.abc import Callable

import pytest

from gateway.guardrails.country_names import country_names
from gateway.guardrails.places import names_a_thing
from gateway.guardrails.region_names import region_names


@pytest.mark.parametrize(
    "text",
    ["her dog is a Boston terrier",
     "the Hong Kong flu of 1968 killed a million",
     "tested for exposure to Lyme disease",
     "signed under the Vienna Convention on treaties",
     "watching Leeds United tonight",
     "ordered from the Osaka Bank portal",
     "the Tallinn Manual chapter on cyber operations",
     "tickets for Real Madrid against Inter Milan",
     "RM MEAL HONG KONG FLU",
     "export MENU_ITEM='Toledo steel'",  # a material, after a key of no place
     "product: Chicago steak",  # a dish
     "Singapore Slingが好きです",  # a drink, a particle glued on
     "she wore a Panama hat",  # a garment
     "record['product'] = 'Yalta Pact'",  # a treaty
     "studied the Vienna School of economics",  # a school of thought
     "rendeltem Kyoto porcelain tételt",  # a material, in Hungarian chat
     "nimeagiza Havana brown cat",  # a colour named after the place: a breed's, a pigment's
     'dish="Havana brown cat"',
     "mixed some Paris green paint",
     "FTX+AAI+++like the Zanzibar pizza'\nFTX+AAI+++lunch was Ohrid trout'"],  # an EDIFACT segment's "'" after it
)  # fmt: skip
def test_a_place_that_names_a_thing_is_no_location(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("our Boston office moved", "Boston"),
     ("she lives in Leeds now", "Leeds"),
     ("Vienna traffic was bad this morning", "Vienna"),
     ("Bank details: we opened an account in Osaka", "Osaka"),
     ("moved to Hamburg last week", "Hamburg"),
     ("in Havana brown sugar is cheap", "Havana"),  # a location word before the place
     ("the Zanzibar pizza's crust", "Zanzibar")],  # a possessive: "pizza's" is no head written alone
)  # fmt: skip
def test_a_place_before_other_nouns_stays_a_place(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)


def test_the_thing_rule_reads_the_word_after_and_the_club_word_before() -> None:
    text = "Real Madrid and Boston Bank: BB-1"
    assert names_a_thing(text, 5, 11)  # "Real" before
    assert not names_a_thing(text, 16, 22)  # "Bank:" is a field's label


def test_a_surname_place_after_a_name_word_is_no_location(find_places: Callable[[str], list[str]]) -> None:
    assert find_places("we benchmarked the Cartier Santos watch") == []
    assert find_places("the ship sailed to Santos") == ["Santos"]


@pytest.mark.parametrize(
    ("text", "place"),
    [("the clinic is in Kuldīgas novads", "Kuldīgas novads"),  # a Latvian municipality
     ("governed by the courts of Rõuge", "Rõuge"),  # an Estonian rural municipality
     ("she grew up in Saint Thomas parish", "Saint Thomas")],  # a Jamaican parish
)  # fmt: skip
def test_every_subdivision_is_a_place(find_places: Callable[[str], list[str]], text: str, place: str) -> None:
    assert place in find_places(text)


def test_the_region_snapshot_holds_lower_levels_but_not_their_words() -> None:
    names = set(region_names())
    assert {"Kuldīgas novads", "Rõuge", "Saint Thomas", "Iloilo", "Wicklow"} <= names
    assert not {"Store", "Antique", "Most"} & names  # a Slovenian municipality, a Philippine province, a Czech town


def test_irish_country_names_keep_their_article() -> None:
    names = set(country_names())
    assert {"An Fhrainc", "An tSualainn", "An Ghearmáin"} <= names
    assert "An India" not in names  # English's article before India


@pytest.mark.parametrize(
    ("text", "place"),
    [("ORIGIN: BRAȘOV", "BRAȘOV"),
     ("RM HOME CITY ŠIAULIAI", "ŠIAULIAI"),
     ("DEST: ŁÓDŹ", "ŁÓDŹ"),
     ("RM HOME CITY SAINT THOMAS", "SAINT THOMAS"),
     ("BRANCH: GALWAY\nTOTAL 12.00", "GALWAY")],
)  # fmt: skip
def test_places_in_capitals_of_any_latin_letters_and_after_a_place_label(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    ("text", "place"),
    [("[10:02] ana: nasa cebu pa ako ngayon", "cebu"),
     ("[10:02] ana: uuwi kami sa davao sa lunes", "davao"),
     ("[10:02] juma: niko kisumu leo", "kisumu")],
)  # fmt: skip
def test_a_lower_case_place_after_a_tagalog_or_swahili_locative(find_places: Callable[[str], list[str]], text: str,
                                                               place: str) -> None:  # fmt: skip
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["[10:02] ana: ilagay mo sa bahay", "[10:02] ana: nasa meeting pa ako", "[10:02] juma: niko sawa, asante",
     "[10:02] ion: ne mutam la Cluj in vara"],  # "vara": a stop word of Swedish, Romanian "summer"
)  # fmt: skip
def test_lower_case_words_after_those_locatives_or_stop_words_are_no_places(find_places: Callable[[str], list[str]],
                                                                          text: str) -> None:  # fmt: skip
    assert [place for place in find_places(text) if place.islower()] == []


@pytest.mark.parametrize(
    "text",
    ["Vestido cor-de-rosa e casaco Bordeaux, tamanho 38.",  # a colour after the garment it colours (Faker fr_FR)
     "Je cherche une veste Bordeaux pour samedi."],
)  # fmt: skip
def test_a_colour_after_the_noun_it_colours_is_no_place(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("We visited Bordeaux last May.", "Bordeaux"),  # a location word before it
     ("Lyon et Bordeaux sont loin.", "Bordeaux"),  # after a stop word
     ("I love Siena in spring.", "Siena"),  # after an English verb
     ("Vestido cor-de-rosa, casaco e Bordeaux.", "Bordeaux")],
)  # fmt: skip
def test_a_place_named_like_a_colour_stays_a_place_elsewhere(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)


@pytest.mark.parametrize(
    ("text", "places"),
    [("Filialen: Frankfurt (Oder), Wien, Landshut", ["Frankfurt (Oder)", "Wien", "Landshut"]),
     ("Er wohnt in Halle (Saale) seit 2010.", ["Halle (Saale)"]),  # the river is part of the official name
     ("I live in Paris (France) now.", ["Paris", "France"]),  # a country after it: no name the gazetteer holds
     ("Er wohnt in Halle (Saale", ["Halle"])],  # no closing parenthesis
)  # fmt: skip
def test_a_city_with_its_river_in_parentheses_is_one_place(
    find_places: Callable[[str], list[str]], text: str, places: list[str]
) -> None:
    assert find_places(text) == places
