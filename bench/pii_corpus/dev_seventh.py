"""A seventh `dev`-side corpus: values from sources no other split draws, in contexts none of them writes, built
before any detector was run on it, so that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-7 --skip-throughput [--misses FILE]

- PERSON: Greek, Russian, Ukrainian, Bulgarian, Armenian and Georgian names of Faker's locales written in Latin
  letters (``romanise``: "Ermolaos Rodis", "Volodymyr Huk", "Gor Kalantaryan", "Guram Zhghenti"); Russian ones also
  with a patronymic, first or last ("Sidorov Ivan Petrovich"); lower case in transcribed calls.
- LOCATION: towns of Faker's Azerbaijani, Bangladeshi, Vietnamese and South African lists, Armenian, Georgian and
  Greek towns romanised, and country names in Danish, Czech, Hungarian, Indonesian, Slovak and Croatian.
- DATE_OF_BIRTH: dates read out in a call ("may third nineteen eighty seven"), Japanese (``1987年5月3日``,
  ``1987/05/03``), Hungarian (``1987. május 3.``), Finnish (``3.5.1987``), Indonesian, Danish and Norwegian named
  months, and the compact ``19870503`` of vCards.
- STREET_ADDRESS: Faker locales no other split draws (vi_VN, az_AZ, en_MS, en_BD, en_PH, fr_CA, es, de, zu_ZA) and
  Greek and Russian street addresses romanised.
- The other types: the dev generators of every split.

Contexts: phone calls transcribed without punctuation, SMS and WhatsApp exports in English, Indonesian and Danish,
text extracted from PDFs (hard line breaks, hyphenated words, page headers, a value broken across two lines),
vCards, iCalendar invites, git commit logs, LDAP entries (LDIF), SOAP envelopes and semicolon-separated exports with
Danish, Finnish and Hungarian headers. Hard negatives beside the shared decoys: dates that are no date of birth
(``other_date``), things named after people (algorithms, products, prizes: ``person_named``) and after places
(``place_named``), and identifiers of other shapes (ISBNs, ticket keys, employee numbers: ``other_id``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from functools import cache

from faker import Faker
from stdnum import ean, luhn

from bench.pii_corpus import phrases_dev_seventh as phrasing
from bench.pii_corpus.contexts import Context, Item, field_names, with_extra_decoys
from bench.pii_corpus.dev_scaffold import clause, generate_dev_split
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.person_names import is_written_name
from bench.pii_corpus.romanise import romanise
from bench.pii_corpus.seeded_fakers import SeededFakers

NAME = "dev-7"
SEED = 1732050
ENTITIES_PER_TYPE = 250
# Faker locale -> the script its names are written in.
NAME_LOCALES = {"el_GR": "greek", "ru_RU": "russian", "uk_UA": "ukrainian", "bg_BG": "bulgarian",
                "hy_AM": "armenian", "ka_GE": "georgian"}  # fmt: skip
ADDRESS_LOCALES = ("vi_VN", "az_AZ", "en_MS", "en_BD", "en_PH", "fr_CA", "es", "de", "zu_ZA", "el_GR", "ru_RU")
# Faker's lists of real towns, by locale: the list's name.
TOWN_LISTS = {"az_AZ": "cities", "en_BD": "cities", "vi_VN": "cities", "zu_ZA": "cities", "hy_AM": "cities",
              "ka_GE": "city_names", "el_GR": "cities", "id_ID": "cities", "hu_HU": "real_city_names"}  # fmt: skip
COUNTRY_LOCALES = ("da_DK", "cs_CZ", "hu_HU", "id_ID", "sk_SK", "hr_HR")
ROMANISED_ADDRESSES = {"el_GR": "greek", "ru_RU": "russian"}
# Vietnamese towns come with their kind ("thành phố Huế", "TP. Hà Nội"); the name is what follows.
_TOWN_PREFIX = re.compile(r"^(?:thành phố|Thành phố|TP\.|tỉnh|Tỉnh)\s+")

# --- values -------------------------------------------------------------------------------------------------------

_faker = SeededFakers(NAME, SEED)


def _romanised_name(rng: random.Random, locale: str, shape: str) -> str:
    """One name of `locale` in Latin letters, in `shape`."""
    fake, script, female = _faker(locale), NAME_LOCALES[locale], rng.random() < 0.5
    first = romanise(fake.first_name_female() if female else fake.first_name_male(), script)
    last = romanise(fake.last_name_female() if female else fake.last_name_male(), script)
    if shape == "first-last":
        return f"{first} {last}"
    middle = romanise(fake.middle_name_female() if female else fake.middle_name_male(), script)
    return f"{last} {first} {middle}" if shape == "last-first-patronymic" else f"{first} {middle} {last}"


def person(rng: random.Random, split: str, context: Context) -> Pii:
    # The locale and shape are drawn once, then names until one is of the split: each keeps its share, though names
    # of three words (a patronymic) are of the split less often.
    locale = rng.choice(sorted(NAME_LOCALES))
    shape = "first-last"
    if locale == "ru_RU" and rng.random() < 0.5:
        shape = rng.choice(["last-first-patronymic", "first-patronymic-last"])
    for _ in range(10_000):
        value = _romanised_name(rng, locale, shape)
        if is_written_name(value) and name_in_split(value, split):
            return Pii("PERSON", value, f"person:{locale}:{shape}")
    raise RuntimeError("no name of the split after 10000 draws")


@dataclass(frozen=True)
class _Places:
    towns: list[tuple[str, str]]  # (town, locale)
    countries: list[tuple[str, str]]


def _town(name: str, locale: str) -> str:
    name = _TOWN_PREFIX.sub("", name)
    script = {"hy_AM": "armenian", "ka_GE": "georgian", "el_GR": "greek"}.get(locale)
    return romanise(name, script) if script else name


@cache
def _places() -> _Places:
    # Faker's lists, sorted: some are built from sets, whose order changes with the process's hash seed.
    def listed(locale: str, attribute: str) -> list[tuple[str, str]]:
        provider = next(p for p in Faker(locale).providers if type(p).__module__.startswith("faker.providers.address"))
        return [(n, locale) for n in sorted(set(getattr(provider, attribute))) if isinstance(n, str)]

    towns = [(_town(n, locale), locale) for locale, name in TOWN_LISTS.items() for n, _ in listed(locale, name)]
    countries = [pair for locale in COUNTRY_LOCALES for pair in listed(locale, "countries")]
    keep = set(in_split([t for t, _ in towns + countries], "dev"))
    return _Places([p for p in towns if p[0] in keep], [p for p in countries if p[0] in keep])


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places = _places()
    if rng.random() < 0.7:
        town, locale = rng.choice(places.towns)
        return Pii("LOCATION", town, f"location:town:{locale}")
    country, locale = rng.choice(places.countries)
    return Pii("LOCATION", country, f"location:country:{locale}")


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    locale = rng.choice(ADDRESS_LOCALES)
    fake = _faker(locale)

    def make() -> str:
        # Azerbaijani capitals' dotted İ as most systems store it (its lower case would be "i" and a combining dot)
        street = " ".join(fake.street_address().split()).replace(" ,", ",").replace("İ", "I")
        if locale in ROMANISED_ADDRESSES:
            street = romanise(street, ROMANISED_ADDRESSES[locale])
        return street if any(c.isdigit() for c in street) else f"{street} {rng.randint(1, 400)}"

    value = draw_in_split(make, split)
    return Pii("STREET_ADDRESS", value, f"address:{locale}" + (":romanised" if locale in ROMANISED_ADDRESSES else ""))


_ONES = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
         "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")  # fmt: skip
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_ORDINALS = {1: "first", 2: "second", 3: "third", 5: "fifth", 8: "eighth", 9: "ninth", 12: "twelfth"}
ENGLISH_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                  "november", "december")  # fmt: skip
MONTHS = {
    "hu": ("január", "február", "március", "április", "május", "június", "július", "augusztus", "szeptember",
           "október", "november", "december"),
    "id": ("Januari", "Februari", "Maret", "April", "Mei", "Juni", "Juli", "Agustus", "September", "Oktober",
           "November", "Desember"),
    "da": ("januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november",
           "december"),
    "no": ("januar", "februar", "mars", "april", "mai", "juni", "juli", "august", "september", "oktober", "november",
           "desember"),
}  # fmt: skip


def _spoken_number(n: int) -> str:
    if n < 20:
        return _ONES[n]
    return f"{_TENS[n // 10]} {_ONES[n % 10]}".strip()


def _spoken_ordinal(n: int) -> str:
    if n in _ORDINALS:
        return _ORDINALS[n]
    if n < 20:
        return _ONES[n] + "th"
    if n % 10 == 0:
        return _TENS[n // 10][:-1] + "ieth"
    return f"{_TENS[n // 10]} {_spoken_ordinal(n % 10)}"


def _spoken_year(y: int) -> str:
    if y >= 2000:
        return "two thousand" + (f" and {_spoken_number(y - 2000)}" if y > 2000 else "")
    return f"{_spoken_number(y // 100)} {'oh ' if y % 100 < 10 else ''}{_spoken_number(y % 100)}".strip()


def _date_form(date: dt.date, style: str, rng: random.Random) -> tuple[str, str]:
    """(text, form) of `date` as `style` (a context's or language's way) writes it."""
    y, m, d = date.year, date.month, date.day
    if style == "voice":
        month, day, year = ENGLISH_MONTHS[m - 1], _spoken_ordinal(d), _spoken_year(y)
        return rng.choice([(f"{month} {day} {year}", "voice:month-dth-year"),
                           (f"the {day} of {month} {year}", "voice:the-dth-of-month-year")])  # fmt: skip
    if style == "vcard":
        return rng.choice([(f"{y}{m:02d}{d:02d}", "vcard:compact"), (date.isoformat(), "vcard:iso")])
    if style in MONTHS:
        month = MONTHS[style][m - 1]
        named = {"hu": f"{y}. {month} {d}.", "id": f"{d} {month} {y}", "da": f"{d}. {month} {y}",
                 "no": f"{d}. {month} {y}"}[style]  # fmt: skip
        numeric = {"hu": f"{y}.{m:02d}.{d:02d}.", "id": f"{d:02d}-{m:02d}-{y}", "da": f"{d:02d}.{m:02d}.{y}",
                   "no": f"{d:02d}.{m:02d}.{y}"}[style]  # fmt: skip
        return rng.choice([(named, f"{style}:named-month"), (numeric, f"{style}:numeric")])
    return rng.choice([
        (f"{y}年{m}月{d}日", "ja:kanji"), (f"{y}/{m:02d}/{d:02d}", "ja:y/mm/dd"), (f"{d}.{m}.{y}", "fi:d.m.y"),
        (f"{d}. {MONTHS['no'][m - 1]} {y}", "no:named-month"), (f"{y}. {MONTHS['hu'][m - 1]} {d}.", "hu:named-month"),
    ])  # fmt: skip


def _style(context: Context) -> str:
    if context.name == "voice-transcript":
        return "voice"
    if context.name == "vcard":
        return "vcard"
    if context.name.startswith("sms-"):
        return context.lang
    if context.name.startswith("semicolon-csv-"):
        return {"da": "da", "hu": "hu"}.get(context.lang, "other")
    return "other"


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        date = dt.date(1938, 1, 1) + dt.timedelta(days=rng.randrange(365 * 68))
        return _date_form(date, _style(context), rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


# --- hard negatives of this corpus ----------------------------------------------------------------------------

PERSON_NAMED = ("Dijkstra's algorithm", "Kalman filter", "Levenshtein distance", "Bloom filter",
                "Fibonacci heap", "Nobel Prize", "Pulitzer Prize", "Ferrari Roma", "Porsche Cayenne",
                "Tesla Powerwall", "Hilton Honors", "Marriott Bonvoy", "Bosch dishwasher", "Philips Hue",
                "Ritz crackers", "Hamming code", "Gauss-Seidel method", "Kaplan-Meier curve", "Turing Award",
                "Fields Medal")  # fmt: skip
PLACE_NAMED = ("Brussels sprouts", "Dijon mustard", "Berliner Weisse", "Stockholm syndrome", "Geneva Convention",
               "Oxford comma", "Panama Papers", "Turkish Airlines", "Swiss Re", "Deutsche Bank", "Hamburg Süd",
               "Copenhagen Pride", "Tokyo Stock Exchange", "Madeira cake", "Bordeaux blend", "Helsinki Accords",
               "Vienna sausages", "Lisbon Treaty", "Marseille soap", "Sofia Airport")  # fmt: skip
EXTRA_KINDS = ("other_date", "person_named", "place_named", "other_id")


def _isbn(rng: random.Random) -> str:
    """An ISBN-13 (its EAN check digit right) that fails Luhn: no card number, whatever a detector strips."""
    while True:
        body = "978" + "".join(rng.choice("0123456789") for _ in range(9))
        if not luhn.is_valid(body + ean.calc_check_digit(body)):
            return f"ISBN {body[:3]}-{body[3]}-{body[4:8]}-{body[8:]}-{ean.calc_check_digit(body)}"


def _other_id(rng: random.Random) -> str:
    return rng.choice([
        _isbn(rng),
        f"{rng.choice(['PAY', 'OPS', 'HR', 'SEC'])}-{rng.randint(100, 9999)}",
        f"E{rng.randrange(10**6):06d}",
        f"INC{rng.randrange(10**7):07d}",
    ])  # fmt: skip


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    kind = rng.choice(EXTRA_KINDS)
    if kind == "other_date":
        date = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 11))
        return Decoy(kind, _date_form(date, _style(context), rng)[0])
    if kind == "person_named":
        return Decoy(kind, rng.choice(PERSON_NAMED))
    if kind == "place_named":
        return Decoy(kind, rng.choice(PLACE_NAMED))
    return Decoy(kind, _other_id(rng))


# --- contexts -------------------------------------------------------------------------------------------------------


def voice_transcript(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text(f"agent: {rng.choice(phrasing.AGENT_LINES)}\n")
    for item in items:
        builder.text("caller: ").template(clause(item, rng, phrasing.VOICE), item)
        builder.text(f"\nagent: {rng.choice(phrasing.AGENT_LINES)}\n")
    builder.text("caller: no thats all thanks")


def sms_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A WhatsApp or SMS export: a person in the case is the sender of the first line, as the phone names them."""
    whatsapp = rng.random() < 0.5
    day = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(700))
    senders = [i for i in items if isinstance(i, Pii) and i.type == "PERSON"][:1]
    rest = [i for i in items if i not in senders]
    minute = rng.randrange(8 * 60, 20 * 60)
    for index, item in enumerate([*senders, *rest]):
        minute += rng.randint(1, 9)
        stamp = f"{day:%d/%m/%Y}, {minute // 60:02d}:{minute % 60:02d}" if whatsapp else \
            f"[{day:%Y-%m-%d} {minute // 60:02d}:{minute % 60:02d}]"  # fmt: skip
        builder.text(("\n" if index else "") + stamp + (" - " if whatsapp else " "))
        if item in senders:
            builder.value(item).text(": " + {"en": "ok", "id": "oke", "da": "ok tak"}[lang])
            continue
        builder.text(rng.choice(["Me", "Mum", "Work", "+" + str(rng.randint(10**9, 10**10))]) + ": ")
        builder.template(clause(item, rng, phrasing.CLAUSES[lang]), item)


