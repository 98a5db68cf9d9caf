"""NER's candidate words: ``_CAPITALISED_WORD``, whose look-behind stands after the capital, matches what the plain
rule (no word character or dot before the capital) matches."""

from __future__ import annotations

import random
import re

from gateway.guardrails.ner import _CAPITALISED_WORD, LOWER_LETTERS, UPPER_LETTERS

_PLAIN = re.compile(rf"(?<![\w.])[{UPPER_LETTERS}][{LOWER_LETTERS}]+(?:['’-][{UPPER_LETTERS}{LOWER_LETTERS}]+)?(?!\w)")


def test_same_matches_as_the_look_behind_first_rule() -> None:
    rng = random.Random(34)
    texts = ["Maria", ".Maria", "aMaria", "_Maria", "1Maria", " Łukasz O'Neil-Smith.Ana", "Ольга Ω", "Ab\nCd\tEf"]
    texts += ["".join(rng.choice("aAbZ.é É_1 -'’\n\tŁłΩω") for _ in range(rng.randrange(0, 40))) for _ in range(20000)]
    for text in texts:
        assert [m.span() for m in _CAPITALISED_WORD.finditer(text)] == [m.span() for m in _PLAIN.finditer(text)], text
