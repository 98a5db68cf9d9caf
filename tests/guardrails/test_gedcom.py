"""GEDCOM family trees (``gateway.guardrails.gedcom``): names, birth dates, places and addresses by their lines'
tags, the records' structure never a value. The texts follow GEDCOM 5.5.1's own sample records."""

from gateway.guardrails.analyzer import PiiAnalyzer
from gateway.guardrails.findings import Finding
from gateway.guardrails.gedcom import gedcom_lines, has_gedcom, without_gedcom_syntax

SAMPLE = """0 HEAD
1 SOUR PAF
2 NAME Personal Ancestral File
2 VERS 5.0
1 DATE 30 NOV 2000
1 GEDC
2 VERS 5.5.1
2 FORM LINEAGE-LINKED
1 CHAR UTF-8
1 SUBM @U1@
0 @U1@ SUBM
1 NAME Reldon /Poulson/
1 ADDR 1900 43rd Street West
2 CONT Billings, MN 68051
2 CITY Billings
2 STAE Montana
0 @I1@ INDI
1 NAME Robert Eugene /Williams/ Jr.
2 GIVN Robert Eugene
2 SURN Williams
2 NSFX Jr.
1 SEX M
1 BIRT
2 DATE 2 OCT 1822
2 PLAC Weston, Madison, Connecticut
1 DEAT
2 DATE 14 APR 1905
2 PLAC Stamford, Fairfield, CT
1 FAMS @F1@
0 @F1@ FAM
1 HUSB @I1@
1 MARR
2 DATE DEC 1859
2 PLAC Rapid City, South Dakota
0 @R1@ REPO
1 NAME Family History Library
1 NOTE not a person
0 TRLR"""


def values(text: str) -> list[tuple[str, str]]:
    return [(entity, text[start:end]) for entity, start, end in gedcom_lines(text)[1]]


def test_names_birth_date_and_places_of_an_individual() -> None:
    found = values(SAMPLE)
    people = [value for entity, value in found if entity == "PERSON"]
    # the submitter and the individual; the suffix after the surname, the repository's and the product's names are none
    assert people == ["Reldon", "Poulson", "Robert Eugene", "Williams", "Robert Eugene", "Williams"]
    # the birth's date only: a death's and a marriage's dates are no birth dates
    assert [value for entity, value in found if entity == "DATE_OF_BIRTH"] == ["2 OCT 1822"]
    assert [value for entity, value in found if entity == "LOCATION"] == [
        "Billings",
        "Montana",
        "Weston, Madison, Connecticut",
        "Stamford, Fairfield, CT",
        "Rapid City, South Dakota",
    ]
    assert [value for entity, value in found if entity == "STREET_ADDRESS"] == [
        "1900 43rd Street West",
        "Billings, MN 68051",
    ]


def test_date_modifiers_and_calendar_escapes_are_no_part_of_the_date() -> None:
    text = "0 @I2@ INDI\n1 BIRT\n2 DATE ABT @#DJULIAN@ 3 MAR 1701\n0 @I3@ INDI\n1 BIRT\n2 DATE UNKNOWN\n"
    assert values(text) == [("DATE_OF_BIRTH", "3 MAR 1701")]


def test_a_record_cut_from_its_file_is_read_from_its_levels() -> None:
    text = "Here is the entry:\n1 NAME Mária /Kovács/\n2 GIVN Mária\n1 BIRT\n2 DATE 12 MAR 1961\n2 PLAC Pécs\nThanks"
    assert values(text) == [("PERSON", "Mária"), ("PERSON", "Kovács"), ("PERSON", "Mária"),
                            ("DATE_OF_BIRTH", "12 MAR 1961"), ("LOCATION", "Pécs")]  # fmt: skip


def test_one_line_or_prose_is_no_gedcom() -> None:
    assert not has_gedcom("The meeting moved to 10 NAME tags, see the list.")
    assert values("0 @I1@ INDI") == []  # a lone line: no run of the grammar
    assert values("Version 0 @home today\n1 NAME Someone Else was here\nand more text") == []


def test_the_structure_is_no_value() -> None:
    structure = gedcom_lines(SAMPLE)[0]
    assert SAMPLE[structure[0][0] : structure[0][1]] == "0 HEAD"
    record = SAMPLE.index("0 @I1@ INDI")
    assert (record, record + len("0 @I1@ INDI")) in structure
    tag = Finding("LOCATION", record + 7, record + 11, 0.85, "PlaceRecognizer")  # "INDI"
    note = SAMPLE.index("1 NOTE not")
    street = Finding("STREET_ADDRESS", note, note + len("1 NOTE not"), 0.6, "StreetAddressRecognizer")
    value = SAMPLE.index("Weston")
    place = Finding("LOCATION", value, value + len("Weston"), 0.85, "PlaceRecognizer")
    assert without_gedcom_syntax(SAMPLE, [tag, street, place]) == [place]


def test_through_the_analyzer(analyzer: PiiAnalyzer) -> None:
    findings = [f for f in analyzer.analyze(SAMPLE) if f.score >= 0.5]
    found = {(f.entity_type, SAMPLE[f.start : f.end]) for f in findings}
    assert {("PERSON", "Williams"), ("DATE_OF_BIRTH", "2 OCT 1822"),
            ("LOCATION", "Weston, Madison, Connecticut")} <= found  # fmt: skip
    structure = gedcom_lines(SAMPLE)[0]
    assert not [f for f in findings if any(start < f.end and f.start < end for start, end in structure)]
