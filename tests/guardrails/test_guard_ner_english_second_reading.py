"""Warden's model reading English windows: which windows it reads, and which of its people there are dropped.

Trained mostly on French, Spanish and German, the model calls teams and headings of ordinary English words people
in English text ("Field Services", "Human Resources"); those are dropped, a name of unlisted words is kept. The
"unlisted" reading sends it only the English windows holding a capitalised word that no dictionary, stop-word or
name list holds."""

from __future__ import annotations

import pytest

from gateway.guardrails.ner import CONTINENTAL_NER_SOURCE, NerModel


@pytest.fixture(scope="module")
def reads_all() -> NerModel:
    return NerModel(second_reading="all")


@pytest.mark.parametrize("text", ["Escalating to Field Services for review.", "Human Resources\nRE: Confirmation"])
def test_a_team_of_ordinary_words_is_no_person_in_english(reads_all, text):
    assert not [f for f in reads_all.find(text) if f.source == CONTINENTAL_NER_SOURCE]


def test_an_unlisted_name_is_a_person_in_english(reads_all):
    text = "Employee Wiryanto Hadiyanto has completed the probation period."
    people = [text[f.start : f.end] for f in reads_all.find(text) if f.source == CONTINENTAL_NER_SOURCE]
    assert any("Wiryanto Hadiyanto" in person for person in people)


@pytest.mark.parametrize(
    ("window", "read"),
    [
        ("Employee Wiryanto Hadiyanto has completed", True),
        ("Retry the Open request for Maria Garcia today", False),  # English words, a listed name
        ("Deploy the Postgres cluster", True),  # a product no list holds is read too
    ],
)
def test_the_unlisted_reading_takes_windows_with_a_word_no_list_holds(reads_all, window, read):
    assert reads_all._holds_unlisted_word(window) is read
