"""Lower-case streets (chat) that a type opens or a glued type ends, with words after them and no address word
before ("new place is ul. witosa 57 btw", "viale tomasetti, 32 piano 4 is my new address", "kuhlstraße 77 now"):
``addresses._written_as_street`` and ``_street_only_glued``; and the lower-case phrases of several languages that
stay no address ("conjunto de datos 3 veces", "via whatsapp, 3 times", "string 5")."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # A number after a comma, as Italian, Portuguese and French addresses write it
        ("new place is viale tomasetti, 32 btw", "viale tomasetti, 32"),
        ("borgo gravina, 82 piano 4 is my new address", "borgo gravina, 82 piano 4"),  # a unit, then words
        ("new place is via pomponio, 41 btw", "via pomponio, 41"),  # "via": a rare name after it
        ("travessa dos anjos, 12 is where we are now", "travessa dos anjos, 12"),
        ("avenida de barros, 186 now", "avenida de barros, 186"),
        # A type no English word, a rare name, no comma
        ("new place is ulica witosa 57 btw", "ulica witosa 57"),
        ("callejón ovidio pascual 21 piso 7 is the new one", "callejón ovidio pascual 21 piso 7"),
        # An abbreviation written with its dot
        ("old address was ul. chełmońskiego 78 but i moved", "ul. chełmońskiego 78"),
        ("al. sowia 93/28 is my new address", "al. sowia 93/28"),
        # A glued type of five letters or more that is no English word, or joined by hyphens, or dotted
        ("new place is kuhlstraße 77 btw", "kuhlstraße 77"),
        ("billing is franz-hentschel-allee 10", "franz-hentschel-allee 10"),
        ("correct one is resi-striebitz-weg 8 i think", "resi-striebitz-weg 8"),
        ("mentzelstr. 32 is my new address", "mentzelstr. 32"),
        ("its krausegasse 41", "krausegasse 41"),
        ("ik bel over het appartement aan de hendriklaan 168c kunt u", "hendriklaan 168c"),
        # A chat's next message on the next line is no word after the number
        ("motorista: chego em 5 min na r. abreu 147\neu: ok sou luigi", "r. abreu 147"),
        ("atendente: o endereço é\nestrada de brito 17\ncliente: isso", "estrada de brito 17"),
        # A French house number's repetition index
        ("pour le 147 bis chemin colin\nstandard: à quel nom", "147 bis chemin colin"),
        ("Livrez au 12 bis rue de Rivoli, Paris", "12 bis rue de Rivoli"),
        # A name's rare words after its first, in lower case; not chat's own words
        ("48, rue margaret vasseur is my new address", "48, rue margaret vasseur"),
        ("ship to 16, rue de salmon pls", "16, rue de salmon"),
        ("lol im at 1879 allen radial apt. 290 ssn", "1879 allen radial apt. 290"),  # German "allen" is no sign
    ],
)
def test_lower_case_streets_with_words_after_and_no_address_word(
    find_streets: Callable[[str], list[str]], text: str, address: str
) -> None:
    assert address in find_streets(text)


@pytest.mark.parametrize(
    "text",
    [
        "sent it via email 3 times",  # an English type and word
        "sent it via whatsapp, 3 times",  # a comma, but the name is a frequent word
        "el conjunto de datos 3 veces mas",  # Spanish "data set, 3 times": every name word frequent
        "na feira livre 3 vezes",  # Portuguese "at the open market 3 times"
        "the camino de santiago 3 weeks",
        "vale nos vemos 5 minutos",  # a stop word of the name
        "ci vediamo in piazza alle 5 ok",
        "smith et al. 2019 showed it",  # no name between the abbreviation and a year
        "mlk jr. day 2024 is off",  # the number a year
        "go to string 5 then stop",  # a glued type that ends English words
        "listen to offering 3 songs",
        "the park 2 times this week",
        "das ist weg 5 minuten",  # German "away": a stop word
        "la familia 3 personas",  # a glued type of three letters
        "we moeten ze verslaan 3 keer",  # Dutch "beat them 3 times": a frequent word ending in "laan"
        "mijn loopbaan 5 jaar lang",
        "arrivo alle 9:00 la via è chiusa per lavori",  # Italian "the street is closed": "00" is a time's minutes
        "sent it via email 3\ntimes",  # a word after on the next line, but "email" is English
        "the 12 bis",
    ],
)
def test_lower_case_phrases_of_several_languages_that_stay_no_address(
    find_streets: Callable[[str], list[str]], text: str
) -> None:
    assert find_streets(text) == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("afleveradres\nrayanlei 71a\nbel werkt niet", "rayanlei 71a"),  # a compound's "adres" ending the line above
        ("medewerker: het adres is\nalexanderboulevard 129c\nklant: klopt", "alexanderboulevard 129c"),
        ("lieferadresse: angelinaring 52", "angelinaring 52"),  # German "-adresse", a type English spells
        ("jestem pod adresem ul. daleka 837 pls", "ul. daleka 837"),  # Polish "adresem"
    ],
)
def test_a_lower_case_street_after_an_address_word_of_the_chat_languages_or_under_it(
    find_streets: Callable[[str], list[str]], text: str, address: str
) -> None:
    assert address in find_streets(text)


@pytest.mark.parametrize(
    "text",
    ["go to\nstring 5",  # an English word after a line ending in "to": no address word's line
     "afleveradres\nwe komen om 5",  # no street under it
     "het adres klopt niet\nring 5 keer"],  # the address word does not end its line
)  # fmt: skip
def test_a_lower_case_phrase_under_a_line_with_an_address_word_that_does_not_end_it_is_no_address(
    find_streets: Callable[[str], list[str]], text: str
) -> None:
    assert find_streets(text) == []
