"""A sixth `dev`-side corpus: values from sources no other split draws, in contexts none of them writes, built and
scored before any detector was tuned on it, so that its misses stand in for those on unseen text.

    python -m bench.guardrails --split dev-6 --skip-throughput [--misses FILE]

- PERSON: romanised Taiwanese names (Faker zh_TW, Wade-Giles: "Chun-hung Peng"), Korean names romanised here from
  Faker ko_KR's Hangul (Revised Romanization, the usual spelling of the common surnames: "Kim Min-jun"), Arabic names
  with a patronymic ("Khalid bin Faisal Saleh", from ``world_names``' Arabic-speaking countries), and the other
  splits' Faker locales in shapes they do not write: two initials ("J. R. Smith"), a first name and a surname's
  initial, hyphenated compound surnames, "SURNAME, First", and the record formats' own ("SMITH^JOHN" in HL7,
  "SMITH/JOHN" on a ticket); in capitals on labels and statements, in lower case and after "@" in chat.
- LOCATION: the city of an address (Faker's real-town lists of Austria, Switzerland, Argentina, Colombia, Slovakia,
  Slovenia, Croatia, Belgium, Italy, Poland, Portugal), regions (German Länder, French régions, Spanish, Italian,
  Polish, Dutch, Brazilian, Portuguese units) and country names in German, French, Spanish, Italian, Polish, Dutch
  and Portuguese; "from X to Y" on itineraries.
- DATE_OF_BIRTH: ISO, with a weekday, with an ordinal ("3rd of May 1987"), compact HL7 (``19870503``), and the
  named-month forms of Italian, Portuguese, Dutch and Polish (genitive month, "r.") with or without a weekday.
- STREET_ADDRESS: Faker locales no other split draws (de_AT, de_CH, fr_CH, nl_BE, es_MX, es_AR, es_CO, es_CL, sk_SK,
  sl_SI, hr_HR, no_NO, en_IE).
- The other types: the dev generators of every split.

Contexts: customer e-mails with quoted replies (``>`` and ``>>``), meeting notes, shipping labels, invoices, CRM
exports (TSV), JSON Lines with nested objects, Python and JavaScript literals, HL7 v2 messages, FHIR Patient
resources, bank statements, travel itineraries, CVs, and team chat with timestamps and @mentions in English, Spanish,
French, German, Italian, Portuguese, Dutch and Polish. Hard negatives beside the shared decoys: dates that are no
date of birth (``other_date``), companies and products named after people (``company``, ``product``), businesses
named after their street (``street_business``), booking and tracking references (``reference``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning (recorded with the bench's results).
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from faker import Faker
from faker.providers.date_time import it_IT, nl_NL, pt_BR

from bench.pii_corpus import dates, phrases_dev_sixth
from bench.pii_corpus.contexts import Context, Item, _label, field_name, field_names, with_extra_decoys
from bench.pii_corpus.dev_scaffold import clause, generate_dev_split, is_type
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.people import _is_latin_place
from bench.pii_corpus.person_names import LATIN_LOCALES, NameSource
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.phrases_dev_sixth import KEYS
from bench.pii_corpus.seeded_fakers import SeededFakers
from bench.pii_corpus.world_names import world_names

NAME = "dev-6"
SEED = 1414213
ENTITIES_PER_TYPE = 250
ADDRESS_LOCALES = ("de_AT", "de_CH", "fr_CH", "nl_BE", "es_MX", "es_AR", "es_CO", "es_CL", "sk_SK", "sl_SI", "hr_HR",
                   "no_NO", "en_IE")  # fmt: skip
ARABIC_COUNTRIES = ("EG", "MA", "DZ", "TN", "JO", "LB", "SY", "IQ", "KW", "QA", "OM", "AE", "SA", "YE", "LY", "SD")
CHAT_LANGS = ("en", "es", "fr", "de", "it", "pt", "nl", "pl")
# Words around a name in the record formats that are no part of it, and separators a format writes between parts.
TITLES = ("MR", "MRS", "MS", "MSTR", "DR")
_NAME_SEPARATORS = re.compile(r"[\s,^/@.]+")
FAMILY_FIRST_SHAPES = ("family-first", "upper-family-first", "upper-last-comma-first")

# --- Korean names, romanised -------------------------------------------------------------------------------------

_INITIALS = ("g", "kk", "n", "d", "tt", "r", "m", "b", "pp", "s", "ss", "", "j", "jj", "ch", "k", "t", "p", "h")
_MEDIALS = ("a", "ae", "ya", "yae", "eo", "e", "yeo", "ye", "o", "wa", "wae", "oe", "yo", "u", "wo", "we", "wi", "yu",
            "eu", "ui", "i")  # fmt: skip
_FINALS = ("", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "l", "l", "l", "p", "l", "m", "p", "p", "t", "t", "ng",
           "t", "t", "k", "t", "p", "t")  # fmt: skip
# How the common surnames are written in passports and papers, not as the strict romanisation would ("Gim", "Bak").
KOREAN_SURNAMES = {"김": "Kim", "이": "Lee", "박": "Park", "최": "Choi", "정": "Jung", "강": "Kang", "조": "Cho",
                   "윤": "Yoon", "장": "Jang", "임": "Lim", "한": "Han", "오": "Oh", "서": "Seo", "신": "Shin",
                   "권": "Kwon", "황": "Hwang", "안": "Ahn", "송": "Song", "류": "Ryu", "전": "Jeon", "홍": "Hong",
                   "고": "Ko", "문": "Moon", "양": "Yang", "손": "Son", "배": "Bae", "백": "Baek", "허": "Heo",
                   "유": "Yoo", "남": "Nam", "심": "Shim", "노": "Noh", "하": "Ha", "곽": "Kwak", "성": "Sung",
                   "차": "Cha", "주": "Joo", "우": "Woo", "구": "Koo", "민": "Min", "진": "Jin",
                   "나": "Na"}  # fmt: skip


def romanise_hangul(word: str) -> str:
    """`word` (Hangul syllables) in Revised Romanization, syllable by syllable, as given names are written."""
    syllables = []
    for char in word:
        code = ord(char) - 0xAC00
        if not 0 <= code < 11172:
            raise ValueError(f"not a Hangul syllable: {char!r}")
        syllables.append(_INITIALS[code // 588] + _MEDIALS[code % 588 // 28] + _FINALS[code % 28])
    return "-".join(syllables).capitalize()


# --- values -------------------------------------------------------------------------------------------------------

_faker = SeededFakers(NAME, SEED)


_NAME_SOURCE: dict[str, NameSource] = {}


def _names() -> NameSource:
    if "current" not in _NAME_SOURCE:
        _NAME_SOURCE["current"] = NameSource.build("dev", random.Random(f"pii-corpus:{NAME}:{SEED}:names"))
    return _NAME_SOURCE["current"]


def name_words(value: str) -> str:
    """The words of a name as written, title-cased, without the titles and separators the formats add: what decides
    its split (title-cased, every word of three letters or more counts, whatever case the context wrote it in)."""
    words = [w for w in _NAME_SEPARATORS.split(value) if w and w.upper() not in TITLES and w not in ("bin", "bint")]
    return " ".join("-".join(part[:1].upper() + part[1:].lower() for part in w.split("-")) for w in words)


def _taiwanese(rng: random.Random) -> tuple[str, str]:
    fake = _faker("zh_TW")
    first, last = fake.first_romanized_name(), fake.last_romanized_name()
    return first.capitalize(), last.capitalize()


def _korean(rng: random.Random) -> tuple[str, str]:
    fake = _faker("ko_KR")
    for _ in range(10_000):
        last = fake.last_name()
        first = fake.first_name()
        if last in KOREAN_SURNAMES and all("가" <= c <= "힣" for c in first):
            return romanise_hangul(first), KOREAN_SURNAMES[last]
    raise RuntimeError("no Korean name after 10000 draws")


def _arabic(rng: random.Random) -> tuple[str, str, str]:
    """(value, shape, source): a first name, bin/bint and the father's first name, then the family name."""
    names = world_names().names
    country = rng.choice([c for c in ARABIC_COUNTRIES if names["last"].get(c) and names["first_male"].get(c)])
    female = rng.random() < 0.4 and bool(names["first_female"].get(country))
    first = rng.choice(names["first_female" if female else "first_male"][country])
    father = rng.choice(names["first_male"][country])
    last = rng.choice(names["last"][country])
    if rng.random() < 0.5:
        return f"{first} {'bint' if female else 'bin'} {father} {last}", "patronymic", f"arabic-{country}"
    return f"{first} {father} {last}", "three-part", f"arabic-{country}"


