"""Chat typed in lower case with a value pasted into it that keeps its capitals (an ID, a date written by a form):
the value's capitals are no writer's, so the text is still read as chat typed in lower case (``people``'s
``typed_in_lower_case``, ``lower_case_ner``). And a Greek feminine family name in such chat (``other_script_names``)."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.lower_case_ner import lower_case_view
from gateway.guardrails.people import other_script_names, typed_in_lower_case


def _span(text: str, value: str) -> tuple[int, int]:
    start = text.index(value)
    return start, start + len(value)


def test_a_capitalised_word_inside_a_found_value_is_no_writers_capital() -> None:
    text = "who invited ludolf and dob August 14, 1938 for the form"
    assert not typed_in_lower_case(text)
    assert typed_in_lower_case(text, [_span(text, "August 14, 1938")])
    assert not typed_in_lower_case("Ludolf said dob August 14, 1938", [_span(text, "August 14, 1938")])
    assert not typed_in_lower_case("ID 1234", [(0, 7)])  # no lower-case letter


def test_the_view_reads_a_text_whose_capitals_are_codes_and_found_values() -> None:
    text = "id Y2200694E for the booking was that noémi lévy on the call? dob August 14, 1938"
    assert lower_case_view(text) is None  # 'August' is a capitalised word of its own
    view = lower_case_view(text, [_span(text, "Y2200694E"), _span(text, "August 14, 1938")])
    assert view is not None and len(view.text) == len(text)
    assert "Noémi" in view.text and "Y2200694E" in view.text and "August 14, 1938" in view.text
    assert [text[start:end] for start, end in view.names] == ["noémi"]


def test_the_view_reads_a_text_whose_only_capitals_are_an_acronyms() -> None:
    view = lower_case_view("dis à anouk de rappeler, ref GB52")
    assert view is not None and view.text == "dis à Anouk de rappeler, ref GB52"


def test_the_view_still_reads_a_text_with_a_capitalised_word_of_its_own_as_typed() -> None:
    text = "dis à claude de rappeler, Paris est loin, dob August 14, 1938"
    assert lower_case_view(text, [_span(text, "August 14, 1938")]) is None


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("who invited ludolf bobula-kroták and whats the status of SO739447933 and dob August 14, 1938 for the form",
         "ludolf bobula-kroták"),
        ("id Y2200694E for the booking train from gushikawa is late again was that noémi lévy on the call?", "noémi"),
        ("invoice INV-4179228 bounced bday is Sep 19 1989 antonio e. velásquez left the group", "antonio e. velásquez"),
    ],
)
def test_the_analyzer_finds_a_lower_case_name_beside_a_pasted_value(analyzer: PiiAnalyzer, text: str,
                                                                    name: str) -> None:  # fmt: skip
    people = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert name in people


@pytest.mark.parametrize(
    "text",
    [
        "switch to pytest xdist, dob August 14, 1938 for the form",
        "restart the heroku dyno, id Y2200694E on the ticket",
        "grafana alert fired again, bday is Sep 19 1989",
        "deploy to heroku later about invoice INV-4179228",
        "jenkins fail again dob October 21, 1935",
    ],
)
def test_tools_beside_a_pasted_value_are_no_people(analyzer: PiiAnalyzer, text: str) -> None:
    assert not [f for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize("text", ["test data ip: 28.25.140.112", "    # test data ip: 28.25.140.112\n    return x"])
def test_a_name_whose_family_name_is_a_field_word_is_a_label(analyzer: PiiAnalyzer, text: str) -> None:
    assert not [f for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def test_a_name_with_a_family_name_that_is_no_field_word_is_found(analyzer: PiiAnalyzer) -> None:
    text = "coffee with maria ipsen later"
    people = [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]
    assert people == ["maria ipsen"]


def test_a_greek_feminine_family_name_in_lower_case_chat_is_a_person() -> None:
    text = "dont leak it sorry ιακωβίνα χατζηφώτη my bad"
    assert [text[f.start : f.end] for f in other_script_names(text, [])] == ["ιακωβίνα χατζηφώτη"]
    assert other_script_names("ok check the box στη φόρμα please", []) == []  # 'στη': 'in the', three letters
