"""An eighth `dev`-side corpus: values from sources no other split draws, in contexts none of them writes, built
before any detector was run on it, so that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-8 --skip-throughput [--misses FILE]

- PERSON: names of Israel and Iran as their people write them in Latin letters, of Korea, China, Hong Kong and
  Taiwan (also family name first), Lithuania, Estonia, Albania, Malta, Jamaica, Haiti and Fiji (``far_names``); in
  capitals on receipts, as ``SURNAME/FIRST`` in reservation telex, in lower case in code-switched chat.
- LOCATION: provinces, counties and regions of Turkey, Kenya, Nigeria, Romania, Latvia, Lithuania, Estonia,
  Ireland, the Philippines, Thailand, Korea, Albania and Jamaica (pycountry), and country names in Turkish,
  Romanian, Latvian, Lithuanian, Estonian, Slovenian, Irish, Albanian, Filipino and Maltese (pycountry's
  translations).
- DATE_OF_BIRTH: Romanian, Latvian, Lithuanian, Estonian, Slovenian and Irish forms, Korean, Thai Buddhist-era and
  Persian Solar Hijri dates, the ``03MAY87`` of telex (``calendars``).
- STREET_ADDRESS: Turkish, Romanian, Latvian, Lithuanian, Estonian, Nigerian, Kenyan, Thai, Albanian and Korean
  address forms written here with street names of those places' own people, and Ukrainian, Armenian and Georgian
  Faker addresses romanised.
- The other types: the dev generators of every split.

Contexts: Slack exports (JSON), meeting transcripts (WebVTT with speaker tags), GitHub issues (Markdown with fenced
logs), Kubernetes manifests (env vars), OCR'd receipts (capitals, labels glued to values), airline reservation telex
(capitals), clinical SOAP notes, contract recitals naming the parties, HTML forms (values in attributes), CEF
security events, and chat that switches between English and Tagalog, Swahili or Romanian. Hard negatives beside the
shared decoys: dates that are no date of birth (``other_date``), diseases, laws, products and companies named after
people (``person_named``) and after places (``place_named``), identifiers of other shapes (CVEs, RFCs, standards,
ARNs: ``other_id``) and build references (image digests, semver with build metadata, short commit ids:
``tech_ref``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import gettext
import json
import random
from dataclasses import dataclass
from functools import cache

import pycountry
from stdnum import luhn

from bench.pii_corpus import calendars
from bench.pii_corpus import phrases_dev_eighth as phrasing
from bench.pii_corpus.contexts import Context, Item, _label, field_names, with_extra_decoys
from bench.pii_corpus.dev_scaffold import clause, generate_dev_split, is_type
from bench.pii_corpus.far_names import FAMILY_FIRST, far_names
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split, normalise
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.romanise import romanise
from bench.pii_corpus.seeded_fakers import SeededFakers

NAME = "dev-8"
SEED = 1732051
ENTITIES_PER_TYPE = 250
REGION_COUNTRIES = ("TR", "KE", "NG", "RO", "LV", "LT", "EE", "IE", "PH", "TH", "KR", "AL", "JM")
COUNTRY_LANGUAGES = ("tr", "ro", "lv", "lt", "et", "sl", "ga", "sq", "fil", "mt")
# Address form -> the Faker locale whose surnames name its streets (or whose addresses are romanised).
ADDRESS_FORMS = {"tr": "tr_TR", "ro": "ro_RO", "lv": "lv_LV", "lt": "lt_LT", "et": "et_EE", "ng": "en_NG",
                 "ke": "en_KE", "th": "en_TH", "al": "sq_AL", "kr": "ko_KR", "uk_UA": "uk_UA", "hy_AM": "hy_AM",
                 "ka_GE": "ka_GE"}  # fmt: skip
ROMANISED_ADDRESSES = {"uk_UA": "ukrainian", "hy_AM": "armenian", "ka_GE": "georgian"}
# Korean road names are a place or a word and a suffix (-ro, -daero, -gil); these stems are common ones.
_KOREAN_ROADS = ("Teheran", "Sejong", "Eulji", "Toegye", "Hangang", "Dosan", "Nonhyeon", "Yeongdong", "Bongeunsa",
                 "Gwanak", "Mapo", "Dongil", "Gyeongin", "Hyoryeong", "Jungang", "Haeun", "Sinchon",
                 "Yanghwa")  # fmt: skip

# --- values -------------------------------------------------------------------------------------------------------

_faker = SeededFakers(NAME, SEED)


def person(rng: random.Random, split: str, context: Context) -> Pii:
    for _ in range(10_000):
        country, first, last = far_names().person(rng)
        family_first = country in FAMILY_FIRST and rng.random() < 0.5
        value = f"{last} {first}" if family_first else f"{first} {last}"
        if name_in_split(value, split):
            return Pii("PERSON", value, f"person:{country}:{'family-first' if family_first else 'first-last'}")
    raise RuntimeError("no name of the split after 10000 draws")


@dataclass(frozen=True)
class _Places:
    regions: list[tuple[str, str]]  # (name, country)
    countries: list[tuple[str, str]]  # (name, language)


@cache
def _places() -> _Places:
    regions = [(s.name, code) for code in REGION_COUNTRIES
               for s in sorted(pycountry.subdivisions.get(country_code=code), key=lambda s: s.code)
               if not any(c in s.name for c in "/()0123456789")]  # fmt: skip
    countries = []
    for language in COUNTRY_LANGUAGES:
        translation = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for country in sorted(pycountry.countries, key=lambda c: c.alpha_2):
            name = translation.gettext(country.name)
            if name != country.name and "," not in name and "(" not in name:  # translated, and no "Korea, ..."
                countries.append((name, language))
    keep = set(in_split([n for n, _ in regions + countries], "dev"))
    return _Places([p for p in regions if p[0] in keep], [p for p in countries if p[0] in keep])


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places = _places()
    if rng.random() < 0.55:
        # the country first, then one of its regions: Estonia's 94 would otherwise crowd out Jamaica's 14
        country = rng.choice(REGION_COUNTRIES)
        name = rng.choice([n for n, c in places.regions if c == country])
        return Pii("LOCATION", name, f"location:region:{country}")
    name, language = rng.choice(places.countries)
    return Pii("LOCATION", name, f"location:country:{language}")


def _address(form: str, rng: random.Random) -> str:
    fake = _faker(ADDRESS_FORMS[form])
    if form in ROMANISED_ADDRESSES:
        text = romanise(" ".join(fake.street_address().split()), ROMANISED_ADDRESSES[form])
        return text.replace(" K. ", " k. ")  # Georgian's "ქ." (street) is an abbreviation, not a word
    n, flat = rng.randint(1, 180), rng.randint(1, 60)
    if form == "kr":
        return rng.choice([f"{n}, {rng.choice(_KOREAN_ROADS)}-ro {rng.randint(1, 90)}-gil",
                           f"{rng.choice(_KOREAN_ROADS)}-daero {n}"])  # fmt: skip
    street = fake.last_name()
    forms = {
        "tr": [f"{street} Sokak No: {n}/{flat}", f"{street} Cad. No:{n} D:{flat}"],
        "ro": [f"Str. {street} nr. {n}, ap. {flat}", f"Strada {street} {n}", f"Bd. {street} nr. {n}"],
        "lv": [f"{street} iela {n}-{flat}", f"{street} iela {n}"],
        "lt": [f"{street} g. {n}-{flat}", f"{street} pr. {n}"],
        "et": [f"{street} tn {n}-{flat}", f"{street} mnt {n}"],
        "ng": [f"{n} {street} Street, off {fake.last_name()} Road", f"Plot {n}, {street} Crescent"],
        "ke": [f"House No. {n}, {street} Road", f"{street} Lane, Hse {n}"],
        "th": [f"{n}/{flat} Soi {street}", f"{n} Moo {rng.randint(1, 12)}, {street} Road"],
        "al": [f"Rruga {street}, Nr. {n}", f"Rr. {street} {n}"],
    }
    return rng.choice(forms[form])


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice(sorted(ADDRESS_FORMS))
    value = draw_in_split(lambda: _address(form, rng), split)
    return Pii("STREET_ADDRESS", value, f"address:{form}" + (":romanised" if form in ROMANISED_ADDRESSES else ""))


def _style(context: Context, rng: random.Random) -> str:
    if context.name == "airline-telex":
        return "telex"
    if context.name == "chat-ro-en":
        return "ro"
    if context.name == "contract-parties":
        return rng.choice(sorted(calendars.MONTHS))
    if context.name == "clinical-note":
        return rng.choice(["ko", "th-be", "fa-jalali"])
    return rng.choice([s for s in calendars.STYLES if s != "telex"])


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        date = dt.date(1936, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70))
        return calendars.written(date, _style(context, rng), rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


# --- hard negatives of this corpus ----------------------------------------------------------------------------

PERSON_NAMED = ("Crohn's disease", "Parkinson's disease", "Hodgkin lymphoma", "Asperger syndrome",
                "Wilson's disease", "Graves' disease", "Sarbanes-Oxley Act", "Dodd-Frank Act", "Magnitsky Act",
                "Glass-Steagall Act", "Ford Mustang", "Dyson Airwrap", "Morgan Stanley", "Goldman Sachs",
                "Cartier Santos", "Kellogg's Corn Flakes", "Ben & Jerry's", "Fahrenheit scale", "Diesel engine",
                "Braille display")  # fmt: skip
PLACE_NAMED = ("West Nile virus", "Lyme disease", "Ebola virus", "Hong Kong flu", "Bengal tiger", "Boston terrier",
               "Kyoto Protocol", "Paris Agreement", "Berlin Wall", "Camembert", "Parmesan", "Cognac",
               "Real Madrid", "Manchester United", "Bangkok Bank", "Nairobi Securities Exchange",
               "Riga Black Balsam", "Tallinn Manual", "Cuban sandwich", "Java runtime")  # fmt: skip
EXTRA_KINDS = ("other_date", "person_named", "place_named", "other_id", "tech_ref")


def _account_id(rng: random.Random) -> str:
    """Twelve digits that fail Luhn (an AWS account id in an ARN is no card number)."""
    while True:
        digits = f"{rng.randrange(10**11, 10**12)}"
        if not luhn.is_valid(digits):
            return digits


def _other_id(rng: random.Random) -> str:
    return rng.choice([
        f"CVE-{rng.randint(2014, 2025)}-{rng.randint(1000, 49999)}",
        f"RFC {rng.choice([2119, 3339, 5322, 6749, 7231, 7519, 8259, 9110])}",
        f"ISO {rng.choice(['27001', '8601', '3166-1', '20022', '13485'])}",
        f"arn:aws:iam::{_account_id(rng)}:role/{rng.choice(['deploy', 'ci-runner', 'readonly'])}",
    ])  # fmt: skip


def _tech_ref(rng: random.Random) -> str:
    return rng.choice([
        f"sha256:{rng.getrandbits(256):064x}",
        f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}+build.{rng.randint(100, 9999)}",
        f"{rng.getrandbits(28):07x}",
        f"v{rng.randint(1, 4)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}-rc.{rng.randint(1, 5)}",
    ])  # fmt: skip


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    kind = rng.choice(EXTRA_KINDS)
    if kind == "other_date":
        date = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 11))
        return Decoy(kind, calendars.written(date, _style(context, rng), rng)[0])
    if kind == "person_named":
        return Decoy(kind, rng.choice(PERSON_NAMED))
    if kind == "place_named":
        return Decoy(kind, rng.choice(PLACE_NAMED))
    return Decoy(kind, _other_id(rng) if kind == "other_id" else _tech_ref(rng))


# --- contexts -------------------------------------------------------------------------------------------------------


def _upper(item: Item) -> Item:
    """`item` in capitals, as receipts and telex print it: words (names, places, addresses, e-mail addresses, dates)
    only; numbers, keys and tokens keep their case."""
    if isinstance(item, Pii) and item.type in ("PERSON", "LOCATION", "STREET_ADDRESS", "EMAIL_ADDRESS",
                                               "DATE_OF_BIRTH") and item.value.upper() != item.value:  # fmt: skip
        # Capitals that case-fold to another value ("Man Adası" is "MAN ADASI", whose "i" is no "ı") would be
        # another value, of either split: such a value keeps its case.
        if normalise(item.value.upper()) != normalise(item.value):
            return item
        return Pii(item.type, item.value.upper(), item.subtype + ":upper")
    if isinstance(item, Decoy) and item.kind in ("person_named", "place_named", "other_date"):
        return Decoy(item.kind, item.value.upper())
    return item


def _json_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def slack_export(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A channel's messages as Slack exports them: a person is a message's author (``real_name``), the other values
    are in what the messages say."""
    ts = 1_700_000_000 + rng.randrange(60_000_000)
    builder.text("[\n")
    for index, item in enumerate(items):
        ts += rng.randint(5, 900)
        user = f"U0{rng.getrandbits(32):08X}"
        builder.text(f'  {{"type": "message", "user": "{user}", ')
        if is_type(item, "PERSON"):
            builder.text('"user_profile": {"real_name": "').value(item)
            builder.text(f'", "display_name": "{rng.choice(["", "oncall", "sre"])}"}}, ')
            builder.text(f'"text": "{rng.choice(["on it", "ack, looking", "+1", "merged"])}", ')
        else:
            before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
            builder.text(f'"text": "{_json_string(before)}').value(item).text(f'{_json_string(after)}", ')
        builder.text(f'"ts": "{ts}.{rng.randrange(10**6):06d}"}}' + (",\n" if index < len(items) - 1 else "\n"))
    builder.text("]")


