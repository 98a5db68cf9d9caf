"""SamplingParams.validate: every check refuses its bad value with its own parameter, the first failing check in
order is the one reported, and values at the bounds pass."""

from __future__ import annotations

import math

import pytest

from engine.errors import InvalidRequestError
from engine.sampling_params import MAX_TOP_LOGPROBS, SamplingParams

BAD = [
    ({"max_tokens": 0}, "max_tokens"),
    ({"min_tokens": 5, "max_tokens": 4}, "min_tokens"),
    ({"min_tokens": -1}, "min_tokens"),
    ({"temperature": 2.5}, "temperature"),
    ({"temperature": math.nan}, "temperature"),
    ({"top_p": 0.0}, "top_p"),
    ({"top_k": -1}, "top_k"),
    ({"min_p": 1.5}, "min_p"),
    ({"repetition_penalty": 0.0}, "repetition_penalty"),
    ({"presence_penalty": -2.5}, "presence_penalty"),
    ({"frequency_penalty": 2.5}, "frequency_penalty"),
    ({"stop": ["x"] * 17}, "stop"),
    ({"stop": [""]}, "stop"),
    ({"logprobs": MAX_TOP_LOGPROBS + 1}, "top_logprobs"),
]


@pytest.mark.parametrize(("fields", "param"), BAD)
def test_each_bad_value_is_refused_with_its_parameter(fields: dict[str, object], param: str) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        SamplingParams(**fields)  # type: ignore[arg-type]
    assert refused.value.param == param


def test_the_first_failing_check_in_order_names_the_parameter() -> None:
    with pytest.raises(InvalidRequestError) as refused:
        SamplingParams(temperature=3.0, top_k=-1)
    assert refused.value.param == "temperature"


@pytest.mark.parametrize("fields", [
    {}, {"max_tokens": 1, "temperature": 0.0}, {"temperature": 2.0, "top_p": 1.0, "min_p": 1.0},
    {"presence_penalty": -2.0, "frequency_penalty": 2.0, "repetition_penalty": 2.0},
    {"stop": ["a"] * 16, "logprobs": 0}, {"logprobs": MAX_TOP_LOGPROBS, "min_tokens": 16},
])
def test_values_at_the_bounds_pass(fields: dict[str, object]) -> None:
    SamplingParams(**fields).validate()  # type: ignore[arg-type]


def test_a_value_of_the_wrong_type_fails_as_before() -> None:
    params = SamplingParams()
    params.temperature = None  # type: ignore[assignment]
    with pytest.raises(TypeError):
        params.validate()
