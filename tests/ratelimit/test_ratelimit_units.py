"""Pure pieces: limit validation, calendar months, bucket arithmetic edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.ratelimit import RateLimits
from gateway.ratelimit.accounting import MAX_REFILL_MS, UNIT, bucket_status, refill, settle_tokens
from gateway.ratelimit.calendar import month_index, month_label, month_start_ms, ms_until_next_month
from gateway.ratelimit.limits import MAX_PER_MINUTE

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "kwargs",
    [{"requests_per_minute": -1}, {"tokens_per_minute": MAX_PER_MINUTE + 1}, {"monthly_token_budget": -5}],
)
def test_out_of_range_limits_are_rejected(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be between"):
        RateLimits(**kwargs)


@pytest.mark.parametrize("value", [1.5, "10", True])
def test_non_integer_limits_are_rejected(value: object) -> None:
    with pytest.raises(TypeError):
        RateLimits(requests_per_minute=value)  # type: ignore[arg-type]


def test_unlimited_means_no_dimension_set() -> None:
    assert RateLimits(fail_open=True).unlimited
    assert not RateLimits(max_concurrent_requests=1).unlimited


@given(st.integers(min_value=-2_208_988_800_000, max_value=7_258_118_400_000))
def test_month_index_matches_datetime(ms: int) -> None:
    moment = EPOCH + timedelta(milliseconds=ms)
    index = month_index(ms)
    assert index == moment.year * 12 + moment.month - 1
    assert month_label(index) == f"{moment.year:04d}-{moment.month:02d}"
    assert month_start_ms(index) <= ms < month_start_ms(index + 1)
    assert ms_until_next_month(ms) == month_start_ms(index + 1) - ms


def test_refill_is_capped_and_ignores_backward_time() -> None:
    assert refill(None, None, 5, 10) == 10 * UNIT  # never seen: full
    assert refill(0, 1000, 1000 + 6_000, 10) == 60_000  # 6 s at 10/min: one request
    assert refill(0, 1000, 500, 10) == 0
    assert refill(-10 * UNIT, 0, 10 * MAX_REFILL_MS, 10) == 10 * UNIT  # debt repaid, then full, never more
    assert refill(123, 0, 1, None) is None


def test_settle_refunds_within_capacity_and_bounds_debt() -> None:
    assert settle_tokens(0, 10, reserved=5, used=2) == 3 * UNIT
    assert settle_tokens(10 * UNIT, 10, reserved=5, used=0) == 10 * UNIT
    assert settle_tokens(0, 10, reserved=0, used=1000) == -10 * UNIT
    assert settle_tokens(None, None, reserved=5, used=1) is None


def test_bucket_status_floors_remaining_and_rounds_reset_up() -> None:
    status = bucket_status(UNIT + 1, 7)
    assert (status.limit, status.remaining) == (7, 1)
    assert status.reset_ms == -(-(7 * UNIT - UNIT - 1) // 7)
    assert bucket_status(-UNIT, 7).remaining == 0
