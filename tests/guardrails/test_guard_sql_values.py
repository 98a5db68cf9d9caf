"""SQL INSERT tuples read as table rows: the column list names each literal's position."""

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.columns import column_name
from gateway.guardrails.sql_values import column_at

_INSERT = ("INSERT INTO customers (id, `full_name`, birth_date, ssn) VALUES\n"
           "  (1, 'Gwenda O''Hara', '1984-05-03', 536221234),\n"
           "  (2, 'Payr, Makus', '03/11/1979', NULL);")  # fmt: skip


def test_each_literal_has_its_columns_name() -> None:
    assert column_at(_INSERT, _INSERT.index("Gwenda")) == "full_name"
    assert column_at(_INSERT, _INSERT.index("1984")) == "birth_date"
    assert column_at(_INSERT, _INSERT.index("5362")) == "ssn"
    assert column_at(_INSERT, _INSERT.index("03/11")) == "birth_date"  # the second tuple, past a doubled quote
    assert column_name(_INSERT, _INSERT.index("1984")) == "birth_date"
    assert column_at(_INSERT, _INSERT.index("customers")) is None  # the statement itself


def test_a_tuple_that_does_not_fit_the_column_list_has_no_columns() -> None:
    text = "INSERT INTO t (id, dob) VALUES (1, '1984-05-03', 'x');"
    assert column_at(text, text.index("1984")) is None


def test_dates_of_birth_and_ssns_under_their_columns(analyzer: PiiAnalyzer) -> None:
    findings = {(f.entity_type, _INSERT[f.start : f.end]) for f in analyzer.analyze(_INSERT) if f.score >= 0.5}
    assert {("DATE_OF_BIRTH", "1984-05-03"), ("DATE_OF_BIRTH", "03/11/1979"), ("US_SSN", "536221234"),
            ("PERSON", "Payr, Makus")} <= findings  # fmt: skip


def test_other_dates_and_numbers_stay_clean(analyzer: PiiAnalyzer) -> None:
    text = "INSERT INTO orders (id, shipped_on, sku, part) VALUES (1, '1984-05-03', '536221234', 'PN-4471-22');"
    assert [f for f in analyzer.analyze(text) if f.score >= 0.5] == []
