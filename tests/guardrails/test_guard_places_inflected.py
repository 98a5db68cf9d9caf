"""LOCATION for towns with a Hungarian or Finnish case ending (``inflected_places``), and Arabic's glued prepositions
looked for in Arabic only (``script_places``): Persian glues a verb's prefix, not a preposition."""

from collections.abc import Callable

import pytest

from gateway.guardrails.inflected_places import stems
from gateway.guardrails.script_places import script_places


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("2026. 10. 11. 14:37 - Iroda: Szegeden lakom", "Szegeden"),  # superessive -en
        ("a tárgyalás Esztergomban lesz", "Esztergomban"),  # inessive -ban
        ("most Szolnokon vagyok", "Szolnokon"),  # superessive -on
        ("holnap Nyíregyházán leszek", "Nyíregyházán"),  # a lengthened final a: Nyíregyháza
        ("a tárgyalás Pozsonyban lesz", "Pozsonyban"),  # Hungarian's name of a large foreign city (Bratislava)
        ("olen nyt Rovaniemellä", "Rovaniemellä"),  # adessive, a final i turned e: Rovaniemi
        ("palaveri on Tallinnassa", "Tallinnassa"),  # a vowel added to a consonant: Tallinn
        ("asun Savonlinnassa", "Savonlinnassa"),
        ("toimisto on Helsingissä", "Helsingissä"),  # the nk/ng grade: Helsinki
        ("olemme Tampereella huomenna", "Tampereella"),  # a long vowel before the ending: Tampere
    ],
)
def test_inflected_towns(find_places: Callable[[str], list[str]], text: str, place: str) -> None:
    assert place in find_places(text)


@pytest.mark.parametrize(
    "text",
    [
        "Vanessa and Larissa met Hansen in Boston.",  # people and a place named as written
        "The Golden Dragon salon in Kingston, said Gordon Madison.",  # English words and names ending as cases do
        "Roman Common Stella Costa Cotton",
        "olvastam a Bunsen burner cikket",  # a larger place's other name ("Bunsi") only spelled plainly
    ],
)
def test_words_ending_like_cases_are_no_inflected_towns(find_places: Callable[[str], list[str]], text: str) -> None:
    assert not [place for place in find_places(text) if place not in ("Boston", "Kingston")]


def test_stems_undo_the_alternations() -> None:
    assert ("FI", "rovaniemi", False) in stems("Rovaniemellä")
    assert ("FI", "helsinki", False) in stems("Helsingissä")
    assert ("FI", "pori", False) in stems("Poriin")  # illative: a lengthened vowel and -n
    assert ("HU", "nyíregyháza", True) in stems("Nyíregyházán")
    assert stems("Stella") == []  # no stem of four letters


@pytest.mark.parametrize(
    ("text", "places"),
    [
        ("‏۱۱/۹/۲۰۲۶، ۰۸:۵۶ - دفتر: بسته رو بفرست", []),  # Persian "send it": a verb's prefix, no "in Farst"
        ("خونواده‌ام تو ایران زندگی می‌کنن", ["ایران"]),
        ("سافرت إلى بالمغرب", ["المغرب"]),  # Arabic: "in Morocco", the preposition glued
        ("נוסעים במוזמביק", ["מוזמביק"]),  # Hebrew: "to Mozambique"
    ],
)
def test_glued_prepositions_in_arabic_and_hebrew_only(text: str, places: list[str]) -> None:
    assert [text[start:end] for start, end in script_places(text)] == places
