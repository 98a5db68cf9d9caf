"""A YAML block list's key names its items, as a CSV header names its cells."""

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.columns import column_name, list_key


def test_an_item_has_its_lists_key() -> None:
    text = "patient:\n  birth_dates:\n    - 10/14/1987\n    - 1990-02-03\n  notes: none\n"
    assert column_name(text, text.index("1990")) == "birth_dates"
    assert list_key(text, text.index("    - 10/14")) == "birth_dates"
    assert column_name(text, text.index("none")) is None  # no list item
    assert list_key("- 1990-02-03\n", 0) is None  # a list with no key above it


def test_dates_under_a_birth_key_are_dates_of_birth_and_others_are_not(analyzer: PiiAnalyzer) -> None:
    births = "birth_dates:\n  - 10/14/1987\n  - 1990-02-03\n"
    releases = "releases:\n  - 2021-04-05\n  - 10/14/1987\n"
    assert {births[f.start : f.end] for f in analyzer.analyze(births) if f.score >= 0.5} == {"10/14/1987", "1990-02-03"}
    assert [f for f in analyzer.analyze(releases) if f.score >= 0.5] == []


def test_the_key_is_read_as_written_and_column_names_are_lower_case() -> None:
    text = "contactPersons :\n  - Ivo Petrov\n  - Naem\n"
    assert list_key(text, text.index("  - Naem")) == "contactPersons "
    assert column_name(text, text.index("Naem")) == "contactpersons"


def test_every_item_of_a_long_list_is_read_under_its_key(analyzer: PiiAnalyzer) -> None:
    # One key lookup per list: the items after the first are of the same list, however many rows it has.
    text = "patients:\n" + "".join(f"  - Item{i}\n" for i in range(300)) + "  - Ivo Petrov\n"
    people = {text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5}
    assert "Ivo Petrov" in people
