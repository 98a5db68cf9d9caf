"""A city's own name spelled with other diacritics, as its geonames alternate names hold it ("Wûrzburg" for Würzburg,
"Sèversk" for Seversk, "Khān Ābād" for Khanabad): written capitalised, it counts as the city's name does, after a
form's label or in running text with no location word. A spelling whose accented word is a person's name
("Rodríguez", a Philippine town's alternate name) counts only with a cue, as before."""

from collections.abc import Callable

import pytest

from gateway.guardrails.places import own_spellings


@pytest.mark.parametrize(
    ("text", "place"),
    [("Wohnort: Wûrzburg", "Wûrzburg"),
     ("Lugar de residencia: Sèversk", "Sèversk"),
     ("Prices in Khān Ābād went up again this month.", "Khān Ābād"),
     ("Khān Ābād", "Khān Ābād")],
)  # fmt: skip
def test_a_capitalised_accented_spelling_of_a_city_counts_as_its_name(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["Ana Rodríguez called about the invoice",  # a surname that is also a town's alternate name
     "Cícero Souza signed the form",  # a given name
     "Thanks, Florência Alves",
     "Nice to meet you"],  # a city's name that is an English word, no accent: unchanged
)  # fmt: skip
def test_a_persons_name_spelled_like_a_city_is_no_place(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


def test_own_spellings_hold_accented_spellings_only_not_persons_names() -> None:
    spellings = own_spellings()
    assert {"wûrzburg", "sèversk", "khān ābād"} <= spellings.keys()
    assert "würzburg" not in spellings  # the gazetteer's own name
    assert not {"rodríguez", "cícero", "florência"} & spellings.keys()
    assert all(not key.isascii() for key in spellings)
