"""Self-introductions of the chat languages point at the name after them (``name_cues``): Polish "mam na imię",
"nazywam się", "jestem", Portuguese "sou", "eu sou", "me chamo", French "moi c'est", Dutch "ik heet", "mijn naam
is", German "mein name ist". Those that as often tell a state or a place ("jestem", "sou", "moi c'est") name a
person only when the name list knows the word after them, in lower case or capitalised. Titles of address that are
ordinary words too ("maestra", "pani", "juf", "Herrn") name the capitalised word after them."""

import pytest

from gateway.guardrails.name_cues import NameWords, cued_names
from gateway.guardrails.people import _STOP_WORDS
from gateway.guardrails.person_names import known_names


def named(text: str) -> list[str]:
    names = known_names()
    words = NameWords(_STOP_WORDS, frozenset(), names.is_name, names.is_first)
    return [text[f.start : f.end] for f in cued_names(text, words, [])]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("hej, mam na imię fryderyk, nowa w mieście", "fryderyk"),
        ("dzień dobry, nazywam sie jadwiga kowalska", "jadwiga kowalska"),
        ("cześć jestem fryderyk", "fryderyk"),
        ("oi sou joana, acabei de me mudar", "joana"),
        ("eu sou joana", "joana"),
        ("salut moi c'est céline, je viens d'emménager", "céline"),
        ("hoi, mijn naam is pieter", "pieter"),
        ("hallo mein name ist Balthasar Krüger", "Balthasar Krüger"),
        ("Eu sou Joana e moro aqui.", "Joana"),
    ],
)
def test_introductions_name_the_speaker(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "jestem w domu",
        "Jestem w Warszawie do piątku.",
        "eu sou de lisboa",
        "Eu sou Brasileira.",
        "moi c'est pareil",
        "ich bin müde",
        "sono stanco",
        "ik ben er",
    ],
)
def test_introductions_that_tell_a_state_name_nobody(text: str) -> None:
    assert named(text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Ho parlato con la maestra Respighi ieri.", "Respighi"),
        ("Falei com o professor Carneiro.", "Carneiro"),
        ("Rozmawiałam z pani Mazan wczoraj.", "Mazan"),
        ("De juf Marien zegt dat het goed gaat.", "Marien"),
        ("Ich habe Herrn Prager geschrieben.", "Prager"),
    ],
)
def test_titles_of_address_before_a_capitalised_name(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize("text", ["il maestro arriva domani", "pani ma rację", "de juf zegt dat het goed gaat"])
def test_titles_of_address_before_a_lower_case_word_name_nobody(text: str) -> None:
    assert named(text) == []
