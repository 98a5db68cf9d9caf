"""Travel documents' machine-readable zones (ICAO Doc 9303 TD3, TD2, TD1): the holder's name, document number and
birth date where the zone's check digits hold, at the zone's own spans."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.mrz import check_digit, zone_values

# Doc 9303's own specimens (part 4 for TD3, part 5 for TD1, part 6 for TD2).
TD3 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
TD1 = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
TD2 = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6"


def values(text: str) -> list[tuple[str, str]]:
    return [(value.entity_type, text[value.start : value.end]) for value in zone_values(text)]


def test_check_digits_of_the_specimens() -> None:
    assert check_digit("L898902C3") == 6
    assert check_digit("740812") == 2
    assert check_digit("120415") == 9
    assert check_digit("ZE184226B<<<<<") == 1
    assert check_digit("D23145890") == 7


@pytest.mark.parametrize(
    ("zone", "number"), [(TD3, "L898902C3"), (TD1, "D23145890"), (TD2, "D23145890")], ids=["TD3", "TD1", "TD2"]
)
def test_each_layout_gives_name_number_and_birth_date(zone: str, number: str) -> None:
    assert values(zone) == [("PERSON", "ERIKSSON<<ANNA<MARIA"), ("NATIONAL_ID", number), ("DATE_OF_BIRTH", "740812")]


def test_a_zone_inside_a_data_page_is_read_indented_and_found_by_the_analyzer(analyzer: PiiAnalyzer) -> None:
    page = "PASSPORT / PASSEPORT\nType: P   Code: GEO\n\n    P<GEOGRIGOLIA<<TAXIR<<<<<<<<<<<<<<<<<<<<<<<<\n" \
           "    BFC6CTODN1GEO6003070M3410060<<<<<<<<<<<<<<06\nIssued at the embassy"
    found = {(page[f.start : f.end], f.entity_type) for f in analyzer.analyze(page) if f.score >= 0.5}
    assert {("GRIGOLIA<<TAXIR", "PERSON"), ("BFC6CTODN", "NATIONAL_ID"), ("600307", "DATE_OF_BIRTH")} <= found


@pytest.mark.parametrize(
    "text",
    [
        TD3[:-1] + "1",  # the composite check digit broken
        TD3.replace("7408122", "7408123"),  # the birth date's check digit broken
        TD3.replace("L898902C36", "L898902C35"),  # the document number's
        TD3.replace("\n", "\n\n"),  # the two lines apart
        "BUILD<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n12345678901234567890123456789012345678901234",
    ],
)
def test_a_zone_whose_check_digits_fail_is_no_finding(text: str) -> None:
    assert values(text) == []
