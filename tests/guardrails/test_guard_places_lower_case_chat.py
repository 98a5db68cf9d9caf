"""Places in chat typed all in lower case with no location word (``PlaceRecognizer._uncued_lower_case``): a name no
ordinary word spells counts; a country that is a common noun, a first name, an English word or another language's
word does not, nor does a lower-case word found only without its diacritics after a preposition any noun takes."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [("honestly poland was amazing lol", "poland"),  # a country WordNet lists, with no plural in the vocabulary
     ("ok cool\nthe new mexico pics are up", "new mexico"),  # a US state of two words
     ("so costa rica next year?", "costa rica"),
     ("wait, gliwice?", "gliwice"),  # a city's word no English word list holds
     ("nowy sącz was lovely tbh", "nowy sącz"),
     ("voronezh was sooo much better tbh", "voronezh")],  # a city the NER's vocabulary holds, no frequent word
)  # fmt: skip
def test_a_place_no_ordinary_word_spells_counts_in_a_lower_case_line(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["turkey again for dinner lol",  # a common noun too ("turkeys")
     "chad said ok", "jordan is out today",  # first names
     "nice one lol", "reading it now",  # English words
     "genes run deep lol",  # a city's alternate name of 500,000+ that is a frequent English word
     "alles klar, bis später",  # a German word in a German line
     "Honestly poland was amazing",  # a capitalised line: lower case is no chat there
     "je suis en réunion"],  # Réunion only without its accent, after "en", a preposition any noun takes
)  # fmt: skip
def test_a_lower_case_word_that_may_be_another_word_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("<op> ok nebraska then", "nebraska"),  # a first name of some country's records, no common English given name
     ("k montenegro", "montenegro"), ("ok cool\nethiopia maybe", "ethiopia"),
     ("yeah matanzas lol", "matanzas"), ("hmm orkney??", "orkney"),  # chat's own words around read as English
     ("wait osnabruck?", "osnabruck"), ("veszprem lol", "veszprem"),  # typed without the diacritics
     ("cabinda / 3 nights / 2 ppl", "cabinda"),  # a large city that is a surname: chat calls people by first name
     ("missed my connection thru georgia ugh", "georgia")],  # "thru", chat's "through", is a location word
)  # fmt: skip
def test_chat_places_named_like_rare_names_or_typed_plain_count(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["k jordan", "ok georgia then",  # common given names where English is written
     "broke mom's good china", "mom's china is in the box",  # the common noun, after an adjective or a possessive
     "name on the booking is tomás medina",  # a surname after a first name
     "k garcia"],  # a surname spelled like a city without its accent (García)
)  # fmt: skip
def test_chat_words_that_are_names_or_nouns_stay_no_place(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "places"),
    [("ya llegué a pingjin", ["pingjin"]),  # Spanish "a" (to) in a line that reads as no English
     ("me voy a vasco da gama mañana", ["vasco da gama"]),
     ("i got a turkey lol", [])],  # the English article
)  # fmt: skip
def test_romance_a_is_a_location_word_in_lower_case_only_where_the_line_is_no_english(
    find_places: Callable[[str], list[str]], text: str, places: list[str]
) -> None:
    assert find_places(text) == places


@pytest.mark.parametrize(
    ("text", "place"),
    [("ik: ok ze komt zaterdag terug uit polen", "polen"),  # Dutch "uit": a country that is a frequent Dutch word
     ("opa is verhuisd naar gelderland en wil dat we komen", "gelderland"),  # Dutch "naar", a province
     ("dziadek się przeprowadził, województwo łódzkie", "łódzkie"),  # Polish "województwo"
     ("el abuelo se mudó a sinaloa y ahora quiere que vayamos", "sinaloa"),  # a state, under a town's size
     ("di dove sei?\nmilano\ne tu?\ncroazia ma vivo a vignola", "croazia"),  # the answer to the question above
     ("skąd jesteś?\nbangladesz, ale teraz mieszkam tutaj", "bangladesz")],
)  # fmt: skip
def test_a_lower_case_country_or_region_after_a_chat_languages_location_word_or_answering_counts(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)


@pytest.mark.parametrize(
    "text",
    ["wat eten we?\nturkey, maar dan anders",  # an English word, answering
     "ik ga naar huis",  # no place after the location word
     "wie komt er?\nik weet het niet",  # no place
     "ok?\nniet binnen"],
)  # fmt: skip
def test_a_lower_case_word_after_those_words_that_is_an_ordinary_word_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("vou pra austrália mês que vem", "austrália"),  # a country as Portuguese spells it, English's but for accents
     ("gaan we naar zaventem?", "zaventem"),  # a town after Dutch "naar"
     ("vamos pra chingola amanhã", "chingola"),  # after Portuguese "pra"
     ("mieszkam w mieście będzin", "będzin"),  # after Polish "mieście" (in the city)
     ("de onde você é?\nvolta redonda\ne você?", "volta redonda"),  # answering where, a Portuguese stop word in it
     ("pak kret was amazing\nwhere r u\nshibuya\nlol", "shibuya")],  # "where" opening the line above, no "?"
)  # fmt: skip
def test_a_lower_case_town_after_a_chat_languages_location_word_or_answering_where_counts(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)


def test_a_lower_case_town_after_a_place_and_a_conjunction_counts(find_places: Callable[[str], list[str]]) -> None:
    assert find_places("gaan we naar zaventem of aalter? duur") == ["zaventem", "aalter"]
    assert find_places("fahren wir nach tepexpan oder dinapur nizamat?") == ["tepexpan", "dinapur nizamat"]


@pytest.mark.parametrize(
    "text",
    ["vamos pra casa amanhã",  # a frequent Portuguese word after "pra"
     "where are you?\njackson",  # a common given name
     "who is it?\nvolta redonda",  # the line above asks no where
     "where are you?\nhome",  # an English word
     "eten we stamppot in juli?"],  # a Dutch month after "in"
)  # fmt: skip
def test_a_lower_case_word_a_chat_languages_word_points_at_that_is_no_plain_town_name_is_no_place(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


def test_a_frequent_english_word_after_a_place_and_a_conjunction_is_no_place(
    find_places: Callable[[str], list[str]],
) -> None:
    assert find_places("moving to london of course") == ["london"]
