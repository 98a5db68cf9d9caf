"""``prefilters.AfterNone``: a leading one-character look-behind tested at each match gives the plain pattern's
matches, from any position."""

import random

import pytest

from gateway.guardrails.prefilters import AfterNone

PIECES = ["Maria", "Anna", "NOWAK", "x", " ", "\t", "-", "'", ".", "@", "A.", "smith", "é", "É", "1", "_"]


@pytest.mark.parametrize("not_after", [r"\w@.'’-", r"\w"])
@pytest.mark.parametrize("body", [r"([A-Z][a-z]+)[ \t]+([A-Z][a-z]+)", r"[a-z]{2,}", r"[A-Z]{2,} [A-Z]{2,}"])
def test_the_same_matches_as_the_look_behind(not_after: str, body: str) -> None:
    searched = AfterNone(not_after, body)
    rng = random.Random(11)
    for _ in range(1500):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
        for pos in range(len(text) + 1):
            plain, fast = searched.pattern.search(text, pos), searched.search(text, pos)
            assert (None if plain is None else plain.span()) == (None if fast is None else fast.span()), (text, pos)