def _latin(rng: random.Random) -> tuple[str, str, str]:
    """(value, shape, locale) of the other splits' Faker locales in shapes they do not write."""
    locale, first, last, second = _names().person(rng, LATIN_LOCALES)
    roll = rng.random()
    if roll < 0.3:
        middle = rng.choice("ABCDEFGHJKLMNPRSTW")
        return f"{first[0]}. {middle}. {last}", "two-initials", locale
    if roll < 0.5:
        return f"{first} {last[0]}.", "first-last-initial", locale
    if roll < 0.75 and second != last:
        return f"{first} {last}-{second}", "hyphenated-surname", locale
    if roll < 0.9:
        return f"{last.upper()}, {first}", "upper-last-comma-first", locale
    return f"{first} {last}", "first-last", locale


def _person_once(rng: random.Random, context: Context, roll: float) -> tuple[str, str, str]:
    """(value, source, shape) of one name of the source `roll` picks, as `context` writes names."""
    if roll < 0.2:
        first, last = _taiwanese(rng)
        source = "zh_TW-romanised"
        value, shape = (f"{last.upper()} {first}", "upper-family-first") if rng.random() < 0.4 else \
            (f"{first} {last}", "first-last")  # fmt: skip
    elif roll < 0.37:
        first, last = _korean(rng)
        source = "ko_KR-romanised"
        value, shape = (f"{last} {first}", "family-first") if rng.random() < 0.5 else (f"{first} {last}", "first-last")
    elif roll < 0.5:
        value, shape, source = _arabic(rng)
    else:
        value, shape, source = _latin(rng)
    name = context.name
    if name == "hl7" or name == "itinerary":
        # The record formats write family name first, in capitals, joined by their own separator.
        words = name_words(value).split()
        family, given = (words[-1], words[0]) if shape not in FAMILY_FIRST_SHAPES else \
            (words[0], words[-1])  # fmt: skip
        joiner = "^" if name == "hl7" else "/"
        return f"{family.upper()}{joiner}{given.upper()}", source, f"{name}-family{joiner}given"
    if name in ("shipping-label", "bank-statement"):
        return value.upper(), source, f"{shape}:upper"
    if name.startswith("slack-") and rng.random() < 0.3:
        return value.lower(), source, f"{shape}:lower"
    return value, source, shape


