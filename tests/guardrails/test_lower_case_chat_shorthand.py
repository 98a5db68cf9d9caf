"""Lower-case chat's shorthand before a name: "w" for "with" ("on a call w vittorio toscanini rn"), a lower-case
Cyrillic or Greek pair after a word a person follows ("on a call w леонтій шаповал"), a past form before a name
("met samir tabet-soltani": not the pair "met samir"); and a field's label before its value ("# test data street: 4
Harris Inlet"), which is no name. And their look-alikes."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.chat_names import follows_people_word, labels_value
from gateway.guardrails.people import name_pairs, other_script_names
from gateway.guardrails.places import english_words


def _people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("booked it\non a call w vittorio toscanini rn", "vittorio toscanini"),  # "w" = "with"
        ("landline is +61 412 321 805 btw / on a call w леонтій шаповал rn", "леонтій шаповал"),
        ("met samir tabet-soltani at the thing last night, super nice", "samir tabet-soltani"),
    ],
)
def test_a_name_after_chat_shorthand(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in _people(analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "on a call w the team rn",
        "nvm the build already fixed it",
        "heard back from support, they're in",
        "switch to pytest xdist",
        "restart the heroku dyno",
        "def load_fixture():\n    # test data street: 4 Harris Inlet\n    return locals()",
    ],
)
def test_ordinary_chat_and_a_fields_label_name_nobody(analyzer: PiiAnalyzer, text: str) -> None:
    assert _people(analyzer, text) == []


def test_w_is_with_only_after_an_english_word() -> None:
    text = "on a call w леонтій"
    assert follows_people_word(text, text.index("леонтій"))
    polish = "jestem w леонтій"  # Polish "w" ("in") after a Polish word
    assert not follows_people_word(polish, polish.index("леонтій"))
    glued = "on a call w/o леонтій"
    assert not follows_people_word(glued, glued.index("леонтій"))


def test_a_lower_case_other_script_pair_needs_a_family_ending_or_a_people_word() -> None:
    assert [f.start for f in other_script_names("on a call w леонтій шаповал rn", [])] == [12]
    assert other_script_names("typed привет мир lol", []) == []  # after a verb: words of the script


def test_a_past_form_opens_no_lower_case_pair() -> None:
    words = english_words()
    common = words.nouns | words.verbs | words.modifiers
    assert name_pairs("met samir at the thing", common, [], lower=True) == []
    found = name_pairs("i saw the news, samir tabet is here", common, [], lower=True)
    assert [f.end - f.start for f in found] == [len("samir tabet")]


def test_a_label_is_the_words_before_a_colon_and_a_found_value() -> None:
    text = "test data street: 4 Harris Inlet"
    value = text.index("4")
    end = text.index(":")
    assert labels_value(text, end, [(value, len(text))])
    assert not labels_value(text, end, [])  # no value found after the colon
    assert not labels_value("test data street 4 Harris Inlet", end, [(end + 1, len(text))])  # no colon
