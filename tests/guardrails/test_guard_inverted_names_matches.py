"""``inverted_names._matches``: the pattern's matches, tried only at the head of a word before a comma, are its
``finditer``'s."""

import random
import re
from collections.abc import Iterable

import pytest

from gateway.guardrails import inverted_names

PIECES = ["Smith", "JONES", "O'Brien", ", ", ",\t", ",", " ", "Mary", "A.", "-", "'", "1", "_", ".", "x", "Ann", "é",
          "さん", "\n"]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["Smith, John Brown, Mary", "SHINOHARA, Toshihide", "x.Smith, John", "1Smith, John", "Smith,\tJohn A.",
     "O'Brien-Smith, Mary Ann, Lee, Ann", "担当はSOVICHA, Chhoungさん", ", John", "a, b, C, D"],
)  # fmt: skip
def test_the_same_matches_as_finditer(text: str) -> None:
    def spans(matches: Iterable[re.Match[str]]) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
        return [(m.span(), m.groupdict()) for m in matches]

    assert spans(inverted_names._matches(text)) == spans(inverted_names._INVERTED.finditer(text))


def test_the_same_matches_on_random_texts() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 14)))
        assert [m.span() for m in inverted_names._matches(text)] == [
            m.span() for m in inverted_names._INVERTED.finditer(text)
        ], text
