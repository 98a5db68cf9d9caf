"""Names that spell a stop word: a family name that is a function word of one other language after a common given
name ("ahmad ali": Portuguese "ali", "there"), and a given name English spells as a stop word before a family name in
capitals ("PER HANSEN", "MAY JENSEN"); and the function words and receipts' phrases that stay words."""

from __future__ import annotations

import gzip
import importlib.util
import json

import pytest

from gateway.guardrails.person_names import SNAPSHOT, extract, known_names


def people(analyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("ok so ahmad ali is coming tonight", "ahmad ali"),  # "ali": a Portuguese stop word, a family name
        ("CASHIER: PER HANSEN", "PER HANSEN"),  # "per": an English stop word, a Scandinavian given name
        ("MEMBER MAY JENSEN", "MAY JENSEN"),  # a month, a stop word, a given name
    ],
)
def test_a_name_that_spells_a_stop_word_is_a_person(analyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "o joão está ali com a maria",  # Portuguese writes its own "ali" ("there")
        "anna haha that was wild",  # a laugh is no family name
        "PRICE PER UNIT 4.50",  # a receipt's words after "per"
        "PER PERSON 12.00",
        "WILL CALL",
        "MAY APPLY",
    ],
)
def test_function_words_stay_words(analyzer, text: str) -> None:
    assert not any(" " in name for name in people(analyzer, text))


def test_stop_word_given_names_are_kept_apart() -> None:
    names = known_names()
    assert "per" in names.stop_given and "per" not in names.first  # never a first name alone, in any case
    assert "will" not in names.stop_given and "will" in names.first  # a given name of English-speaking countries


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("names_dataset") is None, reason="names-dataset is not installed")
def test_the_snapshot_is_names_datasets() -> None:
    snapshot = json.loads(gzip.decompress(SNAPSHOT.read_bytes()).decode("utf-8"))
    assert extract() == snapshot