# Types written in words, which a PDF's text layer breaks across lines as it does any words (digit groups of numbers
# are kept on one line here: a printed number broken apart is a different problem).
_WORDED = ("PERSON", "LOCATION", "STREET_ADDRESS", "DATE_OF_BIRTH")


def _wrap_into(builder: TextBuilder, tokens: list[str | Item], rng: random.Random, width: int) -> None:
    """Tokens laid out as a PDF's text layer gives them: lines of `width`, long words hyphenated at the line's end,
    a value of several words (a name, place, address or date) sometimes broken across two lines (its gold value then
    holds the line break)."""
    column = 0
    for token in tokens:
        text = token if isinstance(token, str) else token.value
        if token in (".", ","):  # punctuation sticks to what it follows
            builder.text(text)
            column += 1
            continue
        if column and column + 1 + len(text) > width:
            cut = width - column - 2  # what fits after the space, with the hyphen
            if isinstance(token, str) and token.isalpha() and 3 <= cut <= len(token) - 3:
                builder.text(f" {token[:cut]}-\n{token[cut:]}")
                column = len(token) - cut
                continue
            if isinstance(token, Pii) and token.type in _WORDED and " " in token.value and rng.random() < 0.5:
                head, _, tail = token.value.partition(" ")
                builder.text(" ").value(Pii(token.type, f"{head}\n{tail}", token.subtype + ":line-broken"))
                column = len(tail)
                continue
            builder.text("\n")
            column = 0
        elif column:
            builder.text(" ")
            column += 1
        if isinstance(token, str):
            builder.text(token)
        else:
            builder.value(token)
        column += len(text)