def person(rng: random.Random, split: str, context: Context) -> Pii:
    # The source is drawn once, then its names until one is of the split: the sources keep their shares, though
    # names of more words (Taiwanese, Arabic) are of the split less often.
    roll = rng.random()
    for _ in range(10_000):
        value, source, shape = _person_once(rng, context, roll)
        value = unicodedata.normalize("NFC", value)
        if name_in_split(name_words(value), split):
            return Pii("PERSON", value, f"person:{source}:{shape}")
    raise RuntimeError("no name of the split after 10000 draws")


@dataclass(frozen=True)
class _Places:
    cities: list[str]
    regions: list[str]
    countries: list[str]


# Faker's lists of real places, by locale: towns, then regions, then country names in the locale's language (some
# lists hold (code, name) pairs).
CITY_LISTS = {"de_AT": "cities", "de_CH": "cities", "es_AR": "municipalities", "es_CO": "municipalities",
              "sk_SK": "cities", "sl_SI": "cities", "hr_HR": "cities", "nl_BE": "cities", "it_IT": "cities",
              "pl_PL": "cities", "pt_PT": "concelhos"}  # fmt: skip
REGION_LISTS = {"de_DE": "states", "fr_FR": "regions", "es_ES": "regions", "pl_PL": "regions", "nl_NL": "provinces",
                "nl_BE": "provinces", "pt_BR": "estados", "pt_PT": "distritos", "de_CH": "cantons"}  # fmt: skip
COUNTRY_LOCALES = ("de_DE", "fr_FR", "es_ES", "it_IT", "pl_PL", "nl_NL", "pt_BR")


# Lists Faker builds from a set (it_IT's towns): their order changes with the process's hash seed, so they are
# sorted, or the corpus would differ from one process to the next.
_UNORDERED_LISTS = {("it_IT", "cities")}


def _listed(locale: str, attribute: str) -> list[str]:
    provider = next(p for p in Faker(locale).providers if type(p).__module__.startswith("faker.providers.address"))
    values = [value if isinstance(value, str) else value[-1] for value in getattr(provider, attribute)]
    return sorted(values) if (locale, attribute) in _UNORDERED_LISTS else values


@cache
def _places() -> _Places:
    def usable(lists: dict[str, str]) -> list[str]:
        names = [name for locale, attribute in lists.items() for name in _listed(locale, attribute)]
        return in_split([n for n in names if _is_latin_place(n)], "dev")

    return _Places(usable(CITY_LISTS), usable(REGION_LISTS),
                   usable(dict.fromkeys(COUNTRY_LOCALES, "countries")))  # fmt: skip


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places, roll = _places(), rng.random()
    if roll < 0.55 or context.name == "itinerary":  # a journey runs between towns
        value, kind = rng.choice(places.cities), "city"
    elif roll < 0.8:
        value, kind = rng.choice(places.regions), "region"
    else:
        value, kind = rng.choice(places.countries), "country-other-language"
    if context.name in ("shipping-label", "bank-statement", "itinerary"):
        return Pii("LOCATION", value.upper(), f"location:{kind}:upper")
    return Pii("LOCATION", value, f"location:{kind}")


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    locale = rng.choice(ADDRESS_LOCALES)
    fake = _faker(locale)

    def make() -> str:
        street = " ".join(fake.street_address().split()).replace(" ,", ",")
        return street if any(c.isdigit() for c in street) else f"{street} {rng.randint(1, 400)}"

    value = draw_in_split(make, split)
    if context.name in ("shipping-label", "bank-statement"):
        return Pii("STREET_ADDRESS", value.upper(), f"address:{locale}:upper")
    return Pii("STREET_ADDRESS", value, f"address:{locale}")


