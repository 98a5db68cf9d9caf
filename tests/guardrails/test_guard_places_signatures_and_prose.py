"""Places in e-mail signatures and address lines (a postal code, a vCard's locality, a register footer's "Registered
office:") and the words there and in other languages' prose that the gazetteer spells but name no place: a given name
signing a message, a German noun after its article, a stop word opening another language's sentence, an article and
a noun after a preposition any noun takes."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [("Human Resources\n272 Young Neck · 87262 Ayr\nwww.lumen.co.uk", "Ayr"),  # a postal code before the town
     ("Direct line: +1 506-239-7627\n780 Nolan Vista · S3 0UY Verdun", "Verdun"),  # a UK postcode
     ("Milanlaan 9, 1471 HU Koersel", "Koersel"),  # a Dutch one
     ("Rotonda Canil, 7, 21051 Roseto degli Abruzzi", "Roseto degli Abruzzi"),  # Italian "degli" inside the name
     ("ADR;TYPE=work:;;1 Rebecca Brook;Cocoa;;B99 5DY;", "Cocoa"),  # a vCard address's locality
     ("Keystone plc · Registered office: Liverpool · Directors: A. Bennett", "Liverpool"),
     ("La alcaldesa de Vilanova i la Geltrú anunció un plan", "Vilanova i la Geltrú")],  # Catalan "i" (and)
)  # fmt: skip
def test_a_town_in_an_address_line_or_a_register_footer_counts(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["Thanks in advance,\nAGUIRRE Alexandra",  # a given name after a surname in capitals
     "--\nMANN Barry\nEkonomiavdelningen",
     "Låter bra, tack.\n\nYuki",  # a given name under a sentence that closes the message
     "Jos olet saanut viestin erehdyksessä, ilmoita siitä",  # Finnish "if", a Nigerian city
     "Wir sind mit dem Zug nach Hause gefahren.",  # a German noun after its article (Zug is a Swiss town)
     "anunció un plan de vivienda para los barrios del sur.",  # an article and a noun (Los Barrios, a Spanish town)
     "see you in 2024 Nice work"],  # no postal code: a year, and "Nice" an adjective
)  # fmt: skip
def test_a_word_the_gazetteer_spells_is_no_place_where_it_stands(
    find_places: Callable[[str], list[str]], text: str
) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    "text",
    ["Survived by Joseph, Tyler and Jennifer.",  # a first name among first names: Tyler, Texas
     "Left to mourn are Enno, Georgia and Remo.",  # a US state that is a common given name
     "De la part de Cornelius et Peace.",  # after "de", a genitive here
     "In Liebe: Samir und Karin",
     "De la part de Senna, Lisa et Lucas.",  # the first of a list that goes on
     "VALUES (57362, 'Astorga, Miguel', '3418')",  # a surname, a comma and the given name ending the field
     "<contactPerson>Bustos, Ronald</contactPerson>"],
)  # fmt: skip
def test_a_place_among_first_names_is_a_person(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "places"),
    [("offices in Austin, Tyler and Waco", ["Austin", "Tyler", "Waco"]),  # a first name that is a city is no person
     ("Il sindaco di Lucca, Ignazio Ceschi, ha inaugurato", ["Lucca"]),  # a town, then a person's full name
     ("SAINT-LOUIS, May 13 (AP) — The donation", ["SAINT-LOUIS"]),  # a month, no name
     ("Los agentes detuvieron a Ciprian Dumitrescu en Pinto.", ["Pinto"]),  # Spanish "en" is "in", not "and"
     ("Visitámos Quetzaltenango, Jincheng e São José do Rio Pardo", ["Quetzaltenango", "Jincheng",
                                                                     "São José do Rio Pardo"])],
)  # fmt: skip
def test_a_place_beside_names_that_are_no_list_of_people_counts(
    find_places: Callable[[str], list[str]], text: str, places: list[str]
) -> None:
    assert find_places(text) == places


@pytest.mark.parametrize(
    ("text", "places"),
    [("Calcutta : 31 °C\nAthènes : 29 °C", ["Calcutta", "Athènes"]),  # WordNet's proper noun opening a line
     ("Vertrek: La Louvière – Aankomst: Rangoon\n", ["La Louvière", "Rangoon"]),  # after a label's colon
     ("Boston Scientific posted record profits this quarter.", []),  # a company's name: a word after it
     ("Ajax lost again at the weekend.", []),  # a club: a word after it
     ("Tours of the museum start at ten.", []),  # a common noun: WordNet has its plural
     ("Reading is fun.", [])],
)  # fmt: skip
def test_a_city_wordnet_lists_as_a_proper_noun_opens_a_sentence(
    find_places: Callable[[str], list[str]], text: str, places: list[str]
) -> None:
    assert find_places(text) == places
