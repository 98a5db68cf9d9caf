"""STREET_ADDRESS in the layouts of the locales Faker writes no Latin-script address for (``street_locales``): a type
between the name and the number (Baltic, Turkish, Georgian), Albanian, Romanian and Thai types before the name, the
labels that open an address ("Plot", "Moo"), romanised Korean roads; and the phrases of the same shapes left alone."""

import importlib
from collections.abc import Callable

import pytest

from gateway.guardrails import street_locales


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # a type between the name and the number: Latvian, Estonian, Lithuanian, Turkish, Georgian
        ("The office is at Brīvības iela 21-4, Rīga", "Brīvības iela 21-4"),
        ("residing at Pärnu mnt 45; notices by post", "Pärnu mnt 45"),
        ("ship to Tartu tn 7-12 please", "Tartu tn 7-12"),
        ("Deliver to Gedimino pr. 9, Vilnius", "Gedimino pr. 9"),
        ("courier could not find Vilniaus g. 33-2", "Vilniaus g. 33-2"),
        ("Adres: Bağdat Caddesi No: 12/3, Kadıköy", "Bağdat Caddesi No: 12/3"),
        ("billing address is Atatürk Cad. No:84 D:25\n", "Atatürk Cad. No:84 D:25"),
        ("site visit at Rustavelis k. 12", "Rustavelis k. 12"),
        ("SSR DOCA YY HK1/R/ISTIKLAL CAD. NO:40 D:4\n", "ISTIKLAL CAD. NO:40 D:4"),
        ("RM ADDR KALNIŅA IELA 12\n", "KALNIŅA IELA 12"),  # the key word before the name is no part of it
        ("lumipat na kami sa brīvības iela 137", "brīvības iela 137"),  # lower case: a type no English word
        # a suffix type, then a comma and a house-number label (Kenyan)
        ("courier could not find Ngong Lane, Hse 84 today", "Ngong Lane, Hse 84"),
        ("leta kwa moi lane, hse 97", "moi lane, hse 97"),
        # types before the name: Albanian, Romanian abbreviations, Thai
        ("home visit address Rruga Myslym Shyri, Nr. 113.", "Rruga Myslym Shyri, Nr. 113"),
        ("courier could not find Rr. Kavajës 26", "Rr. Kavajës 26"),
        ("site visit at Bd. Unirii nr. 176", "Bd. Unirii nr. 176"),
        ("value: 'Str. Lipscani nr. 5'", "Str. Lipscani nr. 5"),
        ("return_address=39/47 Soi Sukhumvit\n", "39/47 Soi Sukhumvit"),
        # Catalan, Galician, Peruvian and Mexican types before the name; Swahili ones with "Nyumba Na." (house no.)
        ("deliver to Carrer de Mallorca, 401, 3r 1a", "Carrer de Mallorca, 401"),
        ("site visit at C/ Pujades, 77", "C/ Pujades, 77"),
        ("the flat was at Rúa do Vilar, 12, 2º", "Rúa do Vilar, 12"),
        ("ship to Avda. Castelao, 45", "Avda. Castelao, 45"),
        ("entregar en Jr. Huallaga 320", "Jr. Huallaga 320"),
        ("Cda. Fresnos 14, Col. Roma", "Cda. Fresnos 14"),
        ("tuma kwa Barabara ya Uhuru 55", "Barabara ya Uhuru 55"),
        ("anwani: Mtaa wa Jamhuri, Nyumba Na. 12", "Mtaa wa Jamhuri, Nyumba Na. 12"),
        ("2/BARABARA YA MOROGORO 88\n", "BARABARA YA MOROGORO 88"),
        # Basque types after the name; Icelandic types glued to it
        ("bidali Gran Vía kalea 12, 3. ezk.", "Gran Vía kalea 12"),
        ("helbidea: Sabino Arana etorbidea 8", "Sabino Arana etorbidea 8"),
        ("Deliver to Hafnarvegur 14, íbúð 3", "Hafnarvegur 14"),
        ("the office moved to Laugabraut 7", "Laugabraut 7"),
        ("2/AUSTURSTÍGUR 9\n", "AUSTURSTÍGUR 9"),
        # a label that opens the address, a street type after its name: Nigerian "Plot", Thai "Moo"
        ("billing address is Plot 80, Adeola Crescent\n", "Plot 80, Adeola Crescent"),
        ("lives alone at 177 Moo 1, Phahonyothin Road now", "Moo 1, Phahonyothin Road"),
        # romanised Korean roads: a building number before or after, a numbered side road
        ("lives alone at 149, Hangang-ro 42-gil.", "149, Hangang-ro 42-gil"),
        ("residing at Sejong-daero 35; notices", "Sejong-daero 35"),
        ("deliver mo sa jungang-daero 30\n", "jungang-daero 30"),
        # romanised Armenian street names, which carry no type
        ("site visit at Sevani 346\n", "Sevani 346"),
        ("lumipat na kami sa marshal baghramyan 736\n", "marshal baghramyan 736"),
        ("RM ADDR MURATSANI 7\n", "MURATSANI 7"),
    ],
)
def test_addresses_of_the_tabled_locales(find_streets: Callable[[str], list[str]], text: str, address: str) -> None:
    assert find_streets(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "[10:42] mwanzo: IBAN-ul e FI36 5240 3068 5171 50\n",  # Romanian's article glued by a hyphen is no "ul."
        "[12:47] bebe: SSN-ul lui e 394 54 9538\n",
        "me: CNP-ul vechi 933-77-9668\n",
        "Merged pr. 75 today",  # a one- or two-letter type after an English word
        "Fixed in pr. 12 already",
        "Add 500 g. 40 minutes",
        "Smith et al. 2019 showed",
        "Skuja iela 2019",  # no label: a year is no house number
        "W-2 Part no. 1017 843 was replaced",  # a suffix type with a label but no comma
        "Project Lane no. 5",
        "took the Plot 3, Figure 4",  # an opening label with no street type after the name
        "the micro-ro 5",  # a Korean type after a lower-case English word
        "Jungang-ro with no number",
        "see the tee 5 times",  # lower case: a type that is an English word
        "Tumanyan 1915 was a year of",  # an Armenian street's name before a year
        "Kori 5 points",  # a name that is an English word is left out
    ],
)
def test_phrases_of_the_tabled_shapes_that_stay_no_address(find_streets: Callable[[str], list[str]], text: str) -> None:
    assert find_streets(text) == []