_ORDINAL = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}
MONTHS = {
    "it": [m.lower() for m in it_IT.Provider.MONTH_NAMES.values()],
    "pt": [m.lower() for m in pt_BR.Provider.MONTH_NAMES.values()],
    "nl": [m.lower() for m in nl_NL.Provider.MONTH_NAMES.values()],
    # Polish dates decline the month (genitive): "3 maja 1987 r."
    "pl": ["stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września",
           "października", "listopada", "grudnia"],
}  # fmt: skip
# Weekdays by language, Monday first (date.weekday()).
WEEKDAYS = {
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "es": ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
    "fr": ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
    "de": ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
    "it": ["lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"],
    "pt": ["segunda-feira", "terça-feira", "quarta-feira", "quinta-feira", "sexta-feira", "sábado", "domingo"],
    "nl": ["maandag", "dinsdag", "woensdag", "donderdag", "vrijdag", "zaterdag", "zondag"],
    "pl": ["poniedziałek", "wtorek", "środa", "czwartek", "piątek", "sobota", "niedziela"],
}  # fmt: skip


def _date_form(date: dt.date, lang: str, context_name: str, rng: random.Random) -> tuple[str, str]:
    """(text, form) of `date` as this corpus's contexts write it."""
    d, m, y = date.day, date.month, date.year
    if context_name == "hl7":
        return date.strftime("%Y%m%d"), "hl7:yyyymmdd"
    if context_name in ("fhir-json", "jsonl-nested"):
        return date.isoformat(), "iso"
    day_name = WEEKDAYS[lang][date.weekday()]
    if lang in MONTHS:
        month = MONTHS[lang][m - 1]
        forms = {
            "it": [(f"{d} {month} {y}", "it:d-month-y"), (f"{day_name} {d} {month} {y}", "it:weekday-d-month-y")],
            "pt": [(f"{d} de {month} de {y}", "pt:d-de-month-de-y"),
                   (f"{day_name}, {d} de {month} de {y}", "pt:weekday-d-de-month")],
            "nl": [(f"{d} {month} {y}", "nl:d-month-y"), (f"{day_name} {d} {month} {y}", "nl:weekday-d-month-y")],
            "pl": [(f"{d} {month} {y} r.", "pl:d-genitive-y-r"),
                   (f"{day_name}, {d} {month} {y}", "pl:weekday-d-month")],
        }[lang]  # fmt: skip
        return rng.choice([*forms, (f"{d:02d}.{m:02d}.{y}", f"{lang}:dd.mm.y")])
    month = dates.MONTHS[lang][m - 1]
    if lang == "en":
        return rng.choice([
            (date.isoformat(), "en:iso"), (f"{d}{_ORDINAL.get(d, 'th')} of {month} {y}", "en:dth-of-month-y"),
            (f"{day_name}, {month} {d}, {y}", "en:weekday-month-d-y"), (f"{day_name[:3]} {d:02d} {month[:3]} {y}",
            "en:wkd-dd-mon-y"), (f"{month} {d}{_ORDINAL.get(d, 'th')}, {y}", "en:month-dth-y"),
        ])  # fmt: skip
    named = {
        "es": [(f"{day_name}, {d} de {month} de {y}", "es:weekday-d-de-month"), (date.isoformat(), "es:iso")],
        "fr": [(f"{day_name} {d} {month} {y}", "fr:weekday-d-month-y"), (date.isoformat(), "fr:iso")],
        "de": [(f"{day_name}, {d}. {month} {y}", "de:weekday-d.-month-y"), (date.isoformat(), "de:iso")],
    }
    return rng.choice(named[lang])


