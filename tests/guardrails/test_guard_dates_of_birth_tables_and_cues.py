"""Dates of birth in a fixed-width report's column, Kyrgyz dates glued to their day by a dash, the birth words of
Swahili, Persian and the other languages added beside them, and HL7 v2's PID-7."""

import re

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.cldr_dates import CLDR_DATE_ANCHOR
from gateway.guardrails.dates import BIRTH_LABELS, SWAHILI_BORN, has_birth_word
from gateway.guardrails.fixed_columns import fixed_width_column_name

REPORT = """RPT421  CUSTOMER MASTER EXTRACT  PAGE    4
BIRTH_DATE  ISSUED_ON
----------  ---------------------
26/09/1947  21 de janeiro de 2025
03/11/1962  4 de maio de 2024
"""


def _dates_of_birth(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text, ner_enabled=False)
            if f.entity_type == "DATE_OF_BIRTH" and f.score >= 0.5]  # fmt: skip


def test_a_fixed_width_column_is_named_by_the_header_over_its_run_of_dashes() -> None:
    assert fixed_width_column_name(REPORT, REPORT.index("26/09")) == "birth_date"
    assert fixed_width_column_name(REPORT, REPORT.index("03/11")) == "birth_date"
    assert fixed_width_column_name(REPORT, REPORT.index("21 de")) == "issued_on"
    assert fixed_width_column_name(REPORT, REPORT.index("ISSUED")) is None  # the header itself
    assert fixed_width_column_name(REPORT, REPORT.index("CUSTOMER")) is None  # above any rule


def test_a_header_wider_than_its_run_is_read_up_to_the_next_run() -> None:
    text = "DATE_OF_BIRTH  REF\n----------  ---\n1985-03-04  ab1\n"
    assert fixed_width_column_name(text, text.index("1985")) == "date_of_birth"


@pytest.mark.parametrize(
    "text",
    [
        "BIRTH_DATE  ISSUED_ON\n----------  ---------\n\n26/09/1947  x\n",  # a blank line ends the table
        "Born in Leeds\n----------\n26/09/1947 was the invoice date\n",  # one run: Markdown's heading underline
        "no rule here\n26/09/1947\n",
    ],
)
def test_no_column_outside_a_fixed_width_table(text: str) -> None:
    assert fixed_width_column_name(text, text.index("26/09")) is None


def test_a_date_in_a_fixed_width_birth_date_column_is_a_date_of_birth(analyzer: PiiAnalyzer) -> None:
    assert _dates_of_birth(analyzer, REPORT) == ["26/09/1947", "03/11/1962"]


def test_a_date_in_another_fixed_width_column_is_none(analyzer: PiiAnalyzer) -> None:
    text = "INVOICE     DUE_DATE\n----------  ----------\nF2025/0042  26/09/1997\n"
    assert _dates_of_birth(analyzer, text) == []


@pytest.mark.parametrize(
    "text",
    [
        'SET user:99410:birth_date "1971-ж., 11-сентябрь"',  # CLDR's Kyrgyz long date, "y-'ж'., d-MMMM"
        'dob_value="1986-ж., 26-май"',
        "Date of birth 1978-ж., 8-фев.",  # the abbreviated month
    ],
)
def test_kyrgyz_dates_with_the_year_dashed_to_its_word(analyzer: PiiAnalyzer, text: str) -> None:
    assert _dates_of_birth(analyzer, text) == [re.search(r"\d{4}-ж.*?(?=\"|$)", text).group()]


def test_the_dated_year_anchor_takes_a_dash_and_a_letter_but_no_dashed_number() -> None:
    anchor = re.compile(CLDR_DATE_ANCHOR)
    assert anchor.search("1971-ж., 11-сентябрь") is not None
    assert anchor.search("2026-07-02T02:57") is None
    assert anchor.search("v1.2.1987.4") is None


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("[08/09/2026 09:57] Mama: nilizaliwa 13 Machi 1949", "13 Machi 1949"),
        ("Bibi yangu alizaliwa 5 Februari 1941.", "5 Februari 1941"),
        ("walizaliwa 3 Agosti 1994", "3 Agosti 1994"),
        ("‏۲/۹/۲۰۲۶، ۰۵:۲۹ - دفتر: متولد ۲۹ ژوئیه ۱۹۵۴", "۲۹ ژوئیه ۱۹۵۴"),  # Persian, its own digits
    ],
)
def test_swahili_and_persian_born(analyzer: PiiAnalyzer, text: str, date: str) -> None:
    assert date in _dates_of_birth(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "[08/09/2026 09:57] Ofisi: ankara ya tarehe 13 Machi 2021 imelipwa",  # an invoice's date, in Swahili
        "‏۲/۹/۲۰۲۶ - دفتر: فاکتور ۲۹ ژوئیه ۲۰۲۱",  # and in Persian
    ],
)
def test_other_dates_in_those_languages_are_none(analyzer: PiiAnalyzer, text: str) -> None:
    assert _dates_of_birth(analyzer, text) == []


def test_swahili_born_is_conjugated_for_every_person_in_the_past_and_the_perfect() -> None:
    assert {"nilizaliwa", "ulizaliwa", "alizaliwa", "tulizaliwa", "mlizaliwa", "walizaliwa", "nimezaliwa",
            "amezaliwa", "kuzaliwa"} <= set(SWAHILI_BORN)  # fmt: skip
    assert set(SWAHILI_BORN) <= set(BIRTH_LABELS)
    assert all(has_birth_word(f"{word} 13 Machi 1949") for word in SWAHILI_BORN)


@pytest.mark.parametrize(
    ("message", "date"),
    [
        ("MSH|^~\\&|GHH|LAB|||202505212322||ADT^A01|MSG818996|P|2.5\rPID|1||9737063^^^GHH^MR||||19690817|U|||\r",
         "19690817"),
        ("PID|1||507837^^^GHH^MR||FRELICH^N||19670115|M|||||||\nNTE|1||call back", "19670115"),
        ("PID|1||1^^^X^MR||DOE^JANE||196701151230+0100|F", "196701151230+0100"),  # with its time and zone
        ("PID|1||1^^^X^MR||DOE^JANE||19670115^D|F", "19670115"),  # HL7 2.3's TS, its precision after it
    ],
)
def test_an_hl7_pid_segments_field_7_is_the_date_of_birth(analyzer: PiiAnalyzer, message: str, date: str) -> None:
    assert date in _dates_of_birth(analyzer, message)


@pytest.mark.parametrize(
    "message",
    [
        "PID|1||1^^^X^MR||DOE^JANE|||19670115|F",  # field 8 (administrative sex's place): no birth date
        "NTE|1||PID|1||2|3|4|5|19670115|",  # no PID segment: a note's text
        "OBR|1||20240105|||20240105120000",
    ],
)
def test_dates_elsewhere_in_an_hl7_message_are_none(analyzer: PiiAnalyzer, message: str) -> None:
    assert _dates_of_birth(analyzer, message) == []
