"""Dates of birth in shapes the context words and date anchors reach: camelCase keys, two-column CSV blocks, and
dates with a named month and a two-digit year or an unpadded ISO date."""

import pytest

from gateway.guardrails import PiiAnalyzer
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
