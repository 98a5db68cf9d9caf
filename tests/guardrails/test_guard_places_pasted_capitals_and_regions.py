"""Lower-case chat with pasted capitals, and a region's name after a preposition any noun takes.

A line typed in lower case stays one when it holds what chat pastes with its capitals (an IBAN, a token, an acronym,
a date a form wrote: "June 4, 1939"): a place in it with no cue counts as in a line with no capital at all. A
capitalised word ("Maria", an elided article's "L'appel") or a line of code keeps the line out. A country's
subdivision whose name is no word of a chat language counts in lower case after French and Spanish "en" ("vit en
occitanie"), where a town of its size does not ("en primavera") nor a region named like a word ("en marche")."""

from collections.abc import Callable

import pytest


@pytest.mark.parametrize(
    ("text", "place"),
    [("send the money to NO3828821189928 and uzbekistan or somewhere near there", "uzbekistan"),
     ("pazardzhik or somewhere near there and pw is github_pat_XaxKDOmzSFPEBsyoX", "pazardzhik"),
     ("pazardzhik or somewhere near there and bday is June 4, 1939", "pazardzhik"),
     ("ok my SSN is 123-45-6789 and uzbekistan or somewhere near there", "uzbekistan")],
)  # fmt: skip
def test_pasted_capitals_leave_a_line_typed_in_lower_case(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert find_places(text) == [place]


@pytest.mark.parametrize(
    "text",
    ["pazardzhik or somewhere near there and Maria says hi",  # a capitalised word: the line is not all lower case
     "pazardzhik or somewhere near there in June",  # a month with no day number is a word the writer capitalised
     "[08:59] mreyes: L'appel a duré 441s.",  # "L'appel": capitalised; "duré" stays a French word
     "__CURSOR=s=1a2c4d32694ca4e7c1935e945e77389c;i=caad"],  # a line of code, capitals and all
)  # fmt: skip
def test_a_capitalised_word_or_code_keeps_the_line_out(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []


@pytest.mark.parametrize(
    ("text", "place"),
    [("ma cousine vit en occitanie depuis juillet", "occitanie"),
     ("ma cousine vit en nidwalden depuis novembre", "nidwalden"),
     ("je viens de lyon en glarus et toi", "glarus"),
     ("mi prima vive en chaco desde mayo", "chaco")],
)  # fmt: skip
def test_a_region_named_like_no_word_counts_after_en(
    find_places: Callable[[str], list[str]], text: str, place: str
) -> None:
    assert place in find_places(text)


@pytest.mark.parametrize(
    "text",
    ["le train est en marche",  # Marche, an Italian region, and a French word
     "on se voit en centre ville",  # Centre, a French region
     "en lugar de eso",  # Lugar, a Spanish word and a region
     "nos vemos en primavera"],  # a town of a few thousand, no region
)  # fmt: skip
def test_a_region_named_like_a_word_needs_more_than_en(find_places: Callable[[str], list[str]], text: str) -> None:
    assert find_places(text) == []
