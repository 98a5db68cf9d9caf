"""Which split a value belongs to: a hash of the value, so that no value of `dev` ever appears in `test`.

Every value the corpus labels (a name, a city, a card number, a token) is assigned to exactly one split by the
first byte of the SHA-256 of its normalised form (case-folded, letters and digits only, so that ``4111 1111 ...``
and ``4111-1111-...`` or ``Kraków`` and ``kraków`` land in the same split). Generators draw from pools filtered by
this rule, and draw random values again until one falls in their split.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import TypeVar

SPLITS = ("dev", "test")
T = TypeVar("T")


def normalise(value: str) -> str:
    return "".join(char for char in value.casefold() if char.isalnum())


def split_of(value: str) -> str:
    return SPLITS[hashlib.sha256(normalise(value).encode()).digest()[0] % 2]


def in_split(values: Iterable[str], split: str) -> list[str]:
    """The values of `values` that belong to `split`, in their order, without duplicates."""
    return list(dict.fromkeys(v for v in values if split_of(v) == split))


def draw_in_split(make: Callable[[], T], split: str, key: Callable[[T], str] = str) -> T:
    """Call `make` until it returns a value whose `key` belongs to `split` (half of the draws do)."""
    for _ in range(10_000):
        value = make()
        if split_of(key(value)) == split:
            return value
    raise RuntimeError("no value of the split after 10000 draws")
