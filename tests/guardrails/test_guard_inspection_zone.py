"""Travel documents' visual inspection zones (ICAO Doc 9303): a data page's labelled name fields are PERSON and its
document and personal numbers NATIONAL_ID, whatever the name's letters, wherever the labels make a page."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.inspection_zone import page_values
from gateway.guardrails.mrz import MRZ_SCORE, PAGE_SCORE

ZONE = "P<GEOGRIGOLIA<<TAXIR<<<<<<<<<<<<<<<<<<<<<<<<\nBFC6CTODN1GEO6003070M3410060<<<<<<<<<<<<<<06"


def values(text: str) -> list[tuple[str, str]]:
    return [(value.entity_type, text[value.start : value.end]) for value in page_values(text)]


def found(analyzer: PiiAnalyzer, text: str) -> dict[str, tuple[str, float]]:
    return {text[f.start : f.end]: (f.entity_type, f.score) for f in analyzer.analyze(text) if f.score >= 0.5}


@pytest.mark.parametrize("colon", [": ", " : ", " "], ids=["colon", "spaced-colon", "no-colon"])
def test_a_page_copied_label_before_value_gives_names_and_number(colon: str) -> None:
    page = (f"PASSPORT / PASSEPORT\nType{colon}P   Code{colon}GEO   Passport No.{colon}BFC6CTODN\n"
            f"Surname{colon}GRIGOLIA\nGiven names{colon}TAXIR\nNationality{colon}GEO\n"
            f"Date of birth{colon}07 MAR 1960")  # fmt: skip
    assert values(page) == [("NATIONAL_ID", "BFC6CTODN"), ("PERSON", "GRIGOLIA"), ("PERSON", "TAXIR")]


def test_a_page_printed_with_trilingual_labels_above_its_values() -> None:
    page = ("Surname / Nom / Apellidos (1)\nDE LA CRUZ\nGiven names / Prénoms / Nombres (2)\n  ANA MARÍA\n"
            "Nationality / Nationalité / Nacionalidad (3)\nPHILIPPINE\nDate of birth / Date de naissance (4)\n"
            "01 JAN 1980\nPassport No. / No du passeport / Pasaporte No.\nP1234567A")  # fmt: skip
    assert values(page) == [("PERSON", "DE LA CRUZ"), ("PERSON", "ANA MARÍA"), ("NATIONAL_ID", "P1234567A")]


def test_a_national_label_may_open_the_row_and_a_personal_number_is_an_identifier() -> None:
    page = (
        "Name/Surname/Nom: MUSTERMANN\nVornamen/Given names/Prénoms: ERIKA\n"
        "Staatsangehörigkeit/Nationality/Nationalité: DEUTSCH\nGeschlecht/Sex/Sexe: F\nPersonal No.: 914-92-9829"
    )
    assert values(page) == [("PERSON", "MUSTERMANN"), ("PERSON", "ERIKA"), ("NATIONAL_ID", "914-92-9829")]


@pytest.mark.parametrize(
    "text",
    [
        "Surname: Smith\nPlease write it as on your card.",  # a name label alone makes no page
        "Surname: SMITH\nNationality: GB\n\n\n\n\n\nDate of birth: 01 JAN 1980",  # two fields, the third far below
        "Surname:\nGiven names:\nNationality:\nDate of birth:\nSex:",  # an empty form
        "Type: job   Code: 42\nSurname: see ticket 4021\nNationality: n/a",  # values that are no name
    ],
    ids=["alone", "far-apart", "empty-form", "no-name-values"],
)
def test_what_is_no_page_or_no_name_gives_nothing(text: str) -> None:
    assert [value for value in values(text) if value[0] == "PERSON"] == []


def test_the_analyzer_reads_a_page_and_scores_a_surname_its_zone_confirms_higher(analyzer: PiiAnalyzer) -> None:
    page = ("PASSPORT / PASSEPORT\nType: P   Code: GEO   Passport No.: BFC6CTODN\nSurname: GRIGOLIA\n"
            "Given names: TAXIR\nNationality: GEO\nDate of birth: 07 MAR 1960\nSex: M\n\n")  # fmt: skip
    alone = found(analyzer, page)
    assert alone["GRIGOLIA"] == ("PERSON", PAGE_SCORE)
    assert alone["TAXIR"][0] == "PERSON"
    assert alone["BFC6CTODN"][0] == "NATIONAL_ID"
    with_zone = found(analyzer, page + ZONE)
    assert with_zone["GRIGOLIA"] == ("PERSON", MRZ_SCORE)
    assert with_zone["GRIGOLIA<<TAXIR"][0] == "PERSON"
