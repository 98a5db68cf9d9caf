"""Cues of the chat languages around a given name alone (``name_cues``): regards sent to someone ("Bisous à
Bernard", "Grüß Claire von mir"), a hand-over to someone ("skriv til Mads", "falem com a Chico"), a closing on the
name's own line ("Saludos, Mariano", "VG Boban") and an @-mention ("ping @Kristine"). Their words are ordinary words
too, so a name the list does not know, a place, a user name or a code annotation after them names nobody."""

import pytest

from gateway.guardrails.findings import Finding
from gateway.guardrails.name_cues import NameWords, cued_names
from gateway.guardrails.people import _STOP_WORDS
from gateway.guardrails.person_names import known_names


def named(text: str, taken: list[Finding] | None = None) -> list[str]:
    names = known_names()
    words = NameWords(_STOP_WORDS, frozenset({"support", "finance"}), names.is_name, names.is_first)
    return [text[f.start : f.end] for f in cued_names(text, words, taken or [])]


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("On arrive vers 19h.\nBisous à Bernard !", "Bernard"),
        ("Bis morgen. Grüß Claire von mir!", "Claire"),
        ("Say hi to Anna Lima for me.", "Anna Lima"),
        ("hils malou fra os", "malou"),
        ("Jeg arbejder hjemme hele ugen, skriv til Mads hvis det haster.", "Mads"),
        ("Esta semana estou fora, qualquer coisa falem com a Chico.", "Chico"),
        ("Jeg jobber hjemmefra, send melding til Stian om det haster.", "Stian"),
        ("Per urgenze sentite Tiziana.", "Tiziana"),
    ],
)
def test_regards_and_hand_overs_name_a_known_name(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "Grüß Gott, wie geht's?",  # a greeting: no name the list knows
        "Le président salue l'accord.",
        "Please contact Support.",
        "grüß gott",
    ],
)
def test_regards_and_hand_overs_before_ordinary_words_name_nobody(text: str) -> None:
    assert named(text) == []


def test_a_place_after_regards_names_nobody() -> None:
    text = "Saluti a Roma!"
    place = Finding("LOCATION", text.index("Roma"), text.index("Roma") + 4, 0.7, "PlaceRecognizer")
    assert named(text, [place]) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Er kommt aus Westsahara zurück.\nVG Boban", "Boban"),
        ("Ich könnte Samstag vorbeikommen. Gruß Beni Schindler", "Beni Schindler"),
        ("Ya estamos en casa. Un abrazo, Pilar", "Pilar"),
        ("Il rimborso è stato approvato. Cordiali saluti, Temistocle", "Temistocle"),
    ],
)
def test_a_closing_names_the_rest_of_its_line(text: str, person: str) -> None:
    assert named(text) == [person]


def test_a_closing_before_a_first_name_that_is_a_place_too() -> None:
    text = "Viene desde Guam.\nSaludos, Mariano"
    place = Finding("LOCATION", text.index("Mariano"), len(text), 0.7, "PlaceRecognizer")
    assert named(text, [place]) == ["Mariano"]


@pytest.mark.parametrize(
    "text",
    [
        "Viene desde Guam.\nSaludos, Montevideo",  # a place no name list holds as a first name
        "I love Gruß Beni Schindler and more",  # no closing at a line's or a sentence's start
        "Best, Finance",  # a desk's name
        "Got it.\nCheers, Support",  # a dictionary word
    ],
)
def test_a_closing_before_no_name_names_nobody(text: str) -> None:
    taken = []
    if "Montevideo" in text:
        taken = [Finding("LOCATION", text.index("Montevideo"), len(text), 0.7, "PlaceRecognizer")]
    assert named(text, taken) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Katie is out today, so ping @Kristine or me if the deploy needs a hand.", "Kristine"),
        ("thanks @Ana Lima!", "Ana Lima"),
    ],
)
def test_an_at_mention_of_a_given_name(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "@Override\npublic void run() {}",
        "@Grace(name = 'x')",
        "Ping @octocat about the migration.",
        "write to ana@Anna.org",
        "@Will do",
    ],
)
def test_user_names_annotations_and_addresses_are_no_mentions(text: str) -> None:
    assert named(text) == []


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Ordered twice, both times late. The driver (Tristan) was polite though.", "Tristan"),
        ("Our client, Haskins, denies the allegations.", "Haskins"),
        ("My landlord, Ana Lima, says the heating is fixed.", "Ana Lima"),
    ],
)
def test_an_appositive_after_a_noun_of_a_person(text: str, person: str) -> None:
    assert named(text) == [person]


@pytest.mark.parametrize(
    "text",
    [
        "The team (Support) will call back.",  # no noun of a person
        "The report, Finance, was late.",
        "The driver (see above) was late.",  # no capitalised name
        "The driver, Support and Finance were late.",  # ordinary words
    ],
)
def test_an_appositive_of_no_name_names_nobody(text: str) -> None:
    assert named(text) == []
