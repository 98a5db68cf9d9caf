"""Dates of birth in shapes the context words and date anchors reach: camelCase keys, two-column CSV blocks, and
dates with a named month and a two-digit year or an unpadded ISO date."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.columns import column_name
from gateway.guardrails.recognizers import _context_regex


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]


@pytest.mark.parametrize("key", ["patientDob", "userBirthDate", "customerDOB", "clientDateOfBirth"])
def test_a_camel_case_keys_later_word_is_a_context_word(key: str) -> None:
    context = _context_regex(["dob", "birth", "dateofbirth"])
    assert context is not None and context.search(key) is not None


@pytest.mark.parametrize("word", ["adobe", "ecobirth", "XDOB", "rebirthing"])
def test_a_context_word_inside_a_lower_case_or_upper_case_run_is_none(word: str) -> None:
    context = _context_regex(["dob", "birth"])
    assert context is not None and context.search(word) is None


@pytest.mark.parametrize("text", ['{"patientDob": "03/04/1985"}', "userBirthDate=1985-03-04"])
def test_a_date_under_a_camel_case_key_is_a_date_of_birth(analyzer: PiiAnalyzer, text: str) -> None:
    assert len(dates_of_birth(analyzer, text)) == 1


def test_a_date_under_an_unrelated_camel_case_key_is_none(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, '{"invoiceDate": "03/04/1985"}') == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("ref;dob\nR1;Nov 5, 1973", "Nov 5, 1973"),
     ("patient_id,birthDate\nP-1,03/04/1985\nP-2,11/12/1990", "11/12/1990")],
)
def test_a_two_column_block_with_field_names_names_its_column(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert column_name(text, text.index(value)) is not None
    assert value in dates_of_birth(analyzer, text)


@pytest.mark.parametrize(
    "text",
    ["Born in Paris, France\nMet on 03/04/1985, Monday",  # prose with one comma a line: no header
     "ref;created\nR1;Nov 5, 1973"],  # a header that names no birth
)
def test_a_two_column_block_without_a_birth_field_is_no_date_of_birth(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("Nr.;Születési idő;Összeg\n744;1993. április 2.;5336,21", "1993. április 2."),
     ("番号,生年月日,金額,備考\n7,1980年8月25日,5000,-", "1980年8月25日")],
)
def test_a_header_of_column_names_in_any_script_names_its_column(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    """A header's first column name may open with a letter of any script: "Összeg", "生年月日"."""
    assert column_name(text, text.index(value)) is not None
    assert value in dates_of_birth(analyzer, text)


def test_a_two_column_header_of_words_with_spaces_names_no_column() -> None:
    text = "Born in Paris, France\nMet on 03/04/1985, Monday"
    assert column_name(text, text.index("03/04")) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [("born 3 mai 84", "3 mai 84"),
     ("DOB: 3-May-84", "3-May-84"),
     ("nacido el 3 de mayo del 84", "3 de mayo del 84"),
     ("geboren am 3. März 84", "3. März 84"),
     ("DOB 03MAY1984", "03MAY1984"),
     ("date of birth: 1984-5-3", "1984-5-3"),
     ("born 1984-05-3", "1984-05-3")],
)
def test_a_month_name_with_a_short_year_or_an_unpadded_iso_date_is_a_date_of_birth(
    analyzer: PiiAnalyzer, text: str, value: str
) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["meeting on 3 May 84 items",  # no birth word
     "order 1984-5-3 shipped",
     "born: version 2.1984-5-3",  # inside a longer dotted number
     "born 3 May 84:12",  # a clock time, not a year
     "DOB field: see 3 May 845"],  # three digits: no two-digit year
)
def test_the_short_shapes_need_a_birth_word_and_a_whole_value(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []
