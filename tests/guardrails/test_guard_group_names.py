"""One rule tells a team, a desk or a company from a person where a name could stand, for the cue rules (with an
English dictionary) and the field rule (with none)."""

from gateway.guardrails.name_cues import NameWords, names_a_group
from gateway.guardrails.person_names import known_names

_NAMES = known_names()
DICTIONARY = NameWords(frozenset({"per", "their"}),
                       frozenset({"facility", "desk", "reception", "service", "visitor", "stamp"}),
                       _NAMES.is_name, _NAMES.is_first)  # fmt: skip
NO_DICTIONARY = NameWords(frozenset(), frozenset(), _NAMES.is_name, _NAMES.is_first)


def test_a_head_noun_after_the_first_word_is_a_team_with_or_without_a_dictionary() -> None:
    for words in (DICTIONARY, NO_DICTIONARY):
        assert names_a_group(["Claims", "Unit"], words)
        assert names_a_group(["Claims", "Unit", "Tax"], words)  # a sentence runs on after the team
        assert names_a_group(["Acme", "Holdings"], words)
        assert names_a_group(["Their", "VPN"], words)  # an English stop word opens no name


def test_a_known_first_name_makes_a_person() -> None:
    for words in (DICTIONARY, NO_DICTIONARY):
        assert not names_a_group(["John", "Office"], words)
        assert not names_a_group(["Uma", "Vargas"], words)
        assert not names_a_group(["Ivo"], words)  # one word is no team
        assert not names_a_group(["Will", "Hansson"], words)  # "will" is an English stop word and a first name


def test_dictionary_words_throughout_are_a_desk_only_with_the_dictionary() -> None:
    assert names_a_group(["Facilities", "Desk"], DICTIONARY)
    assert names_a_group(["Visitor", "Reception"], DICTIONARY)
    assert not names_a_group(["Visitor", "Reception"], NO_DICTIONARY)


def test_a_surname_the_dictionary_holds_after_a_given_name_it_does_not_is_a_person() -> None:
    # The dictionary lists many surnames (WordNet's "stamp", "boehm"): its last word alone makes no desk.
    assert not names_a_group(["Brenik", "Stamp"], DICTIONARY)
