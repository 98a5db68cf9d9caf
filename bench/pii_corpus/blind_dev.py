"""What the blind dev-side corpora (dev-15 to dev-20) share: a language drawn by weight, a template written out
with its fields' values, and a locale's Faker seeded from the case being drawn.

It imports no phrase bank (``phrases``, ``phrases_heldout``, ``dev_scaffold``): a blind split's texts are its own,
and a helper that reached a phrase bank would let another split's wording in. The draws are those each corpus made
on its own before (one ``rng.random()`` per language, nothing drawn while filling), so the corpora are unchanged.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from functools import cache

from faker import Faker

from bench.pii_corpus.model import Decoy, Pii, TextBuilder

# A template's escaped braces: "{{" writes "{" and "}}" writes "}".
_ESCAPES = ("{{", "}}")


def weighted_language(rng: random.Random, shares: Mapping[str, float], rest: str) -> str:
    """One language of `shares` (language: share of the texts, in the mapping's order), or `rest` when the roll
    passes all of them (the shares add up to less than one)."""
    roll, total = rng.random(), 0.0
    for lang, share in shares.items():
        total += share
        if roll < total:
            return lang
    return rest


def fill(out: TextBuilder, template: str, field: re.Pattern[str],
         item: Callable[[re.Match[str]], Pii | Decoy | str]) -> None:  # fmt: skip
    """`template` written to `out`: the text between the matches of `field` as it is, an escaped brace as one brace,
    and each field as its item (a labelled value, a decoy, or plain text)."""
    at = 0
    for match in field.finditer(template):
        out.text(template[at : match.start()])
        at = match.end()
        if match.group(0) in _ESCAPES:
            out.text(match.group(0)[0])
            continue
        value = item(match)
        if isinstance(value, str):
            out.text(value)
        else:
            out.value(value)
    out.text(template[at:])


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def case_faker(locale: str, rng: random.Random) -> Faker:
    """The locale's Faker, seeded from the case's `rng` (each case draws the same values whatever came before)."""
    fake = _faker(locale)
    fake.seed_instance(rng.getrandbits(32))
    return fake


def locale_faker(locale: str) -> Faker:
    """The locale's one Faker, as `case_faker` last seeded it (for a draw that follows a case's seeding)."""
    return _faker(locale)
