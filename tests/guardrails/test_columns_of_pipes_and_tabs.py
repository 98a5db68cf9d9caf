"""A value's column named by the header of a TSV block and of tables whose dash runs meet at '+' (org-mode, psql)."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.columns import column_name, header_cell, in_table_header

ORG_TABLE = """| Ref | Address         | Date of birth  | Issued       |
|-----+-----------------+----------------+--------------|
| A17 | 4 Rue des Lilas | 14 March 1939  | 2 June 2025  |
| A18 | 9 Calle Mayor   | 3 October 1962 | 9 April 2024 |
"""
PSQL_RESULT = """ id | name  |    dob     |  created_at
----+-------+------------+------------
  1 | Ana   | 1990-01-02 | 2025-03-04
  2 | Bruno | 1987-11-23 | 2025-03-05
(2 rows)
"""
TSV_BLOCK = "id\tname\tbirth_date\tcreated\n7\tAna\t1990-01-02\t2025-03-04\n8\tBruno\t1987-11-23\t2025-03-05\n"


@pytest.mark.parametrize(
    ("text", "value", "column"),
    [
        (ORG_TABLE, "14 March 1939", "date of birth"),
        (ORG_TABLE, "3 October 1962", "date of birth"),
        (ORG_TABLE, "2 June 2025", "issued"),
        (PSQL_RESULT, "1990-01-02", "dob"),
        (PSQL_RESULT, "2025-03-05", "created_at"),
        (TSV_BLOCK, "1987-11-23", "birth_date"),
        (TSV_BLOCK, "2025-03-04", "created"),
    ],
)
def test_a_cell_is_named_by_its_columns_header(text: str, value: str, column: str) -> None:
    assert column_name(text, text.index(value)) == column


def test_an_org_tables_header_is_a_header_and_lines_outside_a_table_have_no_column() -> None:
    assert in_table_header(ORG_TABLE, ORG_TABLE.index("Date of birth"))
    assert column_name(PSQL_RESULT, PSQL_RESULT.index("(2 rows)")) is None
    prose = "Met Ana\tyesterday; born 1990-01-02\n"  # one tab in a line of prose: no block, no header
    assert column_name(prose, prose.index("1990")) is None


@pytest.mark.parametrize("text", [ORG_TABLE, PSQL_RESULT, TSV_BLOCK])
def test_dates_under_a_birth_column_are_dates_of_birth_and_the_others_are_not(analyzer: PiiAnalyzer,
                                                                              text: str) -> None:
    births = [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
              if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip
    expected = {ORG_TABLE: ["14 March 1939", "3 October 1962"], PSQL_RESULT: ["1990-01-02", "1987-11-23"],
                TSV_BLOCK: ["1990-01-02", "1987-11-23"]}[text]  # fmt: skip
    assert births == expected


@pytest.mark.parametrize(
    ("text", "value", "column"),
    [
        ("id|name|birth_date\n7|Ana|1990-01-02\n", "1990-01-02", "birth_date"),  # a pipe-delimited export
        ('"id","name","Date of birth (DOB)"\n"7","Ana","1990-01-02"\n', "1990-01-02", "date of birth (dob)"),
        ("CLIENT NO.  BIRTH_DATE\n==========  ==========\n0042        1990-01-02\n", "1990-01-02", "birth_date"),
        ("BIRTH_DATE\n----------\n1990-01-02\n", "1990-01-02", "birth_date"),  # a one-column report
    ],
)
def test_delimited_exports_quoted_headers_and_rules_of_equals_signs_name_columns(
    text: str, value: str, column: str
) -> None:
    assert column_name(text, text.index(value)) == column


def test_the_header_cell_is_where_the_names_stand_and_a_value_must_fill_its_cell() -> None:
    text = 'ref,"Personal code",note\n1,ab 37605030299,x\n'
    cell = header_cell(text, text.index("ab"))
    assert cell is not None and text[cell[0] : cell[1]] == "Personal code"
    assert header_cell(text, text.index("376"), text.index("376") + 11) is None  # part of a longer cell
