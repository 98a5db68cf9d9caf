"""Calendar months (UTC) as integers, the period of a monthly token budget.

The same arithmetic runs inside Redis (see lua.py), where no date library exists; tests compare the two.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

MS_PER_DAY = 86_400_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def month_index(now_ms: int) -> int:
    """year * 12 + (month - 1) of the UTC calendar month containing `now_ms`."""
    day = date.fromordinal(_EPOCH_ORDINAL + now_ms // MS_PER_DAY)
    return day.year * 12 + day.month - 1


def month_start_ms(index: int) -> int:
    year, month0 = divmod(index, 12)
    return int(datetime(year, month0 + 1, 1, tzinfo=UTC).timestamp()) * 1000


def ms_until_next_month(now_ms: int) -> int:
    return month_start_ms(month_index(now_ms) + 1) - now_ms


def month_label(index: int) -> str:
    year, month0 = divmod(index, 12)
    return f"{year:04d}-{month0 + 1:02d}"
