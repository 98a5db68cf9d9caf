"""A given name typed in lower case with no cue word: chat addresses or talks about someone by it ("got it, fiona",
"lol brenda 😂", "dmitri was late again"), where the name is a common given name (names-dataset's ranks) that no
ordinary word spells; and what stays ordinary chat: dictionary words the name list also holds ("coffee", "mic"),
laughs ("jaja"), a piece of an address, a word after an article. Also the role phrases before a name ("the account
holder is ...")."""

from __future__ import annotations

import pytest

from gateway.guardrails import PiiAnalyzer
from gateway.guardrails.chat_names import addressed_names, foreign_stop_given_names
from gateway.guardrails.people import _NOT_GIVEN_NAMES, _STOP_WORDS, lower_case_lines
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import english_words


def people(analyzer: PiiAnalyzer, text: str) -> list[str]:
    return [text[f.start : f.end] for f in analyzer.analyze(text) if f.entity_type == "PERSON" and f.score >= 0.5]


def addressed(text: str) -> list[str]:
    words = english_words()
    common = words.nouns | words.verbs | words.modifiers
    found = addressed_names(text, [(0, len(text))], _STOP_WORDS, common, _NOT_GIVEN_NAMES, [])
    return [text[f.start : f.end] for f in found]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("got it, fiona", "fiona"),  # a comma's address at the line's end
        ("lol brenda 😂", "brenda"),  # the name all its segment says besides chat's own words
        ("sure. yusuf. for real", "yusuf"),
        ("hmm natasha maybe", "natasha"),
        ("[10:02] ana: ok so vanessa then", "vanessa"),
        ("pues rodrigo y nada más", "rodrigo"),
        ("dmitri was late again", "dmitri"),  # a subject before its verb
        ("i guess svetlana left early", "svetlana"),
        ("<op> patricia fixed the flaky test", "patricia"),
        ("alors mathilde est partie", "mathilde"),
        ("monika kowalczyk lol", "monika kowalczyk"),  # a known surname after the given name
    ],
)
def test_a_given_name_chat_addresses_or_talks_about_is_a_person(text: str, name: str) -> None:
    assert addressed(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "can't hear u, mic is broken",  # a dictionary word the name list holds
        "coffee first",
        "ok jaja",  # a laugh
        "lars+alerts@example.de pls",  # a piece of an address
        "[09:14] vlad_: elapsed 4h",  # a handle
        "the sandy beach was nice",  # an adjective
        "the matin is a bird",  # after an article
        "ok june then",  # a month
        "tomorrow at 3pm, mention the budget",  # no given name
        "asante sana",  # a given name before a large city's name: Swahili thanks
        "leta kwa rr. braun 103",  # a given name before a surname, then an abbreviation: no chat word
    ],
)
def test_ordinary_chat_names_nobody(text: str) -> None:
    assert addressed(text) == []


def test_a_given_name_needs_to_be_common() -> None:
    names = known_names()
    assert "fiona" in names.given and "coffee" not in names.given
    assert "karen" in names.given_english and "mic" not in names.given


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("fyi the account holder is graciela ortuño", "graciela ortuño"),
        ("your point of contact will be tobias", "tobias"),
        ("hi, the name on the reservation is ingrid", "ingrid"),
    ],
)
def test_a_role_phrase_points_at_a_person(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


def test_a_lower_case_name_in_a_capitalised_text_is_left_to_the_other_rules(analyzer: PiiAnalyzer) -> None:
    assert people(analyzer, "The report said natasha maybe. Please check.") == []


def test_a_cued_name_ends_at_a_full_stop(analyzer: PiiAnalyzer) -> None:
    text = "The account holder is Vi Nguyen. Mobile on file: +36 20 125 6216."
    assert "Vi Nguyen" in people(analyzer, text)


@pytest.mark.parametrize(("text", "name"), [("Dear Mrs. Lindqvist, thanks.", "Mrs. Lindqvist"),
                                            ("Signed: prof. halvorsen", "prof. halvorsen")])  # fmt: skip
def test_a_title_s_period_ends_no_cued_name(analyzer: PiiAnalyzer, text: str, name: str) -> None:
    assert name in people(analyzer, text)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("saw estelle leleux-bernard at the gym lol", "estelle leleux-bernard"),  # the object of a verb
        ("wait alexandra or the other one", "alexandra"),
        ("talked to maria about it", "maria"),  # after a preposition of people
        ("been calling natasha all day", "natasha"),  # after a verb's -ing form
        ("meeting w/ natasha at 3", "natasha"),
    ],
)
def test_a_given_name_after_a_verb_or_a_preposition_is_a_person(text: str, name: str) -> None:
    assert addressed(text) == [name]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("i think maftuna solihayeva left already", "maftuna solihayeva"),  # a family name's ending
        ("artawan damanik wants the slides by friday", "artawan damanik"),  # a known family name
        ("yes. nirja banerjee. obviously", "nirja banerjee"),
        ("drove naadir raed to the airport this morning", "naadir raed"),
        ("been texting hreindís álfgeirsdóttir all day", "hreindís álfgeirsdóttir"),  # not the -ing form before
    ],
)
def test_a_first_name_no_list_holds_before_a_family_name_is_a_person(text: str, name: str) -> None:
    assert addressed(text) == [name]


