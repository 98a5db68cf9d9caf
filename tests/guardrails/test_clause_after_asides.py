"""A date's birth word after it past a colon whose clause points back at the date, or past an aside between commas
inside the date's own clause (``columns.clause_after`` with ``asides``), and not past a second date (#29)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.columns import clause_after


@pytest.fixture(scope="module")
def analyzer() -> PiiAnalyzer:
    return PiiAnalyzer()


def _types(analyzer: PiiAnalyzer, text: str, value: str) -> set[str]:
    """The types found over `value` at a score a finding is reported at (a bare date's 0.3 is none)."""
    start = text.index(value)
    found = analyzer.analyze(text)
    return {f.entity_type for f in found if f.score >= 0.5 and f.start < start + len(value) and start < f.end}


def test_colon_then_a_clause_that_points_back() -> None:
    text = "7 janv. 1973 : c'est la date de naissance indiquée sur sa carte vitale."
    end = len("7 janv. 1973")
    assert clause_after(text, end, 32) == end + 1
    assert "naissance" in text[end : clause_after(text, end, 32, asides=True)]


def test_an_aside_between_commas_inside_the_dates_clause() -> None:
    text = "On 7/13/1963 a daughter, Julie Ward, was born to the couple in Copperas Cove."
    end = text.index(" a daughter")
    assert "born" in text[end : clause_after(text, end, 32, asides=True)]
    assert "born" not in text[end : clause_after(text, end, 32)]


def test_no_reach_past_a_digit_an_aside_at_the_value_or_a_colon_of_a_log_line() -> None:
    # A second date has its own words; a comma right after the value ends the value's clause; a colon's clause that
    # does not say what the value is (a log line's message) is another clause.
    for text, value in (
        ("On 4 May 2021 her son, Omar, was born 3 May 1990.", "4 May 2021"),
        ("Hired 4 May 2021, her son, born in Lyon.", "4 May 2021"),
        ("2021-04-03: the birth record was scanned.", "2021-04-03"),
    ):
        end = text.index(value) + len(value)
        assert clause_after(text, end, 32, asides=True) == clause_after(text, end, 32)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("mercredi 14 mai 1947 : c'est la date de naissance indiquée sur sa carte vitale.", "mercredi 14 mai 1947"),
        ("On 22 JAN 1988 a daughter, Austin Anderson, was born to the couple in Radcliff.", "22 JAN 1988"),
        ("12.03.1961: das ist ihr Geburtsdatum laut Ausweis.", "12.03.1961"),
    ],
)
def test_birth_dates_with_the_word_past_the_punctuation(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert "DATE_OF_BIRTH" in _types(analyzer, text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("On 4 May 2021 a colleague, Omar Haddad, joined the team; his daughter was born in 1990.", "4 May 2021"),
        ("14/02/2019: appointment booked, date of birth to be confirmed.", "14/02/2019"),
    ],
)
def test_other_dates_stay_no_birth_dates(analyzer: PiiAnalyzer, text: str, value: str) -> None:
    assert "DATE_OF_BIRTH" not in _types(analyzer, text, value)
