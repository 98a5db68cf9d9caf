"""LOCATION in more languages and record shapes: country names as any Latin-script language writes them (short and
official), countries and exemplar cities as CLDR writes them in the languages read most, Nguni place names with their
lower-case prefix, and a place as a record property's value."""

from collections.abc import Callable

import pytest

from gateway.guardrails.country_names import (
    cldr_cities,
    cldr_named_like_people,
    cldr_territories,
    country_names,
    country_names_like_people,
)
from gateway.guardrails.places import PlaceRecognizer


@pytest.fixture(scope="module")
def places() -> PlaceRecognizer:
    return PlaceRecognizer()


def found(places: PlaceRecognizer, text: str) -> list[str]:
    return [text[r.start : r.end] for r in places.analyze(text, []) if r.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Paket je zaseknutý v Maďarsko.", "Maďarsko"),  # Slovak
        ("vi flytter til Vestsahara i maj", "Vestsahara"),  # Danish
        ("pindah ke Makedonia Utara bulan depan", "Makedonia Utara"),  # Indonesian, two words
        ("Rođena je u Hrvatska, kaže", "Hrvatska"),  # Croatian
        ("1988;Németország;2959,67", "Németország"),  # Hungarian, a CSV cell
        ("Kotimaa: Indická republika", "Indická republika"),  # an official name, its second word in lower case
        ("the parcel is stuck in Honduraská republika. order id", "Honduraská republika"),
        ("caller: im calling from mesir", "mesir"),  # lower case, after a cue
        ("caller: we moved from lichtenštajnské kniežatstvo last year", "lichtenštajnské kniežatstvo"),
    ],
)
def test_country_names_in_other_languages(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Samoa Americana y Islas Malvinas firmaron un acuerdo comercial.", "Islas Malvinas"),  # es territory
        ("As vendas em Ilhas Virgens Americanas subiram 11%.", "Ilhas Virgens Americanas"),  # pt territory
        ("Eksport do Rosja spadł o 4%.", "Rosja"),  # pl: ISO's catalogue writes "Federacja Rosyjska"
        ("O voo para Madri atrasou.", "Madri"),  # pt exemplar city, as large as Madrid
        ("Die Messe findet in Rom statt.", "Rom"),  # de exemplar city that is an English word: after a cue
    ],
)
def test_cldr_country_and_city_names(places: PlaceRecognizer, text: str, place: str) -> None:
    assert place in found(places, text)


def test_cldr_names_leave_out_what_names_no_place() -> None:
    names = {*cldr_territories(), *cldr_cities(), *cldr_named_like_people()}
    assert "Islas Malvinas" in names and cldr_cities()["Madri"] == "Madrid"
    assert not names & {"Unknown Region", "Unbekannt", "European Union", "Pseudo-Accents", "Knox, Indiana"}
    assert "Reunión" not in names  # spelled as English spells it but for its accents
    assert "Rom" in cldr_named_like_people() and "Dominika" in cldr_named_like_people()


@pytest.mark.parametrize(
    "text",
    [
        "Réunion reportée après août.",  # French for a meeting: "Reunion" without accents is the gazetteer's
        "Feliz Navidad a todos.",  # Christmas Island's Spanish name: its zone's city no gazetteer place
        "Rom ist ein Datenträger.",  # an English word: only after a location word
    ],
)
def test_cldr_names_that_are_words_need_a_cue(places: PlaceRecognizer, text: str) -> None:
    assert found(places, text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Pain is temporary, they said.",  # a one-word country name of some catalogue that is an English word
        "Greek yogurt is on the list.",
        "Chip the old paint off first.",
        "Ende der Durchsage.",  # a German stop word
        "An India-based team wrote it.",  # the article is no part of the name
    ],
)
def test_other_languages_country_names_that_are_words_are_left_alone(places: PlaceRecognizer, text: str) -> None:
    words = {"Pain", "Greek", "Chip", "Ende"}
    assert not any(place in words or place.startswith("An ") for place in found(places, text))


def test_country_names_of_other_languages_named_like_people_need_a_location_word(places: PlaceRecognizer) -> None:
    assert "Dania" in country_names_like_people()
    assert "Dania" not in country_names()
    assert found(places, "Dania said she would call back.") == []
    assert found(places, "I visited Dania last year.") == ["Dania"]


