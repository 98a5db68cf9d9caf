"""STREET_ADDRESS in two layouts read from Faker's providers: the grid (es_CO: a street named by its number, the house
by the cross street's number and the distance from it, "Calle 45 # 12-34") and a type written between the name and
the number where a locale's street address puts the number after the street's name (hu_HU: "Kossuth utca 12.")."""

from collections.abc import Callable

import pytest

from gateway.guardrails.addresses import street_vocabulary


@pytest.mark.parametrize(
    ("text", "address"),
    [
        # Colombian grid: each of es_CO's types, whole and abbreviated, with "#" or "No." before the house number
        ("courier could not find Diagonal 15A # 86-96</p>", "Diagonal 15A # 86-96"),
        ("new billing address Carrera 29 No. 12-30, Apto 504</p>", "Carrera 29 No. 12-30, Apto 504"),
        ("export ADDR1='Transversal 48 # 94A-23'", "Transversal 48 # 94A-23"),
        ("|addr1|Transversal 140 # 69A-9|", "Transversal 140 # 69A-9"),
        ("envío a Cl. 150D # 9-1 Sur, Bogotá", "Cl. 150D # 9-1 Sur"),
        ("Tr. 108X # 8-97\n", "Tr. 108X # 8-97"),
        ("la sede: Avenida calle 47 # 36-66 Este", "Avenida calle 47 # 36-66 Este"),
        ("Calle 4ª # 12-07", "Calle 4ª # 12-07"),
        # Puerto Rico: a block's letter for the house number
        ("tenant at Urb. Villa Bauza, Calle 13 B-3</p>", "Calle 13 B-3"),
        # lower case, right after an address word
        ("deliver to calle 45 # 12-34 pls", "calle 45 # 12-34"),
        # Hungarian: the type between the name and the number, the number's dot, floor and door
        ("tenant at Mészáros Erzsébet utca 169.{quote}", "Mészáros Erzsébet utca 169."),
        ("Street line Farkas Laura utca 135.\nModel", "Farkas Laura utca 135."),
        ("new billing address Sándor tér 174. 5. em. 40.; bounce", "Sándor tér 174. 5. em. 40."),
        ("szállítás ide: Petőfi Sándor körút 3. 2. emelet 4. ajtó", "Petőfi Sándor körút 3. 2. emelet 4. ajtó"),
        ("a cím Váci út 12", "Váci út 12"),
    ],
)
def test_grid_and_name_first_addresses(find_streets: Callable[[str], list[str]], text: str, address: str) -> None:
    assert find_streets(text) == [address]


@pytest.mark.parametrize(
    "text",
    [
        "see calle 5 for 3-4 days",  # lower case, no address word before it
        "Calle 5 for 3-4 days",  # no label, no house number right after the street's
        "the utca 12 mentioned",  # lower case type after an English stop word
        "Utca 2019",  # no name
        "Budapest tér 2019 óta",  # a year is no house number
    ],
)
def test_phrases_of_those_shapes_that_stay_no_address(find_streets: Callable[[str], list[str]], text: str) -> None:
    assert find_streets(text) == []


def test_weighted_tables_and_name_first_types_are_read() -> None:
    """Faker's weighted tables (es_CO's and hu_HU's OrderedDicts) reach the vocabulary, and a locale that writes the
    number after the street's name gives its types the between role only ("12 Kossuth utca" is not Hungarian)."""
    vocabulary = street_vocabulary()
    assert {"Carrera", "Cr.", "Transversal", "Tr.", "Dg."} <= vocabulary.prefixes
    assert {"utca", "út", "tér", "körút", "köz"} <= vocabulary.after_name
    assert not {"utca", "tér"} & vocabulary.suffixes
