"""STREET_ADDRESS in scripts whose street type follows the name (``street_after_scripts``): Indian scripts with the
house number first ("160/11, नारायण रोड", "எண் 144, தணிகைமுருகன் சாலை"), Kazakh and its neighbours with the number
after the type ("Әл-Фараби даңғылы 3, 23-пәтер"); and the phrases of the same shapes left alone."""

from collections.abc import Callable

import pytest

from gateway.guardrails.street_after_scripts import _indic_provider_types


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # Devanagari: a house number (and its label), the name, then the type
        ("|street line|160/11, नारायण रोड|", "160/11, नारायण रोड"),
        ("new billing address मकान नं. 51, हजारिका मार्ग</p>", "मकान नं. 51, हजारिका मार्ग"),
        ("echo '71/37, डी’सोउज़ा रोड' >> notes.txt", "71/37, डी’सोउज़ा रोड"),
        ("17:42\t総務\t141/31, चोपरा रोडに届けてください", "141/31, चोपरा रोड"),
        ("ठेगाना: 12 शान्ति पथ, काठमाडौं", "12 शान्ति पथ"),  # a Nepali type of Faker's ne_NP
        # Tamil: "எண்" (number) or no label, a comma after the name allowed
        ("echo 'எண் 144, தணிகைமுருகன் சாலை' >> notes.txt", "எண் 144, தணிகைமுருகன் சாலை"),
        ("tenant at 123, அக்மல், தெரு{quote}", "123, அக்மல், தெரு"),
        # Bengali, a type of Faker's bn_BD
        ("ঠিকানা: ২৫, মিরপুর রোড", "২৫, মিরপুর রোড"),
        # Kazakh: the name (its words from the first capitalised one), the type, the number and a flat
        ("Key (home_address)=(Ыбырай Алтынсарин көшесі, 76) already exists", "Ыбырай Алтынсарин көшесі, 76"),
        ("08:17\t総務\tӘл-Фараби даңғылы 3, 23-пәтерに届けてください", "Әл-Фараби даңғылы 3, 23-пәтер"),
        ("住所はӘуезов даңғылы 70, 6-пәтерです", "Әуезов даңғылы 70, 6-пәтер"),
        ("живу по адресу Бөгенбай батыр даңғылы 142, 5-пәтер\n", "Бөгенбай батыр даңғылы 142, 5-пәтер"),
        ("\\address{Төле би көшесі, 151}", "Төле би көшесі, 151"),
        ("export ADDR1='Достық даңғылы 112, 13-пәтер'", "Достық даңғылы 112, 13-пәтер"),
    ],
)
def test_addresses_whose_type_follows_the_name(
    find_streets: Callable[[str], list[str]], text: str, address: str
) -> None:
    assert find_streets(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "मुख्य मार्ग पर ट्रैफिक है",  # a type with no house number
        "2019 में नई सड़क बनी",  # a number, but a word of the sentence between it and no name-and-type
        "сол даңғылы 5 минут",  # no capitalised name
        "Абай даңғылы 2019 жылы салынды",  # a year, not a house
        "даңғылы 5",  # no name at all
    ],
)
def test_phrases_of_those_shapes_that_stay_no_address(find_streets: Callable[[str], list[str]], text: str) -> None:
    assert find_streets(text) == []


def test_faker_s_types_in_those_scripts_are_read() -> None:
    assert {"मार्ग", "रोड", "पथ", "সড়ক", "লেন"} <= _indic_provider_types()
