"""The place rules' overlap question (``places._Overlaps``) answers as the pairwise check it replaces does."""

from __future__ import annotations

import random

import pytest
from presidio_analyzer import RecognizerResult

from gateway.guardrails.places import _Overlaps


def _pairwise(taken: list[RecognizerResult], start: int, end: int) -> bool:
    return any(start < other.end and other.start < end for other in taken)


@pytest.mark.parametrize("seed", range(20))
def test_overlaps_agrees_with_the_pairwise_check(seed: int) -> None:
    rng = random.Random(seed)
    taken = []
    for _ in range(rng.randrange(0, 40)):
        start = rng.randrange(0, 200)
        taken.append(RecognizerResult("LOCATION", start, start + rng.randrange(1, 30), 0.8))
    overlaps = _Overlaps(taken)
    for _ in range(300):
        start = rng.randrange(0, 240)
        end = start + rng.randrange(1, 30)
        assert overlaps(start, end) == _pairwise(taken, start, end), (start, end)


def test_touching_spans_do_not_overlap() -> None:
    overlaps = _Overlaps([RecognizerResult("LOCATION", 10, 20, 0.8), RecognizerResult("LOCATION", 0, 50, 0.8)])
    assert overlaps(50, 60) is False
    assert overlaps(49, 60) is True
    assert _Overlaps([])(0, 5) is False
