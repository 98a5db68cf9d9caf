"""Dates of birth beside a stated age, with a month named in Turkish, in the Vietnamese day-month-year shape, and
with a dotted date wrapped across a line."""

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.dates import has_birth_word, is_month_word, states_an_age


def dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "value"),
    [("Charged twice yesterday. Age 62, 27. 4. 1957, non-smoker.", "27. 4. 1957"),
     ("Patient: aged 41: 03/05/1983.", "03/05/1983"),
     ("The claimant (1995-07-12) is now 58. Case HR-2016-69331 is closed.", "1995-07-12"),
     ("Employee since 2010, 19 juli 1984, aged 40.", "19 juli 1984"),
     ("[16:27] agent: Age 62, 4/3/78, non-smoker.", "4/3/78")],  # a weak shape: read where an age label stands
)
def test_a_date_beside_a_stated_age_is_a_date_of_birth(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    ["The invoice 2019-01-01 is 30 days overdue.",  # a count of days, not an age
     "see page 3, 04/03/2019 shows the order",  # a page number, no age label
     "agent: the order of 04/03/2019 shipped",  # "agent" opens with "age"
     "Storage 2, 04/03/2019 backup done"],  # "age" inside a word
)
def test_a_date_without_an_age_beside_it_is_no_date_of_birth(analyzer: PiiAnalyzer, text: str) -> None:
    assert dates_of_birth(analyzer, text) == []


def test_an_age_label_lets_the_weak_shapes_be_read() -> None:
    assert has_birth_word("Age 62, 4/3/78")
    assert not has_birth_word("see page 3, 4/3/78")


@pytest.mark.parametrize(
    ("text", "value", "stated"),
    [("Age 62, 27. 4. 1957", "27. 4. 1957", True),
     ("(1995-07-12) is now 58.", "1995-07-12", True),
     ("(1995-07-12) is 3.5 kg", "1995-07-12", False),
     ("2019-01-01 is 30 days overdue", "2019-01-01", False)],
)
def test_states_an_age(text: str, value: str, stated: bool) -> None:
    start = text.index(value)
    assert states_an_age(text, start, start + len(value)) is stated


@pytest.mark.parametrize(
    ("text", "value"),
    [("D.O.B.: 6 Nisan 1950 The outage hit every customer", "6 Nisan 1950"),
     ("BIRTH DATE .............. 25 ŞUBAT 1994\n", "25 ŞUBAT 1994"),
     ("dob is 5 ekim 1968", "5 ekim 1968"),
     ("date of birth: 14 Mart 1962", "14 Mart 1962")],
)
def test_a_month_named_in_turkish(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


def test_turkish_months_are_no_month_words_of_running_text() -> None:
    # "Nisan" and "Ekim" are people's names: only the date shapes read them as months.
    assert not is_month_word("Nisan") and not is_month_word("Ekim")
    assert is_month_word("März")


@pytest.mark.parametrize(
    ("text", "value"),
    [("Birth Date: ngày 5 tháng 2 năm 1982\nIban: none", "ngày 5 tháng 2 năm 1982"),
     ("dob ngay 16 thang 7 nam 1979", "ngay 16 thang 7 nam 1979"),
     ("Date of birth on the passport reads 12.\n5. 1999.", "12.\n5. 1999")],
)
def test_vietnamese_and_wrapped_dotted_dates(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert dates_of_birth(analyzer, text) == [value]


def test_a_vietnamese_date_without_birth_context_is_no_date_of_birth(analyzer: PiiAnalyzer) -> None:
    assert dates_of_birth(analyzer, "Hóa đơn ngày 5 tháng 2 năm 2021 đã thanh toán.") == []