def test_romanised_words_render_the_providers_own() -> None:
    """Each romanised word of the table renders a word Faker's provider of that locale writes."""
    for locale, words in street_locales.ROMANISED_FROM.items():
        source = importlib.import_module(f"faker.providers.address.{locale}").__file__
        assert source is not None
        with open(source, encoding="utf-8") as module:
            text = module.read()
        for latin, native in words.items():
            assert native in text, (locale, latin, native)


def test_the_tables_words_reach_the_vocabulary() -> None:
    from gateway.guardrails.addresses import street_vocabulary

    vocabulary = street_vocabulary()
    assert {"Rruga", "Rr.", "Str.", "Bd.", "Soi"} <= vocabulary.prefixes
    assert {"No", "Hse", "Plot", "Moo"} <= vocabulary.labels


def test_armenian_street_names_are_faker_s_romanised() -> None:
    from gateway.guardrails.street_romanised import romanise_armenian

    assert romanise_armenian("Մյասնիկյան") == "Myasnikyan"
    assert romanise_armenian("Սևանի") == "Sevani"
    assert romanise_armenian("Երևան") == "Yerevan"  # "ե" opening a word is "ye"
    streets = street_locales.armenian_streets()
    assert {"Sevani", "Myasnikyan", "Marshal Baghramyan", "Bryusovi"} <= streets
    assert "Kori" not in streets and not any(any(c.isdigit() for c in name) for name in streets)
