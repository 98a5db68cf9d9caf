"""Names ``name_cues`` reads from the shape around them rather than a cue phrase before them: post-nominal letters
after a comma ("Akinyi Irungu, GP"), a line that opens with a name before a dash and thanks ("Mihkel - thanks for
the repro!"), a dash before a name on the text's last line ("— Ilse") or on the line after a closing ("All the best,
\n— Kipenzi"), and a signature's name line whose other fields follow a separator ("Tristan – Service client",
"Kazim | Buchhaltung | ...")."""

from __future__ import annotations

import pytest

from gateway.guardrails.findings import Finding
from gateway.guardrails.name_cues import NameWords, cued_names
from gateway.guardrails.people import _STOP_WORDS
from gateway.guardrails.person_names import known_names
from gateway.guardrails.places import english_words


def cued(text: str, taken: list[Finding] | None = None) -> list[str]:
    names = known_names()
    english = english_words()
    words = NameWords(_STOP_WORDS, english.nouns | english.verbs | english.modifiers, names.is_name, names.is_first)
    return [text[f.start : f.end] for f in cued_names(text, words, taken or [])]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Referred by Akinyi Irungu, GP, for assessment of a possible fracture.", "Akinyi Irungu"),
        ("Seen on the ward by J. Okafor, RN this morning.", "Okafor"),
        ("The letter is signed Ana Ruiz, PhD.", "Ana Ruiz"),
        ("Please contact Maria Lopez, Esq. for details.", "Maria Lopez"),
        ("The course is led by Tom Baker, MD.", "Tom Baker"),  # dictionary words, but a first name opens them
    ],
)
def test_a_name_before_post_nominal_letters(text: str, name: str) -> None:
    assert name in cued(text)


@pytest.mark.parametrize(
    "text",
    [
        "Our office in Frederick, MD 21701 is closed.",  # a state's code before a ZIP code
        "The clinic is staffed by Smith, MD.",  # one word: a town as often ("Laurel, MD")
        "See the Data Science, MBA track.",  # dictionary words
    ],
)
def test_no_name_before_post_nominal_letters_without_one(text: str) -> None:
    assert cued(text) == []


def test_a_place_before_post_nominal_letters_stays_a_place() -> None:
    text = "Our office in Silver Spring, MD is closed."
    place = Finding("LOCATION", text.index("Silver"), text.index(","), 0.75, "PlaceRecognizer")
    assert cued(text, [place]) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Run make test before pushing.\nMihkel - thanks for the detailed repro! Fixed in #5521.", "Mihkel"),
        ("Great catch.\nMarta Kowal — merci!", "Marta Kowal"),
        ("Sounds good, see you Monday.\n— Ilse", "Ilse"),
        ("Bonjour,\nVotre dossier a bien été transmis.\nBien à vous,\nTristan – Service client", "Tristan"),
        ("Anbei das Angebot. Bitte geben Sie mir Bescheid.\n\nKazim | Sachbearbeiterin | Ironbridge GmbH", "Kazim"),
    ],
)
def test_a_name_a_dash_or_a_separator_sets_off(text: str, name: str) -> None:
    assert name in cued(text)


@pytest.mark.parametrize(
    "text",
    [
        "Agenda:\n- Budget - thanks to finance for the numbers",  # a list item's word, not at the line's start
        "Status update - thanks everyone for the quick turnaround.",  # dictionary words
        "Cities we cover:\n- Berlin\n- Lyon",  # a list's last item, not a dash's sign-off
    ],
)
def test_no_name_a_dash_sets_off_without_one(text: str) -> None:
    assert cued(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("All the best,\n— Kipenzi\nAdresse: 899 Marian Spring\nDOB: 23 July 1987", "Kipenzi"),  # no list knows it
        ("Thanks,\n-- Marta Kowal\nPhone: 555 0100", "Marta Kowal"),
        ("Bonne journée,\n– Úlfhildur Unisdóttir\nCommit: bf2d4955", "Úlfhildur Unisdóttir"),
    ],
)
def test_a_dash_led_line_after_a_closing_is_its_writer(text: str, name: str) -> None:
    assert name in cued(text)


@pytest.mark.parametrize(
    "text",
    [
        "All the best,\n— Support\nAdresse: 899 Marian Spring",  # a dictionary word: a desk
        "Notes:\n— Kipenzi\nAdresse: 899 Marian Spring",  # no closing before the dash
        "Thanks,\n— KIPENZI LTD\nAdresse: 899 Marian Spring",  # capitals
        "Thanks,\n- Kipenzi\n- Bakari",  # a list's items: a single hyphen
    ],
)
def test_no_name_on_a_dash_led_line_without_a_closing_or_a_name(text: str) -> None:
    assert cued(text) == []


def test_a_place_alone_after_a_closing_and_a_dash_stays_a_place() -> None:
    text = "Cheers,\n— Ouagadougou\nAdresse: 899 Marian Spring"  # without the place, a name no list knows
    place = Finding("LOCATION", text.index("Ouagadougou"), text.index("\nAdresse"), 0.75, "PlaceRecognizer")
    assert cued(text, [place]) == []


def test_a_place_alone_after_a_dash_stays_a_place() -> None:
    text = "Where next?\n— Toulouse"
    place = Finding("LOCATION", text.index("Toulouse"), len(text), 0.75, "PlaceRecognizer")
    assert cued(text, [place]) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Merci de remettre l'autorisation signée à Mme Vos.", "Vos"),  # a stop word ('vos') after a title
        ("Hoi allemaal,\nvanaf maandag komt meneer van Evelingen ons team versterken.", "Evelingen"),  # a particle
    ],
)
def test_a_title_names_the_capitalised_word_after_it(text: str, name: str) -> None:
    assert name in cued(text)


@pytest.mark.parametrize("text", ["Dear Mrs the manager,", "Pubblico polizia veramente don. Forse cielo usare mano."])
def test_a_title_before_no_capitalised_word_names_nobody(text: str) -> None:
    assert cued(text) == []


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Middlesbrough, 12 may (EFE).- El Gobierno aprobó la reforma.", []),  # an article and a noun
        ("Madrid (EFE).- La Comisión dijo que no.", []),
        ("Según la prensa, Le Pen dijo que no.", ["Le Pen"]),  # an article before a known name: a family name
    ],
)
def test_an_article_opens_a_name_only_before_a_known_one(text: str, names: list[str]) -> None:
    assert cued(text) == names
