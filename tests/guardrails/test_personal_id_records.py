"""Personal identity numbers whose label stands where no reach finds it: a table's header cell, the line above, a
Redis SETEX key, an EDIFACT identity card segment; and other languages' identity-number labels."""

from __future__ import annotations

import pytest

from gateway.guardrails import personal_ids
from gateway.guardrails.identifiers import x12_ref_values
from gateway.guardrails.personal_ids import PersonalIdRecognizer, may_hold_personal_id


def _found(text: str) -> list[str]:
    return [text[r.start : r.end] for r in PersonalIdRecognizer().analyze(text, ["NATIONAL_ID"])]


FIXED_WIDTH = """RPT826  CUSTOMER MASTER EXTRACT  PAGE   16
HOLDER        CITIZEN_ID    ORDER_NO
------------  ------------  -------------
Jane Roe      12.345.678-5  1800101221144
John Doe      37605030299   7523169263
"""


def test_a_fixed_width_column_is_named_by_its_header_cell_above_the_ruler() -> None:
    # the ORDER_NO column's numbers are valid CNP and EGN, but no label names that column
    assert _found(FIXED_WIDTH) == ["12.345.678-5", "37605030299"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("name,personal_code,amount\nJane Roe,37605030299,12.50\n", "37605030299"),
        ("name\tCNP\tcity\nIon Pop\t1800101221144\tCluj\n", "1800101221144"),
        ("id;EGN;note\n1;7523169263;x\n", "7523169263"),
        ("| Name | National ID | Note |\n|---|---|---|\n| Ana | 1800101221144 | ok |\n", "1800101221144"),
        ("PERSONAL_CODE\n-------------\n37605030299\n", "37605030299"),
        ("Personal code:\n37605030299\n", "37605030299"),
        ("Numărul CNP\n  1800101221144", "1800101221144"),
    ],
)
def test_a_header_cell_or_the_line_above_names_the_number(text: str, value: str) -> None:
    assert _found(text) == [value]


ORG_TABLE = """| Name | Personal code | Note |
|------+---------------+------|
| Ana  | 37605030299   | ok   |
"""


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # a quoted cell holding the delimiter counts once, so the row is still the header's
        ('name,personal_code,coords\nJane Roe,37605030299,"8.12,-129.68"\n', "37605030299"),
        (ORG_TABLE, "37605030299"),  # an org-mode table's rule, its dash runs meeting at '+'
        ('"name","CNP","city"\n"Ion Pop","1800101221144","Cluj"\n', "1800101221144"),  # quoted header cells
        ("name|EGN|note\nJane|7523169263|x\n", "7523169263"),  # a pipe-delimited export
    ],
)
def test_every_table_the_column_reader_knows_names_the_number(text: str, value: str) -> None:
    assert _found(text) == [value]


def test_a_number_inside_a_longer_cell_is_not_the_columns_value() -> None:
    assert _found("name,personal_code\nJane Roe,ref 37605030299\n") == []


@pytest.mark.parametrize(
    "text",
    [
        "name,order_no,amount\nJane Roe,1800101221144,12.50\n",  # the column is no identity number's
        "name,personal_code\nJane Roe,x\n\nrow,1800101221144\n",  # a blank line ends the table
        "CNP of the holder is on file; the order below\n1800101221144 shipped\n",  # the label does not end the line
        "PART_NO       QTY\n------------  ---\n1800101221144  2\n",  # a part number's column
    ],
)
def test_a_column_or_line_that_names_no_identity_number_names_none(text: str) -> None:
    assert _found(text) == []


def test_a_redis_setex_key_names_the_value_past_its_seconds() -> None:
    text = 'SETEX session:35c01cd06c67:personal_code 900 "37605030299"\nSETEX session:1:order_no 900 "1800101221144"'
    assert _found(text) == ["37605030299"]


def test_an_edifact_identity_card_segment_names_its_value() -> None:
    text = "UNH+1+PAXLST:D:05B:UN'\nDOC+ID:110:111+1800101221144'\nDOC+P:110:111+7523169263'\nRFF+AVF:1800101221144'"
    assert may_hold_personal_id(text)
    assert _found(text) == ["1800101221144"]