def pdf_extract(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    page, pages = rng.randint(1, 4), rng.randint(4, 9)
    builder.text(f"{rng.choice(['CONFIDENTIAL', 'Claims Department', 'Tenancy Review'])}    Page {page} of {pages}\n\n")
    tokens: list[str | Item] = []
    for item in items:
        before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
        tokens += [*before.split(), item, *after.split(), "."]
    _wrap_into(builder, tokens, rng, rng.choice([52, 60, 68]))
    builder.text(f"\n\n\f{rng.choice(['Ref. A-', 'Form C-'])}{rng.randint(10, 99)}  {page}/{pages}")


def vcard(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text("BEGIN:VCARD\nVERSION:3.0\n")
    for key, item in zip(field_names(items, rng, phrasing.VCARD), items, strict=True):
        if key.startswith("ADR"):
            builder.text(f"{key}:;;").value(item).text(";;;;\n")
        else:
            builder.text(f"{key}:").value(item).text("\n")
    builder.text(f"REV:{rng.randint(2019, 2025)}0{rng.randint(1, 9)}1{rng.randint(0, 9)}T120000Z\nEND:VCARD")


def ics_invite(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    start = dt.datetime(2025, 1, 6, 9) + dt.timedelta(days=rng.randrange(400), minutes=30 * rng.randrange(16))
    builder.text("BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//Acme//Calendar 4.2//EN\nBEGIN:VEVENT\n")
    builder.text(f"UID:{rng.getrandbits(64):016x}@calendar.acme.example\nDTSTART:{start:%Y%m%dT%H%M%S}\n")
    builder.text(f"SUMMARY:{rng.choice(['Quarterly review', 'Site visit', 'Onboarding', 'Claim call'])}\n")
    description: list[Item] = []
    for item in items:
        if isinstance(item, Pii) and item.type == "PERSON":
            builder.text(f"{rng.choice(['ORGANIZER', 'ATTENDEE;ROLE=REQ-PARTICIPANT'])};CN=").value(item)
            builder.text(":mailto:calendar@acme.example\n")
        elif isinstance(item, Pii) and item.type in ("LOCATION", "STREET_ADDRESS") and rng.random() < 0.6:
            builder.text("LOCATION:").value(item).text("\n")
        else:
            description.append(item)
    if description:
        builder.text("DESCRIPTION:")
        for index, item in enumerate(description):
            builder.text("\\n" if index else "").template(clause(item, rng, phrasing.CLAUSES["en"]), item)
        builder.text("\n")
    builder.text("END:VEVENT\nEND:VCALENDAR")


def git_log(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    people = [i for i in items if isinstance(i, Pii) and i.type == "PERSON"]
    rest = [i for i in items if i not in people]
    stamp = dt.datetime(2024, 1, 1) + dt.timedelta(minutes=rng.randrange(600 * 24 * 60))
    builder.text(f"commit {rng.getrandbits(160):040x}\nAuthor: ")
    if people:
        builder.value(people[0]).text(f" <{rng.choice(['dev', 'noreply', 'ci'])}@acme.example>\n")
    else:
        builder.text("release-bot <ci@acme.example>\n")
    builder.text(f"Date:   {stamp:%a %b %-d %H:%M:%S %Y} +0{rng.randint(0, 3)}00\n\n")
    builder.text(f"    {rng.choice(['Fix fixture data', 'Update seed records', 'Scrub test dump'])}\n\n")
    for item in rest:
        builder.text("    ").template(clause(item, rng, phrasing.CLAUSES["en"]), item).text("\n")
    for item in people[1:]:
        builder.text(f"    {rng.choice(['Signed-off-by', 'Co-authored-by', 'Reviewed-by'])}: ").value(item)
        builder.text(" <review@acme.example>\n")


def ldif(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text(f"dn: uid=u{rng.randrange(10**5):05d},ou=people,dc=acme,dc=example\n")
    builder.text("objectClass: inetOrgPerson\n")
    for key, item in zip(field_names(items, rng, phrasing.LDAP), items, strict=True):
        builder.text(f"{key}: ").value(item).text("\n")
    builder.text(f"uidNumber: {rng.randint(10000, 60000)}")


def soap_xml(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    operation = rng.choice(["UpdatePartyRequest", "OpenAccountRequest", "SubmitClaimRequest"])
    builder.text('<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" '
                 'xmlns:ns2="urn:acme:party:v3">\n  <soapenv:Header/>\n  <soapenv:Body>\n'
                 f"    <ns2:{operation}>\n")  # fmt: skip
    for key, item in zip(field_names(items, rng, phrasing.SOAP), items, strict=True):
        builder.text(f"      <ns2:{key}>").value(item).text(f"</ns2:{key}>\n")
    builder.text(f"    </ns2:{operation}>\n  </soapenv:Body>\n</soapenv:Envelope>")


def semicolon_csv(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    headers = field_names(items, rng, phrasing.CSV_HEADERS[lang], suffix=" 2")
    builder.text(";".join(["Nr.", *headers, "Beløb" if lang == "da" else "Summa" if lang == "fi" else "Összeg"]))
    builder.text(f"\n{rng.randint(1, 999)}")
    for item in items:
        builder.text(";").value(item)
    builder.text(f";{rng.randint(10, 9999)},{rng.randint(0, 99):02d}")


_CONTEXTS: tuple[Context, ...] = (
    Context("voice-transcript", voice_transcript, "en", 1.4, lowercase=True),
    Context("sms-en", sms_export, "en", 0.7),
    Context("sms-id", sms_export, "id", 0.5),
    Context("sms-da", sms_export, "da", 0.5),
    Context("pdf-extract", pdf_extract, "en", 1.2),
    Context("vcard", vcard, "en", 0.9),
    Context("ics-invite", ics_invite, "en", 0.8),
    Context("git-log", git_log, "en", 0.8),
    Context("ldif", ldif, "en", 0.8),
    Context("soap-xml", soap_xml, "en", 0.8),
    Context("semicolon-csv-da", semicolon_csv, "da", 0.4),
    Context("semicolon-csv-fi", semicolon_csv, "fi", 0.4),
    Context("semicolon-csv-hu", semicolon_csv, "hu", 0.4),
)
CONTEXTS_SEVENTH = with_extra_decoys(_CONTEXTS, extra_decoy)


MAKERS: dict[str, Maker] = {"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth,
                           "STREET_ADDRESS": street_address}  # fmt: skip


def generate_seventh_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The seventh dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_SEVENTH, MAKERS, _faker.restart)
