"""The first-name list leaves out the English words other countries' records hold as given names.

names-dataset's top first names of some countries hold "The", "All", "Per", "Main", "Best": in English text those
open sentences, labels and street names, and read as first names they made "The ID" (a chat line under a
``customer:`` label) and "Main Street" people. English-speaking countries' own given names stay, and so do short
romanised given names that happen to be English words."""

from __future__ import annotations

import pytest

from gateway.guardrails.fields import FieldValueRecognizer
from gateway.guardrails.name_cues import NameWords, names_a_group
from gateway.guardrails.people import name_pairs
from gateway.guardrails.person_names import known_names

_NAMES = known_names()


@pytest.mark.parametrize("word", ["The", "All", "Per", "Main", "Best", "Welcome", "Any", "Patient"])
def test_english_words_are_no_first_names(word):
    assert not _NAMES.is_first(word)


@pytest.mark.parametrize("word", ["Will", "May", "Grace", "Mark", "Rose", "Won", "Xi", "Małgorzata", "Oluwaseun"])
def test_given_names_that_are_english_words_or_short_stay_first_names(word):
    assert _NAMES.is_first(word)


def test_an_article_opening_a_label_makes_a_group_not_a_person():
    words = NameWords(frozenset(), frozenset(), _NAMES.is_name, _NAMES.is_first)
    assert names_a_group(["The", "ID"], words)
    assert not names_a_group(["Grace", "Baker"], words)


def test_a_chat_line_after_a_speaker_label_names_nobody():
    text = "[09:31] customer: The ID card shows BGWAD5574Z."
    assert not [r for r in FieldValueRecognizer().analyze(text, ["PERSON"]) if r.entity_type == "PERSON"]


def test_a_street_of_an_adjective_is_no_name_pair():
    assert name_pairs("Main Street was closed for the parade.", frozenset(), []) == []
    assert [text[f.start : f.end] for text in ["Grace Baker called."] for f in name_pairs(text, frozenset(), [])] == [
        "Grace Baker"
    ]
