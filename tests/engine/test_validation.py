"""The prompt's token ids are checked against the vocabulary before a request reaches the scheduler."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import InvalidRequestError
from engine.request import EngineRequest
from engine.sampling_params import SamplingParams
from engine.validation import validate_request

VOCAB = 100


def _check(ids: list[Any]) -> None:
    validate_request(EngineRequest("r", ids, SamplingParams(max_tokens=4)), max_model_len=64, vocab_size=VOCAB)


@pytest.mark.parametrize("ids", [[0, 5, VOCAB - 1], [7], [True, 3]])
def test_ids_in_the_vocabulary_pass(ids: list[Any]) -> None:
    _check(ids)


@pytest.mark.parametrize("ids", [[1, VOCAB], [-1, 2], [1, 2.0], [1, "2"], [1, None], [VOCAB + 5, True]])
def test_ids_outside_the_vocabulary_or_not_integers_fail(ids: list[Any]) -> None:
    with pytest.raises(InvalidRequestError, match=r"integers in the vocabulary \[0, 100\)") as raised:
        _check(ids)
    assert raised.value.param == "prompt"
