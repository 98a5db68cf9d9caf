"""A word after a form's value or a gap of spaces opens a sentence: NER's place there needs the gazetteer.

Texts that run fields and sentences together ("SSN: 514-55-3629 Pagué con la tarjeta ...", "NM3K  Mañana vuelve")
write the next sentence's first word capitalised with no full stop before it; a NER model reads such a word as a place
as it does at any sentence's start, so it counts only where the gazetteer knows it (``people.place_confirmed``). A
town's name before a company's abbreviated legal form is the company's ("Acme GmbH", "Palmer S.A.")."""

from collections.abc import Callable

import pytest

from gateway.guardrails.findings import Finding
from gateway.guardrails.people import place_confirmed
from gateway.guardrails.places import opens_after_value


def _confirmed(text: str, word: str) -> bool:
    start = text.index(word)
    return place_confirmed(text, Finding("LOCATION", start, start + len(word), 0.85, "spacy_ner"))


@pytest.mark.parametrize(
    ("text", "word"),
    [("SSN: 514-55-3629 Pagué con la tarjeta 5020.", "Pagué"),
     ("Número de factura: F2024/89874 Pagué con la tarjeta.", "Pagué"),
     ("IBAN: SA22 33WE LIRJ QI10 CCEK NM3K  Mañana vuelve a casa.", "Mañana"),
     ("Date of birth: Oct 9 1986  Refunds go back to the card.", "Refunds")],
)  # fmt: skip
def test_a_word_after_a_value_is_no_place_unless_the_gazetteer_knows_it(text: str, word: str) -> None:
    assert opens_after_value(text, text.index(word))
    assert not _confirmed(text, word)


@pytest.mark.parametrize(
    ("text", "word"),
    [("SSN: 514-55-3629 Madrid es la ciudad.", "Madrid"),  # the gazetteer's city still counts there
     ("Ich wohne jetzt in Rotherbaum, gleich am Park.", "Rotherbaum"),  # mid-sentence: NER's place stands
     ("Wir treffen uns um 10 Rotherbaum ist nah.", "Rotherbaum")],  # a number with no label is no form's value
)  # fmt: skip
def test_a_place_elsewhere_or_known_still_counts(text: str, word: str) -> None:
    assert _confirmed(text, word)


@pytest.mark.parametrize(
    ("text", "word"),
    [("Ort: Berlin", "Berlin"),  # a label's value itself, not a word after one
     ("Address: 653 Norton Ports", "Norton"),  # a house number: the street follows
     ("PLZ: 10115 Rotherbaum", "Rotherbaum"),  # a postcode: the town follows
     ("I live in Berlin", "Berlin"),
     ("  Indented line", "Indented")],  # indentation opens a line, which the sentence test reads
)  # fmt: skip
def test_no_value_before(text: str, word: str) -> None:
    assert not opens_after_value(text, text.index(word))


@pytest.mark.parametrize(
    "text",
    ["aisha@example.de\nAcme GmbH",  # a company named like a town, its legal form after it
     "Our contact at Palmer S.A. has left.",
     "We hebben de raamovereenkomst met Prati GmbH getekend."],
)  # fmt: skip
def test_a_town_before_a_company_form_is_the_company(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("Our beloved mother, of Summerville, S.C., passed away.", "Summerville"),  # the state after a comma
     ("La familia vive en Palmer desde 2010.", "Palmer")],
)  # fmt: skip
def test_a_town_with_no_company_form_after_it_stays(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)
