"""A common given name typed in lower case joined by a conjunction to a person already found there ("we met marissa
and lyna") is a person too (``chat_names.joined_names``); a word after the conjunction that is no given name, or a
name joined to no person, is not."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.chat_names import joined_names
from gateway.guardrails.findings import Finding
from gateway.guardrails.people import _NOT_GIVEN_NAMES, _STOP_WORDS


def _people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def _joined(analyzer: PiiAnalyzer, text: str, person: str) -> list[str]:
    start = text.index(person)
    found = joined_names(text, [(0, len(text))], _STOP_WORDS, analyzer.ner.common_words, _NOT_GIVEN_NAMES,
                         [Finding("PERSON", start, start + len(person), 0.6, "addressed_names")])  # fmt: skip
    return [text[f.start : f.end] for f in found]


@pytest.mark.parametrize(
    ("text", "person", "name"),
    [
        ("we met marissa and lyna", "marissa", "lyna"),
        ("wir haben daniele und zahide getroffen", "daniele", "zahide"),
        ("lunch w daniele y zahide", "zahide", "daniele"),  # the person found after the conjunction
    ],
)
def test_a_given_name_joined_to_a_person(analyzer: PiiAnalyzer, text: str, person: str, name: str) -> None:
    assert _joined(analyzer, text, person) == [name]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("we met marissa and then left", "marissa"),  # a stop word
        ("we met marissa and paris", "marissa"),  # a large city's name
        ("we met marissa and coffee", "marissa"),  # a dictionary word
        ("we met marissa and-lyna", "marissa"),  # no conjunction between spaces
        ("ask marissa hand lyna the keys", "marissa"),  # 'and' inside a word
    ],
)
def test_no_name_where_nothing_given_joins(analyzer: PiiAnalyzer, text: str, person: str) -> None:
    assert _joined(analyzer, text, person) == []


def test_through_the_analyzer(analyzer: PiiAnalyzer) -> None:
    assert "lyna" in _people(analyzer, "we met marissa and lyna")
    assert _people(analyzer, "we met the team and lyna") == []  # no person to join
