"""Dates of birth written the way each language writes dates."""

from __future__ import annotations

import calendar
import datetime as dt
import random

from faker.providers.date_time import de_DE, es_ES, fr_FR

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split

# Month names are part of each language's date format; the corpus writes four languages. English names are the
# standard library's (the C locale's), the others Faker's date-time providers', in lower case where the language
# writes them so.
MONTHS = {
    "en": list(calendar.month_name[1:]),
    "fr": [name.lower() for name in fr_FR.Provider.MONTH_NAMES.values()],
    "es": [name.lower() for name in es_ES.Provider.MONTH_NAMES.values()],
    "de": list(de_DE.Provider.MONTH_NAMES.values()),
}
# Numeric formats (strftime patterns) by language; the named-month forms are written below.
NUMERIC = {
    "en": ["%m/%d/%Y", "%Y-%m-%d", "%d/%m/%Y", "%m-%d-%Y"],
    "fr": ["%d/%m/%Y", "%Y-%m-%d", "%d.%m.%Y"],
    "es": ["%d/%m/%Y", "%d-%m-%Y", "%Y-%m-%d"],
    "de": ["%d.%m.%Y", "%Y-%m-%d"],
}


def _named(date: dt.date, lang: str, rng: random.Random) -> tuple[str, str]:
    month = MONTHS[lang][date.month - 1]
    if lang == "en":
        return rng.choice([(f"{month} {date.day}, {date.year}", "en:month-day-year"),
                           (f"{date.day} {month} {date.year}", "en:day-month-year"),
                           (f"{month[:3]} {date.day} {date.year}", "en:mon-day-year")])  # fmt: skip
    if lang == "fr":
        return f"{'1er' if date.day == 1 else date.day} {month} {date.year}", "fr:named"
    if lang == "es":
        return f"{date.day} de {month} de {date.year}", "es:named"
    return f"{date.day}. {month} {date.year}", "de:named"


def date_of_birth(rng: random.Random, split: str, lang: str = "en") -> Pii:
    def make() -> tuple[str, str]:
        date = dt.date(1935, 1, 1) + dt.timedelta(days=rng.randrange(365 * 72))
        if rng.random() < 0.4:
            return _named(date, lang, rng)
        pattern = rng.choice(NUMERIC[lang])
        return date.strftime(pattern), pattern

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")