def _vtt_stamp(seconds: float) -> str:
    return f"{int(seconds // 3600):02d}:{int(seconds % 3600 // 60):02d}:{seconds % 60:06.3f}"


def meeting_vtt(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A meeting's transcript as WebVTT: a person is a cue's speaker (``<v Name>``), the rest is said."""
    builder.text("WEBVTT\n")
    clock = rng.uniform(0, 600)
    speakers = [i for i in items if is_type(i, "PERSON")]
    rest = [i for i in items if i not in speakers]
    for index in range(max(len(speakers), len(rest), 1)):
        start, clock = clock, clock + rng.uniform(1.5, 9)
        builder.text(f"\n{_vtt_stamp(start)} --> {_vtt_stamp(clock)}\n<v ")
        if index < len(speakers):
            builder.value(speakers[index])
        else:
            builder.text(f"Speaker {index + 1}")
        builder.text(">")
        if index < len(rest):
            builder.template(clause(rest[index], rng, phrasing.CLAUSES["en"]), rest[index])
        else:
            builder.text(rng.choice(phrasing.MEETING_LINES))
        builder.text("</v>\n")


# A pasted log's keys: the manifests' variable names as code writes them.
_LOG_KEYS = {label: [name.lower() for name in names] for label, names in phrasing.ENV_VARS.items()}


def github_issue(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An issue in Markdown: numbered steps in prose, then a fenced block of the log the reporter pasted."""
    title = rng.choice(["Export leaks customer fields", "Webhook retries forever", "Sync drops rows"])
    builder.text(f"### {title}\n\n")
    builder.text("**Steps to reproduce**\n\n")
    prose, logged = items[: (len(items) + 1) // 2], items[(len(items) + 1) // 2 :]
    for index, item in enumerate(prose, 1):
        builder.text(f"{index}. ").template(clause(item, rng, phrasing.CLAUSES["en"]), item).text("\n")
    if logged:
        builder.text("\n**Logs**\n\n```text\n")
        for key, item in zip(field_names(logged, rng, _LOG_KEYS, suffix="_2"), logged, strict=True):
            builder.text(f"[{rng.choice(['WARN', 'ERROR'])}] {key}=").value(item).text("\n")
        builder.text("```\n")
    builder.text(f"\n- [ ] {rng.choice(['regression test', 'backport to 2.x', 'scrub logs'])}\n")


def k8s_manifest(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    app = rng.choice(["billing-sync", "notifier", "kyc-worker", "ledger-api"])
    builder.text(f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {app}\n  labels:\n    app: {app}\n"
                 f"spec:\n  replicas: {rng.randint(1, 6)}\n  template:\n    spec:\n      containers:\n"
                 f"        - name: {app}\n"
                 f"          image: registry.acme.example/{app}:{rng.randint(1, 9)}.{rng.randint(0, 40)}\n"
                 "          env:\n")  # fmt: skip
    for key, item in zip(field_names(items, rng, phrasing.ENV_VARS, suffix="_2"), items, strict=True):
        quote = rng.choice(['"', "'"]) if "'" not in item.value else '"'
        builder.text(f"            - name: {key.upper()}\n              value: {quote}").value(item).text(f"{quote}\n")
    builder.text(f"          ports:\n            - containerPort: {rng.choice([8080, 8443, 9000])}")


def ocr_receipt(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A till receipt as OCR gives it back: capitals, and a label often glued to its value."""
    builder.text(f"{rng.choice(['MEGAMART', 'FARMACIA NOVA', 'QUICKFUEL 24'])}\n*** TAX INVOICE ***\n")
    for _ in range(rng.randint(1, 3)):
        line = rng.choice(["MILK 1L", "BREAD", "COFFEE", "BATTERY AA"])
        builder.text(f"{line}  {rng.randint(1, 40)}.{rng.randint(0, 99):02d}\n")
    for key, item in zip(field_names(items, rng, phrasing.RECEIPT_LABELS, suffix=" 2"), items, strict=True):
        builder.text(key.upper() + rng.choice([":", ": ", " ", ":"])).value(_upper(item)).text("\n")
    builder.text(f"TOTAL {rng.randint(5, 300)}.{rng.randint(0, 99):02d}\nTHANK YOU")


def airline_telex(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A reservation as a teletype message: capitals, a passenger as ``SURNAME/FIRST``, contacts and documents in
    SSR and OSI lines, the rest in remarks."""
    builder.text(f"QU {rng.choice(['HDQRMTK', 'BKKRRTG', 'NBORMKQ'])}\n.{rng.choice(['IST', 'BKK', 'NBO'])}RR"
                 f"{rng.choice(['TK', 'TG', 'KQ'])} {rng.randint(10, 31)}{rng.randint(10, 23)}"
                 f"{rng.randint(10, 59)}\n")  # fmt: skip
    builder.text(f"{rng.getrandbits(24):06X}\n")
    remarks = [i for i in items if not is_type(i, "PERSON", "PHONE_NUMBER", "EMAIL_ADDRESS", "DATE_OF_BIRTH")]
    for item in items:
        if is_type(item, "PERSON"):
            assert isinstance(item, Pii)
            words = item.value.split()
            surname, first = (words[0], words[1]) if "family-first" in item.subtype else (words[-1], words[0])
            written = f"{surname}/{first}"
            written = written.upper() if normalise(written.upper()) == normalise(written) else written
            builder.text("1").value(Pii("PERSON", written, item.subtype + ":telex"))
            builder.text(f" {rng.choice(['MR', 'MRS', 'MS'])}\n")
        elif is_type(item, "PHONE_NUMBER"):
            builder.text("SSR CTCM YY HK1/").value(item).text("\n")
        elif is_type(item, "EMAIL_ADDRESS"):
            builder.text("OSI YY CTCE ").value(_upper(item)).text("\n")
        elif is_type(item, "DATE_OF_BIRTH"):
            builder.text("SSR DOCS YY HK1/P////").value(_upper(item)).text(f"/{rng.choice('MF')}//\n")
    for key, item in zip(field_names(remarks, rng, phrasing.TELEX_REMARKS, suffix=" 2"), remarks, strict=True):
        separator = "" if key.endswith("/") else " "
        key = key if key.startswith(("RM ", "SSR ", "FP ")) else f"RM {key}"  # a shared decoy's field name
        builder.text(key.upper() + separator).value(_upper(item)).text("\n")
    builder.text(f"TKT/TL{rng.randint(10, 28)}{rng.choice(['JAN', 'APR', 'SEP'])}/{rng.randint(10, 23)}00")


def clinical_note(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A SOAP note: the patient and the date of birth in the header, the other values in terse S/O/A/P lines."""
    people = [i for i in items if is_type(i, "PERSON")][:1]
    births = [i for i in items if is_type(i, "DATE_OF_BIRTH")][:1]
    rest = [i for i in items if i not in people and i not in births]
    builder.text(f"{rng.choice(['GP follow-up', 'ED triage note', 'Telehealth consult'])}\n")
    if people:
        builder.text("Pt: ").value(people[0]).text(f", {rng.randint(19, 90)}{rng.choice('MF')}\n")
    if births:
        builder.text("DOB: ").value(births[0]).text("\n")
    for section, item in zip(rng.sample(["S", "O", "A", "P"] * 2, len(rest)), rest, strict=True):
        builder.text(f"{section}: ").template(clause(item, rng, phrasing.CLAUSES["clinical"]), item).text(".\n")
    builder.text(f"Plan: {rng.choice(['review in 2/52', 'bloods, r/v with results', 'safety-netted'])}")


def contract_parties(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    builder.text(f"THIS {rng.choice(['SHARE PURCHASE AGREEMENT', 'LEASE', 'LOAN AGREEMENT'])} is made BETWEEN:\n\n")
    builder.text("(1) ")
    # the party is named first, then what identifies them
    for index, item in enumerate(sorted(items, key=lambda i: not is_type(i, "PERSON"))):
        builder.text("" if index == 0 else rng.choice([", ", "; ", ",\n"]))
        builder.template(clause(item, rng, phrasing.CLAUSES["legal"]), item)
    builder.text(";\n\n(2) ACME HOLDINGS LIMITED (the \u201cBuyer\u201d).\n\nRECITALS\n(A) The parties have agreed ...")


def html_form(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A saved form: each value in an input's ``value`` attribute, under its label."""
    builder.text(f'<form id="{rng.choice(["claim", "kyc", "signup"])}" method="post" action="/submit">\n')
    taken: set[str] = set()
    for index, item in enumerate(items):
        fallback = [(_label(item).replace("_", " ").title(), _label(item))]  # a shared decoy kind's
        label, name = rng.choice(phrasing.FORM_FIELDS.get(_label(item), fallback))
        while name in taken:
            name += "2"
        taken.add(name)
        builder.text(f'  <label for="f{index}">{label}</label>\n')
        builder.text(f'  <input id="f{index}" name="{name}" type="text" value="')
        builder.value(item).text('">\n')
    builder.text('  <button type="submit">Send</button>\n</form>')


def cef_event(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An ArcSight Common Event Format line: the values in the extension's ``key=value`` pairs."""
    event = rng.choice([(101, "Suspicious export", 7), (220, "Data loss policy match", 8), (31, "Login anomaly", 5)])
    received = 1_700_000_000_000 + rng.randrange(10**10)
    builder.text(f"CEF:0|Acme|EdgeGuard|4.{rng.randint(0, 9)}|{event[0]}|{event[1]}|{event[2]}|rt={received}")
    for key, item in zip(field_names(items, rng, phrasing.CEF_KEYS, suffix="0"), items, strict=True):
        if key.startswith("cs") and len(key) == 3:
            builder.text(f" {key}Label={_label(item).lower()}")
        builder.text(f" {key}=").value(item)
    builder.text(f" act={rng.choice(['blocked', 'alerted', 'allowed'])}")


def code_switched_chat(
    builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook
) -> None:
    """Chat that switches between English and `lang` (Tagalog, Swahili, Romanian) inside a line."""
    minute = rng.randrange(7 * 60, 23 * 60)
    for index, item in enumerate(items):
        minute = (minute + rng.randint(1, 14)) % (24 * 60)
        handle = rng.choice(["bebe", "kaka", "ate_j", "mwanzo", "vlad_", "me"])
        builder.text(("\n" if index else "") + f"[{minute // 60:02d}:{minute % 60:02d}] {handle}: ")
        builder.template(clause(item, rng, phrasing.CLAUSES[lang]), item)


_CONTEXTS: tuple[Context, ...] = (
    Context("slack-export", slack_export, "en", 1.0),
    Context("meeting-vtt", meeting_vtt, "en", 0.9),
    Context("github-issue", github_issue, "en", 0.9),
    Context("k8s-manifest", k8s_manifest, "en", 0.8),
    Context("ocr-receipt", ocr_receipt, "en", 0.8),
    Context("airline-telex", airline_telex, "en", 0.8),
    Context("clinical-note", clinical_note, "en", 0.8),
    Context("contract-parties", contract_parties, "en", 0.7),
    Context("html-form", html_form, "en", 0.8),
    Context("cef-event", cef_event, "en", 0.7),
    Context("chat-tl-en", code_switched_chat, "tl", 0.5, lowercase=True),
    Context("chat-sw-en", code_switched_chat, "sw", 0.5, lowercase=True),
    Context("chat-ro-en", code_switched_chat, "ro", 0.5),
)
CONTEXTS_EIGHTH = with_extra_decoys(_CONTEXTS, extra_decoy)


MAKERS: dict[str, Maker] = {"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth,
                           "STREET_ADDRESS": street_address}  # fmt: skip


def generate_eighth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The eighth dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_EIGHTH, MAKERS, _faker.restart)