# An 834 enrolment's member loop (ANSI X12 005010X220A1): the subscriber's number (REF*0F), a member id (REF*1W), a
# social security number (REF*SY); other qualifiers (a group's "1L", a mutually defined "ZZ") name no person's number.
X12_MEMBER = ("ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       "
              "*260101*1200*^*00501*000000001*0*P*:~\n"
              "ST*834*0001*005010X220A1~\nINS*Y*18*021*28*A***FT~\nREF*0F*67070231899~\nREF*1L*67070231899~\n"
              "NM1*IL*1*DOE*JANE****34*123456789~\nREF*SY*996214/5314~\nREF*ZZ*84112147879~\nREF*1W*100701A4252~\n")


def test_an_x12_ref_segment_of_a_persons_number_names_its_value() -> None:
    assert _found(X12_MEMBER) == ["67070231899", "996214/5314", "100701A4252"]
    assert _found("REF*0F*67070231899") == ["67070231899"]  # the last segment, unterminated
    assert _found("HREF*0F*67070231899~") == []  # no segment's tag


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("[18/11/2026 03:19] Mimi: namba ya kitambulisho 7523169263", "7523169263"),
        ("پشتیبانی: شماره شناسایی 37605030299", "37605030299"),
        ("TC kimlik numarası: 1800101221144", "1800101221144"),
    ],
)
def test_other_languages_identity_labels_are_shared_labels(text: str, value: str) -> None:
    assert _found(text) == [value]


def test_one_x12_ref_reader_serves_both_recognizers_with_any_element_separator() -> None:
    assert x12_ref_values("REF|SY|996214/5314~REF|ZZ|84112147879~") == [(7, 18, "SY")]  # a slash in the value
    assert x12_ref_values("HREF*0F*67070231899~") == []  # no segment's tag
    assert _found("ISA^00^x~\nREF^0F^67070231899~\n") == ["67070231899"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("CPR-NUMMER\n010190-1234\n", "010190-1234"),  # the word read whole: "CPR-nummer" names the Danish scheme
        ("cpr-nummer 0101901234", "0101901234"),
        ("numer osobowy 44051401359", "44051401359"),  # Polish "personal number"
        ("azonosító szám 37605030299", "37605030299"),  # Hungarian "identification number"
        ("személyi azonosító: 37605030299", "37605030299"),
        ('{"personal_number": "37605030299"}', "37605030299"),  # a label's words joined as a record's key
        ("personalNumber=37605030299", "37605030299"),
        ("echo 'id_code: 37605030299' >> notes.txt", "37605030299"),
        ("$ jq -r '.personal_number' record.json\n37605030299\n$ ", "37605030299"),  # jq prints the key's value
        ("$ yq '.holder.id_code' f.yaml\n37605030299\n", "37605030299"),
    ],
)
def test_registry_names_joined_keys_and_a_jq_filters_key_name_the_number(text: str, value: str) -> None:
    assert _found(text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "$ jq -r '.order_no' record.json\n37605030299\n",  # the filter's key names no identity number
        "$ jq -r '.personal_number' record.json\n37605030299 and more\n",  # not the command's output alone
        "metric 1800101221144",  # "RIC" is an acronym, matched as written only
    ],
)
def test_a_jq_filter_naming_another_key_or_an_acronym_in_lower_case_names_nothing(text: str) -> None:
    assert _found(text) == []


def test_no_word_label_is_a_shorter_reading_of_an_acronym() -> None:
    # the pattern tries the words first: a word that stops inside an acronym would hide the acronym
    meaning = personal_ids._labels()[1]
    acronyms = [key for key in meaning if personal_ids._is_acronym(key)]
    words = [key for key in meaning if not personal_ids._is_acronym(key)]
    assert not [(a, w) for a in acronyms for w in words if a.casefold() != w and a.casefold().startswith(w)]


def test_the_label_prefilter_holds_every_label_as_written_upper_cased_and_joined() -> None:
    meaning = personal_ids._labels()[1]
    for label in meaning:
        forms = [label] if personal_ids._is_acronym(label) else [label, label.upper(), label.replace(" ", "_")]
        for form in forms:
            text = f"x {form}: 37605030299"
            assert personal_ids._holds_label(text) or not personal_ids._pattern_for(text).search(text), form
    assert not personal_ids._holds_label("metric 37605030299")