@pytest.mark.parametrize(
    "text",
    [
        "it works with python",  # a word the dictionary holds after a preposition
        "bought a gift for rose",
        "merged the fix for lambda",
        "artawan wants the slides",  # a first name no list holds, with no family name after it
        "c'est bon pour moi",  # an elided word before a word the name list holds
        "the sandy beach was nice",
    ],
)
def test_no_person_after_a_verb_or_a_preposition_without_a_name(text: str) -> None:
    assert addressed(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("grabbing coffee with hope ojo, brb", "hope ojo"),  # "hope" is an English verb
        ("right, grace okafor-balogun", "grace okafor-balogun"),
    ],
)
def test_a_given_name_english_spells_as_a_verb_counts_before_a_family_name(text: str, name: str) -> None:
    assert addressed(text) == [name]


@pytest.mark.parametrize("text", ["i hope so", "hope ur ok", "grace period lol", "ok will mark it done",
                                  "i hope ramos wins"])  # fmt: skip
def test_a_given_name_english_spells_as_a_verb_is_the_verb_without_a_family_name(text: str) -> None:
    assert [name for name in addressed(text) if name.startswith(("hope", "grace", "mark"))] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("i think dórothea p. vífillsdóttir left already", "dórothea p. vífillsdóttir"),
        ("been texting qaseem d. zaafir all day", "qaseem d. zaafir"),  # a middle initial makes a family name of it
    ],
)
def test_a_middle_initial_stands_inside_the_name(text: str, name: str) -> None:
    assert addressed(text) == [name]


def test_a_large_city_s_name_english_text_seldom_writes_may_be_a_given_name() -> None:
    assert addressed("lol sophia 😂") == ["sophia"]  # Sofia's other spelling; a common given name
    assert addressed("lol dallas 😂") == []  # a city English text writes


_ADDRESS_PASTED = (
    "stuck at the airport in bedford again\nmaria says crewe is overrated\nsent it to 2525 Shaffer Turnpike"
)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("monica says vitry-sur-seine is overrated Boarding pass: FRA → LHR, seat 14C.", "monica"),
        (_ADDRESS_PASTED, "maria"),
    ],
)
def test_a_line_typed_in_lower_case_in_a_text_with_capitals_reads_as_chat(analyzer: PiiAnalyzer, text: str,
                                                                          name: str) -> None:  # fmt: skip
    assert name in people(analyzer, text)


def test_lower_case_lines_open_a_message() -> None:
    def lines(text: str) -> list[str]:
        return [text[start:end] for start, end in lower_case_lines(text)]

    assert lines("monica says hi Boarding pass: FRA") == ["monica says hi "]  # up to the first capitalised word
    assert lines("stuck again\nmaria says hi") == ["stuck again", "maria says hi"]  # after a lower-case line
    assert lines("Done.\nmaria says hi") == ["maria says hi"]  # after a sentence's end
    assert lines("We met with\nmaria on Monday.") == []  # a wrapped sentence's next line
    assert lines("import os\nx = foo(1)\nreturn sophia") == ["import os"]  # code, and the line after it
    assert lines("Done.\nprénom,nom,ville") == []  # a CSV row


def test_a_lower_case_line_in_a_text_with_capitals_reads_listed_first_names_only() -> None:
    words = english_words()
    common = words.nouns | words.verbs | words.modifiers
    text = "artawan damanik wants the slides"  # a first name no list holds
    assert addressed(text) == ["artawan damanik"]
    assert addressed_names(text, [(0, len(text))], _STOP_WORDS, common, _NOT_GIVEN_NAMES, [], listed_only=True) == []


def test_a_given_name_that_is_one_other_language_s_stop_word_opens_a_name_before_a_family_name() -> None:
    assert foreign_stop_given_names(_STOP_WORDS) >= {"dan", "sara"}  # Spanish's "dan", Italian's "sara" (sarà)
    assert "una" not in foreign_stop_given_names(_STOP_WORDS)  # a stop word of Spanish and Italian both
    assert addressed("ok so dan vidal then") == ["dan vidal"]  # a listed family name after it
    assert addressed("me dan ganas de salir") == []  # the Spanish verb: no family name after it
    assert addressed("dan was late") == []  # never a name alone
    assert addressed("sara") == []