def _lang(context: Context) -> str:
    return context.lang if context.lang in WEEKDAYS else "en"


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        date = dt.date(1937, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70))
        return _date_form(date, _lang(context), context.name, rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


# --- hard negatives of this corpus -----------------------------------------------------------------------------

# Companies and products whose names hold a person's name or a word used as one; and the suffixes a company named
# after its founder takes.
COMPANIES = ("Johnson Controls", "Wells Fargo", "Morgan Stanley", "Goldman Sachs", "Marks & Spencer",
             "Johnson & Johnson", "Procter & Gamble", "Ernst & Young", "Charles Schwab", "Harley-Davidson",
             "Rolls-Royce", "Philip Morris", "John Lewis", "Thomson Reuters", "Eli Lilly", "Lockheed Martin",
             "Northrop Grumman", "Ben & Jerry's", "Dolce & Gabbana", "Jack Henry & Associates")  # fmt: skip
COMPANY_SUFFIXES = ("& Sons", "Holdings", "GmbH", "LLC", "Logistics", "& Partners", "Consulting", "S.A.", "Group")
PRODUCTS = ("Alexa", "Siri", "Cortana", "Jenkins", "Jack Daniel's", "Johnnie Walker", "Dr Pepper", "Tommy Hilfiger",
            "Hugo Boss", "Calvin Klein", "Ford Mustang", "Tesla Model Y", "ThinkPad X1 Carbon", "Galaxy Tab S9",
            "Kindle Paperwhite", "Dyson V15", "Nespresso Vertuo", "Surface Pro 9")  # fmt: skip
STREETS = ("Main Street", "Baker Street", "Elm Street", "High Street", "Church Street", "Market Street", "King Street",
           "Park Avenue", "Mill Lane", "Bedford Street", "Station Road", "Queen Street")  # fmt: skip
BUSINESSES = ("Dental", "Bakery", "Books", "Pharmacy", "Deli", "Garage", "Vets", "Physio", "Dry Cleaners", "Tavern")


def _company(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return rng.choice(COMPANIES)
    _, _, last, _ = _names().person(rng, ("en_US", "en_GB", "de_DE", "nl_NL", "fr_FR", "es_ES", "it_IT"))
    return f"{last} {rng.choice(COMPANY_SUFFIXES)}"


def _reference(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    return rng.choice([
        "1Z" + "".join(rng.choice(letters + "0123456789") for _ in range(6)) + f"{rng.randrange(10**10):010d}",
        "".join(rng.choice(letters) for _ in range(2)) + f"{rng.randrange(10**9):09d}" + rng.choice(["GB", "DE", "NL"]),
        "".join(rng.choice(letters + "23456789") for _ in range(6)),
        f"MRN {rng.randrange(10**7):07d}",
    ])  # fmt: skip


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    roll = rng.random()
    if roll < 0.3:
        date = dt.date(2016, 1, 1) + dt.timedelta(days=rng.randrange(365 * 11))
        return Decoy("other_date", _date_form(date, _lang(context), context.name, rng)[0])
    if roll < 0.5:
        return Decoy("company", _company(rng))
    if roll < 0.65:
        return Decoy("product", rng.choice(PRODUCTS))
    if roll < 0.8:
        return Decoy("street_business", f"{rng.choice(STREETS)} {rng.choice(BUSINESSES)}")
    return Decoy("reference", _reference(rng))


# --- contexts -------------------------------------------------------------------------------------------------------


def _spoken(key: str) -> str:
    """A key as a label writes it: ``payoutIban`` and ``payout_iban`` are "payout Iban" and "payout iban"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", key).replace("_", " ")


def _stamp(rng: random.Random) -> str:
    return f"{rng.randint(7, 19):02d}:{rng.randint(0, 59):02d}"


def email_quoted(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A customer's reply on top of two levels of quoted messages (``>`` and ``>>``), each with its attribution."""
    split_at = rng.randint(1, len(items))
    top, quoted = items[:split_at], items[split_at:]
    builder.text(rng.choice(["Hi,\n\n", "Hello again,\n\n", "Hi team,\n\n"]))
    for index, item in enumerate(top):
        builder.text(" " if index else "").template(clause(item, rng, phrases_dev_sixth.CLAUSES["en"]), item)
    builder.text(rng.choice(["\n\nThanks!\n\n", "\n\nCheers\n\n", "\n\nBest\n\n"]))
    half = (len(quoted) + 1) // 2
    for depth, level in enumerate([quoted[:half], quoted[half:]], start=1):
        if not level:
            continue
        builder.text(("> " if depth > 1 else "") + "On ").value(extra_decoy_date(rng))
        builder.text(f" at {_stamp(rng)}, {rng.choice(['Customer Care', 'the Billing Team'])} wrote:\n")
        for item in level:
            said = clause(item, rng, phrases_dev_sixth.CLAUSES["en"])
            builder.text(">" * depth + " ").template(said, item).text("\n")
        builder.text(">" * depth + "\n")


def extra_decoy_date(rng: random.Random) -> Decoy:
    """An e-mail's attribution date ("Tue, 14 Jan 2025"): a date that is no date of birth."""
    date = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(365 * 3))
    return Decoy("other_date", date.strftime("%a, %d %b %Y"))


def meeting_notes(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Minutes: a title with the meeting's date, then bullets; a person is an action item's owner."""
    builder.text(f"# {rng.choice(['Ops sync', 'Customer review', 'Renewal call', 'Site visit debrief'])} - ")
    builder.value(extra_decoy_date(rng)).text("\n\n## Notes\n")
    for item in items:
        if is_type(item, "PERSON") and rng.random() < 0.5:
            task = rng.choice(["send the revised quote", "book the venue", "chase the refund", "update the CRM"])
            builder.text(f"- [ ] {task} (owner: ").value(item).text(")\n")
        else:
            builder.text("- ").template(clause(item, rng, phrases_dev_sixth.CLAUSES["en"]), item).text("\n")


def shipping_label(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A carrier's label: the recipient block (name, street, town) in capitals, then labelled lines."""
    order = {"PERSON": 0, "STREET_ADDRESS": 1, "LOCATION": 2}
    block = sorted((i for i in items if isinstance(i, Pii) and i.type in order), key=lambda i: order[_label(i)])
    rest = [i for i in items if i not in block]
    builder.text(f"{rng.choice(['DHL EXPRESS', 'UPS STANDARD', 'DPD CLASSIC', 'GLS'])}   {rng.randint(1, 30)} KG\n")
    builder.text("SHIP TO:\n")
    for line in block:
        builder.value(line)
        if is_type(line, "LOCATION"):
            builder.text(f" {rng.randint(1000, 99999)}")
        builder.text("\n")
    for key, item in zip(field_names(rest, rng, KEYS), rest, strict=True):
        builder.text(f"{_spoken(key).upper()}: ").value(item).text("\n")
    builder.text(f"PCS 1/{rng.randint(1, 3)}")


_BILL_TO = ("PERSON", "STREET_ADDRESS", "LOCATION", "EMAIL_ADDRESS")


def invoice(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An invoice: bill-to details, a line item, and the payment details under it."""
    builder.text(f"INVOICE {rng.randint(2024, 2026)}-{rng.randint(1, 9999):04d}\n\nBill to:\n")
    for item in sorted((i for i in items if is_type(i, *_BILL_TO)), key=lambda i: _BILL_TO.index(_label(i))):
        builder.value(item).text("\n")
    builder.text(f"\nQty  Description{' ' * 20}Amount\n1    Annual support plan{' ' * 12}"
                 f"{rng.randint(100, 9000)}.00\n\n")  # fmt: skip
    for key, item in zip(field_names(items, rng, KEYS), items, strict=True):
        if not is_type(item, *_BILL_TO):
            builder.text(f"{_spoken(key).title()}: ").value(item).text("\n")
    builder.text("Payment due within 30 days.")


def crm_tsv(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A CRM export: tab-separated, a header row, then the record."""
    header = "\t".join(["Record ID", *field_names(items, rng, KEYS), "Lead Source"])
    builder.text(f"{header}\n{rng.randint(10**8, 10**9)}")
    for item in items:
        builder.text("\t").value(item)
    builder.text("\t" + rng.choice(["Web", "Referral", "Trade Show"]))


def jsonl_nested(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """JSON Lines: one event per value, the value two or three objects deep."""
    for index, (key, item) in enumerate(zip(field_names(items, rng, KEYS), items, strict=True)):
        event = rng.choice(["profile.updated", "checkout.completed", "user.created", "ticket.merged"])
        outer = rng.choice(["data", "payload", "after"])
        inner = rng.choice(["customer", "profile", "billing", "contact"])
        head = json.dumps({"ts": 1_700_000_000 + rng.randrange(10**8), "event": event})[:-1]
        builder.text(("\n" if index else "") + f'{head}, "{outer}": {{"{inner}": {{"{key}": "').value(item)
        builder.text(f'", "verified": {rng.choice(["true", "false"])}}}}}}}')


def code_literal(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A test fixture: a Python dict literal, a JavaScript object literal or a Python call with keyword arguments."""
    style = rng.choice(["py-dict", "js-object", "py-kwargs"])
    keys = [_spoken(key).lower().replace(" ", "_") for key in field_names(items, rng, KEYS)]
    opening = {"py-dict": "CUSTOMER = {\n", "js-object": "const fixture = {\n",
               "py-kwargs": "customer = Customer.objects.create(\n"}[style]  # fmt: skip
    builder.text(opening)
    for key, item in zip(keys, items, strict=True):
        quote = _quote(item.value, style)
        lead = {"py-dict": f"    '{key}': ", "js-object": f"  {key}: ", "py-kwargs": f"    {key}="}[style]
        builder.text(lead + quote).value(item).text(quote + ",\n")
    builder.text({"py-dict": "}", "js-object": "};", "py-kwargs": ")"}[style])


def _quote(value: str, style: str) -> str:
    """The quote a literal of `value` takes: single if it can, double if it holds a single quote, and a raw
    multi-line string (triple quotes, a JavaScript template) if it holds a line break or both quotes."""
    if "\n" in value or ("'" in value and '"' in value):
        return "`" if style == "js-object" else '"""'
    return '"' if "'" in value else "'"


_HL7_FIELD = {"PERSON": 5, "DATE_OF_BIRTH": 7, "STREET_ADDRESS": 11, "PHONE_NUMBER": 13, "US_SSN": 19}


def hl7(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An HL7 v2 ADT message: the patient's values in their PID fields, the others in NTE comment segments."""
    builder.text(f"MSH|^~\\&|ADT1|GOOD HEALTH HOSPITAL|LAB|GHH|{rng.randint(2024, 2026)}0{rng.randint(1, 9)}"
                 f"{rng.randint(10, 28)}{rng.randint(10, 23)}{rng.randint(10, 59)}||ADT^A0{rng.randint(1, 8)}|"
                 f"MSG{rng.randint(10**5, 10**6)}|P|2.5\n")  # fmt: skip
    pid = {f: i for i in items if isinstance(i, Pii) and (f := _HL7_FIELD.get(i.type)) is not None}
    located = [i for i in items if is_type(i, "LOCATION")]
    builder.text(f"PID|1||{rng.randint(10**5, 10**7)}^^^GHH^MR")
    for field in range(4, 20):
        builder.text("|")
        patient_value = pid.get(field)
        if patient_value is not None:
            builder.value(patient_value)
            if field == 11:
                builder.text("^^")
                if located:
                    builder.value(located.pop())
        elif field == 8:
            builder.text(rng.choice("MFU"))
    builder.text("\n")
    notes = [i for i in items if i not in pid.values() and (not is_type(i, "LOCATION") or i in located)]
    for index, item in enumerate(notes, start=1):
        builder.text(f"NTE|{index}||").template(clause(item, rng, phrases_dev_sixth.CLAUSES["en"]), item).text("\n")
    builder.text(f"PV1|1|{rng.choice('IOE')}|{rng.choice(['2000^2012^01', 'ER^01^A'])}")


def fhir_json(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A FHIR Patient resource, pretty-printed: each value where the resource keeps it; the rest as extensions."""
    builder.text(f'{{\n  "resourceType": "Patient",\n  "id": "pat-{rng.randint(1000, 99999)}",\n')
    paths = {"PERSON": ('  "name": [{"use": "official", "text": "', '"}],\n'),
             "DATE_OF_BIRTH": ('  "birthDate": "', '",\n'),
             "STREET_ADDRESS": ('  "address": [{"line": ["', '"]}],\n'),
             "LOCATION": ('  "managingOrganization": {"display": "Clinic of ', '"},\n'),
             "PHONE_NUMBER": ('  "telecom": [{"system": "phone", "value": "', '"}],\n'),
             "EMAIL_ADDRESS": ('  "contact": [{"telecom": [{"system": "email", "value": "', '"}]}],\n'),
             "US_SSN": ('  "identifier": [{"system": "http://hl7.org/fhir/sid/us-ssn", "value": "', '"}],\n'),
             "NATIONAL_ID": ('  "identifier": [{"type": {"text": "National ID"}, "value": "', '"}],\n')}  # fmt: skip
    used: set[str] = set()
    extensions = []
    for item in items:
        label = _label(item)
        if label in paths and label not in used and not (label == "NATIONAL_ID" and "US_SSN" in used):
            used.add(label)
            before, after = paths[label]
            builder.text(before).value(item).text(after)
        else:
            extensions.append(item)
    builder.text('  "extension": [')
    for index, (key, item) in enumerate(zip(field_names(extensions, rng, KEYS), extensions, strict=True)):
        builder.text(("," if index else "") + f'\n    {{"url": "urn:acme:{key}", "valueString": "').value(item)
        builder.text('"}')
    builder.text("\n  ],\n" if extensions else "],\n")
    builder.text(f'  "active": {rng.choice(["true", "false"])}\n}}')


# What a statement line says before each kind of value it books; other values are customer details above the lines.
_BOOKED = {"IBAN_CODE": "SEPA CT TO ", "CREDIT_CARD": "CARD PAYMENT ", "LOCATION": "POS ATM WITHDRAWAL ",
           "PHONE_NUMBER": "MOBILE TOP-UP ", "company": "DIRECT DEBIT ", "street_business": "CARD PURCHASE ",
           "product": "CARD PURCHASE "}  # fmt: skip


def bank_statement(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A bank statement in capitals: the holder and address, labelled customer details, then a transaction line per
    value a statement books (a payee's IBAN, a card, an ATM's town, a top-up, a merchant; other decoys as references).
    """
    holder = [i for i in items if is_type(i, "PERSON", "STREET_ADDRESS")]
    details: list[Item] = [i for i in items if isinstance(i, Pii) and i not in holder and i.type not in _BOOKED]
    booked = [i for i in items if i not in holder and i not in details]
    builder.text("STATEMENT OF ACCOUNT\n")
    for item in holder:
        builder.value(item).text("\n")
    for key, item in zip(field_names(details, rng, KEYS), details, strict=True):
        builder.text(f"{_spoken(key).upper()}: ").value(item).text("\n")
    balance = rng.randint(500, 20_000)
    builder.text("\nDATE    DESCRIPTION                              AMOUNT    BALANCE\n")
    for item in booked:
        day, month = rng.randint(1, 28), rng.choice(["JAN", "FEB", "MAR", "APR", "MAY", "JUN"])
        amount = rng.randint(5, 900)
        balance -= amount
        shown = Decoy(item.kind, item.value.upper()) if isinstance(item, Decoy) and item.kind in (
            "company", "street_business", "product") else item  # fmt: skip
        lead = _BOOKED.get(_label(item), "TRANSFER REF ")
        builder.text(f"{day:02d} {month}  {lead}").value(shown).text(f"   -{amount}.00   {balance}.00\n")
    builder.text("CLOSING BALANCE " + f"{balance}.00")


def itinerary(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A rail itinerary: the passenger as SURNAME/GIVEN with a title, journeys "from X to Y" between towns, other
    details."""
    builder.text("E-TICKET / ITINERARY\nBOOKING REF: ")
    builder.value(Decoy("reference", "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))))
    builder.text("\n")
    for item in items:
        if is_type(item, "PERSON"):
            builder.text("PASSENGER: ").value(item).text(f" {rng.choice(TITLES[:3])}\n")
        elif is_type(item, "LOCATION"):
            other = location(rng, "dev", _ITINERARY)
            pair = [item, other] if rng.random() < 0.5 else [other, item]
            builder.text(f"TRAIN {rng.choice(['RJ', 'ICE', 'IC', 'EC', 'FR', 'R'])} {rng.randint(10, 9999)} FROM ")
            builder.value(pair[0]).text(" TO ").value(pair[1]).text(f" DEP {_stamp(rng)}\n")
        else:
            key = field_name(item, rng, KEYS, set())
            builder.text(f"{_spoken(key).upper()}: ").value(item).text("\n")
    builder.text("CLASS: 2  FARE: " + rng.choice(["SUPER SPARPREIS", "FLEX", "SAVER RETURN"]))


def resume(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A CV: the name as its heading, a contact line, personal details, then experience at companies."""
    people = [i for i in items if is_type(i, "PERSON")]
    contact = [i for i in items if is_type(i, "LOCATION", "PHONE_NUMBER", "EMAIL_ADDRESS")]
    rest = [i for i in items if i not in people and i not in contact]
    for item in people:
        builder.text("# ").value(item).text("\n")
    for index, item in enumerate(contact):
        builder.text(" · " if index else "").value(item)
    builder.text(("\n" if contact else "") + ("\n## Personal details\n" if rest else ""))
    labels = {"DATE_OF_BIRTH": "Date of birth", "STREET_ADDRESS": "Address", "NATIONAL_ID": "ID no.",
              "US_SSN": "SSN", "IBAN_CODE": "Bank", "company": "Current employer", "product": "Tools",
              "other_date": "Available from"}  # fmt: skip
    for item in rest:
        builder.text(f"{labels.get(_label(item), _spoken(field_name(item, rng, KEYS, set())).capitalize())}: ")
        builder.value(item).text("\n")
    builder.text(f"\n## Experience\n{rng.randint(2010, 2020)}-present  {rng.choice(['Analyst', 'Nurse', 'Engineer'])}")


def slack(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Team chat: a timestamped message per value, a person often @mentioned, threads answered with a reply count."""
    channel = rng.choice(["#ops", "#billing", "#people-team", "#support-escalations"])
    builder.text(f"{channel}\n")
    minute = rng.randint(7 * 60, 17 * 60)
    for item in items:
        author = rng.choice(["ana.k", "dev-bot", "tomek", "jules", "mreyes", "ops-oncall"])
        minute += rng.randint(0, 25)
        builder.text(f"[{minute // 60:02d}:{minute % 60:02d}] {author}: ")
        if is_type(item, "PERSON") and rng.random() < 0.4:
            builder.text("@").value(item).text(" " + {"en": "can you take a look?", "es": "¿puedes mirarlo?",
                         "fr": "tu peux regarder ?", "de": "kannst du mal schauen?", "it": "puoi dare un'occhiata?",
                         "pt": "pode dar uma olhada?", "nl": "kun je even kijken?",
                         "pl": "możesz zerknąć?"}[lang])  # fmt: skip
        else:
            builder.template(clause(item, rng, phrases_dev_sixth.CLAUSES[lang]), item)
        if rng.random() < 0.3:
            builder.text(f"  ({rng.randint(1, 6)} replies)")
        builder.text("\n")


_ITINERARY = Context("itinerary", itinerary, "en", 0.9)
_CONTEXTS: tuple[Context, ...] = (
    Context("email-quoted", email_quoted, "en", 1.2),
    Context("meeting-notes", meeting_notes, "en", 0.9),
    Context("shipping-label", shipping_label, "en", 0.8),
    Context("invoice", invoice, "en", 0.8),
    Context("crm-tsv", crm_tsv, "en", 0.8),
    Context("jsonl-nested", jsonl_nested, "en", 0.8),
    Context("code-literal", code_literal, "en", 0.8, multiline=True),
    Context("hl7", hl7, "en", 0.7),
    Context("fhir-json", fhir_json, "en", 0.7),
    Context("bank-statement", bank_statement, "en", 0.7),
    _ITINERARY,
    Context("resume", resume, "en", 0.8),
    *(Context(f"slack-{lang}", slack, lang, 1.0 if lang == "en" else 0.45) for lang in CHAT_LANGS),
)
CONTEXTS_SIXTH = with_extra_decoys(_CONTEXTS, extra_decoy)


def _restart(seed: int) -> None:
    _faker.restart(seed)
    _NAME_SOURCE["current"] = NameSource.build("dev", random.Random(f"pii-corpus:{NAME}:{seed}:names"))


MAKERS: dict[str, Maker] = {"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth,
                           "STREET_ADDRESS": street_address}  # fmt: skip


def generate_sixth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The sixth dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_SIXTH, MAKERS, _restart)