def test_country_names_of_other_languages_that_are_some_languages_stop_words_open_no_sentence(
    places: PlaceRecognizer,
) -> None:
    # Latin "quam" (than) and Romanian "cine" (who) name Guam and China in some catalogue.
    for name in ("Quam", "Cine"):
        assert name in country_names_like_people()
        assert name not in country_names()
    assert found(places, "Cumque architecto alias. Quam placeat autem velit quibusdam dolore.") == []
    assert found(places, "Llegó Pequeño haya. Cine nunca propio medios actividad vida.") == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("thanks all\nel equipo de louisiana lo ve\ncool cool", "louisiana"),
        ("el equipo de new york lo ve", "new york"),
        ("los datos de españa llegan mañana", "españa"),
    ],
)
def test_a_country_or_state_after_a_lower_case_genitive(places: PlaceRecognizer, text: str, place: str) -> None:
    assert found(places, text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "fecha de nacimiento: 12 de mayo",  # a noun, not a place
        "el proceso de la paz sigue",  # a capital's name opening with an article: the noun
        "casa de praia alugada",  # a capital (Praia) that is Portuguese for "beach"
        "pavo de turkey",  # an English noun with a plural
    ],
)
def test_a_lower_case_genitive_before_a_word_stays_a_word(places: PlaceRecognizer, text: str) -> None:
    assert found(places, text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("moving the team offsite to eThekwini in spring", "eThekwini"),
        ("<ns2:CityName>iKapa</ns2:CityName>", "iKapa"),
    ],
)
def test_place_names_with_a_lower_case_prefix(places: PlaceRecognizer, text: str, place: str) -> None:
    assert found(places, text) == [place]


def test_a_lower_case_prefix_on_no_place_is_no_place(places: PlaceRecognizer) -> None:
    assert found(places, "we sold it on eBay and bought an iPhone") == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("BEGIN:VCARD\nX-BIRTHPLACE:Pyrgos\nEND:VCARD", "Pyrgos"),
        ("BEGIN:VCARD\nX-HOMETOWN:Jvari\nEND:VCARD", "Jvari"),  # a village of 1,100: only with a cue
        ("objectClass: inetOrgPerson\nl: Arta\nuidNumber: 28339", "Arta"),  # LDIF's locality
        ("<ns2:BirthPlace>Florina</ns2:BirthPlace>", "Florina"),
        ('{"hometown": "Gali"}', "Gali"),
    ],
)
def test_a_place_as_a_record_propertys_value(places: PlaceRecognizer, text: str, place: str) -> None:
    assert found(places, text) == [place]


@pytest.mark.parametrize(
    "text",
    [
        "ethnicity: Arta",  # "city" inside a longer key
        "label: Arta",  # "l" inside a longer key
        "objectClass: inetOrgPerson\nl: Jvari-Test",
        "note l: Jvari",  # LDIF's "l" only opens a line
    ],
)
def test_no_place_property_no_cue(places: PlaceRecognizer, text: str) -> None:
    assert "Arta" not in found(places, text) and "Jvari" not in found(places, text)


def test_a_romanised_name_without_its_apostrophe_needs_a_cue(places: PlaceRecognizer) -> None:
    # geonames writes "Ts’khinvali"; the apostrophe (an aspirate) is as often left out.
    assert found(places, "she flew to Tskhinvali") == ["Tskhinvali"]
    assert found(places, "BEGIN:VCARD\nX-HOMETOWN:Tskhinvali\nEND:VCARD") == ["Tskhinvali"]
    assert found(places, "Tskhinvali is the word.") == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("geboren op dinsdag 18 januari 2005 te 's-Hertogenbosch, wonende aan de Faydreef 17", "'s-Hertogenbosch"),
     ("un siniestro en su vivienda de l'Alfàs del Pi. El perito llegó.", "l'Alfàs del Pi"),
     ("Nasceu em Colle di Val d'Elsa em 1990.", "Colle di Val d'Elsa"),
     ("Vivo en Sant Joan d'Alacant desde 2010.", "Sant Joan d'Alacant")],
)  # fmt: skip
def test_a_name_with_an_elided_article_is_read_whole(find_places: Callable[[str], list[str]], text: str,
                                                     place: str) -> None:  # fmt: skip
    """Dutch and Catalan write some places after an elided article ("'s-Hertogenbosch", "l'Alfàs del Pi"), Italian and
    Catalan some names' last word ("d'Elsa", "d'Alacant"): the gazetteer keys them, and the capital after the
    article makes the name one written capitalised."""
    assert place in find_places(text)


@pytest.mark.parametrize(
    ("text", "place"),
    [("Mogę odebrać w Ostroda w sobotę.", "Ostroda"),  # Polish "w", a town typed without its diacritics
     ("Anyone from Olomoucky kraj here?", "Olomoucky kraj"),  # a region's lower-case word, typed without diacritics
     ("Anyone from Dalarnas lan here?", "Dalarnas lan")],
)  # fmt: skip
def test_polish_location_letters_and_regions_typed_without_diacritics(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["coffee w Sugar and milk", "then we Split the bill", "anyone from olomoucky Kraj",
     "Podpisaliśmy umowę ramową z Marks & Spencer."],  # Polish "z" (with) is no cue
)  # fmt: skip
def test_english_w_and_we_and_a_region_cased_unlike_its_name_are_no_cue(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []
