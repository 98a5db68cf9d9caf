"""A ninth `dev`-side corpus: values from sources no other split draws, in contexts none of them writes, built
before any detector was run on it, so that its misses show whether fixes made on the other dev splits are generic.

    python -m bench.guardrails --split dev-9 --skip-throughput [--misses FILE]

- PERSON: names of Peru, Bolivia, Ecuador, Mexico, Guatemala, Honduras, Costa Rica, Panama, Brazil, Uruguay,
  Iceland, Greece, Cyprus and Bulgaria as their people write them in Latin letters (``ninth_names``; Spanish and
  Portuguese ones also with two surnames), and Hebrew, Arabic, Persian, Bengali, Nepali and Thai names in their own
  scripts (Faker's he_IL, ar_SA, fa_IR, bn_BD, ne_NP and th_TH); in capitals in SWIFT messages, as ``LAST*FIRST`` in
  X12 name segments.
- LOCATION: provinces, states and regions of Iceland, Mexico, Peru, Bolivia, Ecuador, Brazil, Greece, Ukraine,
  Bulgaria, Nepal, Pakistan, Tanzania, Uganda, Vietnam and Spain (pycountry), and country names in Icelandic,
  Basque, Catalan, Galician, Swahili, Afrikaans, Zulu, Brazilian Portuguese, Vietnamese, Greek, Hebrew, Ukrainian,
  Bulgarian, Serbian, Bengali, Nepali and Urdu (pycountry's translations).
- DATE_OF_BIRTH: thirteen more languages' forms (``written_dates``), and ISO 8601 and ``CCYYMMDD`` where payment
  and enrolment records write a date so.
- STREET_ADDRESS: Faker's Ukrainian, Greek, Hebrew, Thai, Taiwanese and Armenian addresses in their own scripts, and
  Icelandic, Brazilian, Mexican, Andean, Catalan, Basque, Galician, Tanzanian, Afrikaans and Vietnamese address
  forms written here with street names of those places' people.
- The other types: the dev generators of every split.

Contexts: SWIFT MT103 messages, ISO 20022 credit transfers (XML), X12 834 enrolments, SRT subtitles, TOML and INI
configuration, GraphQL mutations, Protobuf text messages, RFC 5424 syslog with structured data, and chat in
Vietnamese, Greek, Hebrew and Bulgarian. Hard negatives beside the shared decoys: dates that are no date of birth
(``other_date``), diseases, prizes, algorithms and products named after people (``person_named``) and after places
(``place_named``), identifiers of other shapes (BICs, LEIs, ISINs, DOIs, UN/LOCODEs: ``other_id``) and build
references (commit ids, semver, image tags, epoch timestamps: ``tech_ref``).

Values are of the `dev` half of every pool (``partition``), drawn with a seed of its own. Like `dev` it may be tuned
on; it was scored once before any tuning.
"""

from __future__ import annotations

import datetime as dt
import gettext
import random
import string
import unicodedata
from dataclasses import dataclass
from functools import cache

import pycountry
from stdnum.iso7064 import mod_97_10

from bench.pii_corpus import phrases_dev_ninth as phrasing
from bench.pii_corpus import written_dates
from bench.pii_corpus.contexts import Context, Item, field_names, with_extra_decoys
from bench.pii_corpus.dev_scaffold import clause, generate_dev_split, is_type, named_thing_or_id_decoy, take
from bench.pii_corpus.generator import Maker
from bench.pii_corpus.model import Case, Decoy, Phrasebook, Pii, TextBuilder
from bench.pii_corpus.ninth_names import ninth_names
from bench.pii_corpus.partition import draw_in_split, in_split, normalise, split_of
from bench.pii_corpus.person_names import in_split as name_in_split
from bench.pii_corpus.seeded_fakers import SeededFakers

NAME = "dev-9"
SEED = 1732052
ENTITIES_PER_TYPE = 250
# Faker locales whose names are written in a script without capitals (none of the other splits' names are).
SCRIPT_LOCALES = ("he_IL", "ar_SA", "fa_IR", "bn_BD", "ne_NP", "th_TH")
# Countries whose people often carry two surnames, written both.
TWO_SURNAMES = ("PE", "BO", "EC", "MX", "GT", "HN", "CR", "PA", "BR", "UY")
REGION_COUNTRIES = ("IS", "MX", "PE", "BO", "EC", "BR", "GR", "UA", "BG", "NP", "PK", "TZ", "UG", "VN", "ES")
COUNTRY_LANGUAGES = ("is", "eu", "ca", "gl", "sw", "af", "zu", "pt_BR", "vi", "el", "he", "uk", "bg", "sr", "bn",
                     "ne", "ur")  # fmt: skip
# Faker addresses in their own scripts, and the address forms written here.
SCRIPT_ADDRESSES = ("uk_UA", "el_GR", "he_IL", "th_TH", "zh_TW", "hy_AM")
ADDRESS_FORMS = ("is", "br", "mx", "andean", "ca", "eu", "gl", "tz", "af", "vi")
# Icelandic and Afrikaans street names are a word and a kind of street; these are common ones.
_ICELANDIC_STEMS = ("Lauga", "Hverfis", "Skóla", "Berg", "Kirkju", "Grettis", "Njáls", "Hring", "Vestur", "Sól",
                    "Bárugata", "Tjarnar")  # fmt: skip
_ICELANDIC_KINDS = ("vegur", "gata", "stígur", "braut")
_AFRIKAANS_STEMS = ("Kerk", "Voortrekker", "Baken", "Dorp", "Molen", "Rivier", "Berg", "Kloof", "Eike", "Wilger",
                    "Jakaranda", "Protea")  # fmt: skip
_AFRIKAANS_KINDS = ("straat", "weg", "laan", "rylaan")
# The chats' languages: their dates, and the language their country names are drawn in half of the time.
CHAT_LANGUAGES = ("vi", "el", "he", "bg")

# --- values -------------------------------------------------------------------------------------------------------

_faker = SeededFakers(NAME, SEED)


def _in_script(name: str) -> bool:
    """Letters and combining marks of one name, words split by single spaces (Faker's ne_NP holds a few names with
    parentheses and joiners)."""
    return all(char == " " or unicodedata.category(char)[0] in "LM" for char in name) and "  " not in name


def _script_person(rng: random.Random, split: str) -> Pii:
    locale = rng.choice(SCRIPT_LOCALES)
    fake = _faker(locale)
    for _ in range(10_000):
        value = f"{fake.first_name()} {fake.last_name()}"
        if _in_script(value) and split_of(value) == split:
            return Pii("PERSON", value, f"person:{locale}:script")
    raise RuntimeError("no name of the split after 10000 draws")


def _latin_person(rng: random.Random, split: str) -> Pii:
    for _ in range(10_000):
        country, first, last, second = ninth_names().person(rng)
        two = country in TWO_SURNAMES and last != second and rng.random() < 0.4
        value = f"{first} {last} {second}" if two else f"{first} {last}"
        if name_in_split(value, split):
            return Pii("PERSON", value, f"person:{country}:{'two-surnames' if two else 'first-last'}")
    raise RuntimeError("no name of the split after 10000 draws")


def person(rng: random.Random, split: str, context: Context) -> Pii:
    # SWIFT's character set and X12's name elements are Latin letters.
    if context.name in ("swift-mt103", "edi-x12") or rng.random() < 0.62:
        return _latin_person(rng, split)
    return _script_person(rng, split)


@dataclass(frozen=True)
class _Places:
    regions: list[tuple[str, str]]  # (name, country)
    countries: list[tuple[str, str]]  # (name, language)


@cache
def _places() -> _Places:
    regions = [(s.name, code) for code in REGION_COUNTRIES
               for s in sorted(pycountry.subdivisions.get(country_code=code), key=lambda s: s.code)
               if not any(c in s.name for c in "/()[]0123456789,")]  # fmt: skip
    countries = []
    for language in COUNTRY_LANGUAGES:
        translation = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[language])
        for country in sorted(pycountry.countries, key=lambda c: c.alpha_2):
            name = translation.gettext(country.name)
            if name != country.name and not any(c in name for c in ",()[]"):  # translated, and no "Korea, ..."
                countries.append((name, language))
    keep = set(in_split([n for n, _ in regions + countries], "dev"))
    return _Places([p for p in regions if p[0] in keep], [p for p in countries if p[0] in keep])


def location(rng: random.Random, split: str, context: Context) -> Pii:
    places = _places()
    if context.lang in CHAT_LANGUAGES and rng.random() < 0.5:
        name, language = rng.choice([p for p in places.countries if p[1] == context.lang])
        return Pii("LOCATION", name, f"location:country:{language}")
    if rng.random() < 0.5:
        # the country first, then one of its regions: Uganda's 130 would otherwise crowd out Nepal's 7
        country = rng.choice(REGION_COUNTRIES)
        name = rng.choice([n for n, c in places.regions if c == country])
        return Pii("LOCATION", name, f"location:region:{country}")
    # the language first, then one of its names: Swahili's 14 would otherwise be drawn once in a while
    language = rng.choice(COUNTRY_LANGUAGES)
    name = rng.choice([n for n, lang in places.countries if lang == language])
    return Pii("LOCATION", name, f"location:country:{language}")


def _surname(rng: random.Random, *countries: str) -> str:
    return rng.choice(ninth_names().names["last"][rng.choice(countries)])


def _vietnamese_name() -> str:
    """A person's full name as Vietnamese streets carry it, family name first ("Nguyễn Văn Hoàng"): Faker's
    vi_VN ``name()`` puts a title first ("Chị", "Bác"), and its ``first_name()`` falls back to English names."""
    fake = _faker("vi_VN")
    return f"{fake.last_name()} {fake.middle_name()} {fake.first_name_male()}"


def _address(form: str, rng: random.Random) -> str:
    if form in SCRIPT_ADDRESSES:
        return " ".join(_faker(form).street_address().split())
    n, flat, floor = rng.randint(1, 480), rng.randint(1, 40), rng.randint(1, 9)
    first = rng.choice(ninth_names().names["first_female"]["BR"] + ninth_names().names["first_male"]["BR"])
    forms = {
        "is": [
            f"{rng.choice(_ICELANDIC_STEMS)}{rng.choice(_ICELANDIC_KINDS)} {n}",
            f"{rng.choice(_ICELANDIC_STEMS)}{rng.choice(_ICELANDIC_KINDS)} {n}, íbúð {flat}",
        ],
        "br": [f"Rua {first} {_surname(rng, 'BR')}, {n}", f"Av. {_surname(rng, 'BR')}, {n} - Apto {flat}{floor}"],
        "mx": [
            f"Calle {_surname(rng, 'MX')} #{n}, Col. {_surname(rng, 'MX', 'GT')}",
            f"Av. {_surname(rng, 'MX')} {n} Int. {flat}",
        ],
        "andean": [f"Jr. {_surname(rng, 'PE', 'BO')} {n}", f"Av. {_surname(rng, 'PE', 'EC')} {n}, Dpto. {flat}"],
        "ca": [
            f"Carrer de {_surname(rng, 'UY', 'CR')}, {n}, {floor}r {rng.randint(1, 4)}a",
            f"C/ {_surname(rng, 'UY', 'PA')}, {n}",
        ],
        "eu": [f"{_surname(rng, 'UY', 'HN')} kalea {n}, {floor}. ezk.", f"{_surname(rng, 'CR', 'PA')} etorbidea {n}"],
        "gl": [f"Rúa {_surname(rng, 'UY', 'GT')}, {n}, {floor}º", f"Avda. {_surname(rng, 'HN', 'CR')}, {n}"],
        "tz": [f"Mtaa wa {_faker('sw').last_name()}, Nyumba Na. {n}", f"Barabara ya {_faker('sw').last_name()} {n}"],
        "af": [
            f"{rng.choice(_AFRIKAANS_STEMS)}{rng.choice(_AFRIKAANS_KINDS)} {n}",
            f"{rng.choice(_AFRIKAANS_STEMS)}{rng.choice(_AFRIKAANS_KINDS)} {n}, Woonstel {flat}",
        ],
        "vi": [f"Số {n} đường {_vietnamese_name()}", f"{n}/{flat} phố {_vietnamese_name()}"],
    }
    return rng.choice(forms[form])


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice((*SCRIPT_ADDRESSES, *ADDRESS_FORMS))
    value = draw_in_split(lambda: _address(form, rng), split)
    return Pii("STREET_ADDRESS", value, f"address:{form}" + (":script" if form in SCRIPT_ADDRESSES else ""))


def _style(context: Context, rng: random.Random) -> str:
    if context.name in ("iso20022-xml", "toml-config"):
        return "iso"
    if context.name in ("edi-x12", "swift-mt103"):
        return "ccyymmdd"
    if context.lang in CHAT_LANGUAGES:
        return context.lang
    return rng.choice(written_dates.STYLES)


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    def make() -> tuple[str, str]:
        date = dt.date(1936, 1, 1) + dt.timedelta(days=rng.randrange(365 * 70))
        return written_dates.written(date, _style(context, rng), rng)

    value, form = draw_in_split(make, split, key=lambda made: made[0])
    return Pii("DATE_OF_BIRTH", value, f"dob:{form}")


# --- hard negatives of this corpus ----------------------------------------------------------------------------

PERSON_NAMED = ("Alzheimer's disease", "Tourette syndrome", "Down syndrome", "Hashimoto's thyroiditis",
                "Dijkstra's algorithm", "Kalman filter", "Bézier curve", "Fibonacci sequence", "Nobel Prize",
                "Pulitzer Prize", "Heimlich maneuver", "Ponzi scheme", "Venn diagram", "Rubik's Cube",
                "Tesla Model 3", "Porsche Cayenne", "Hermès Birkin", "Marshall Plan", "Bluetooth LE",
                "Gaussian blur")  # fmt: skip
PLACE_NAMED = ("Stockholm syndrome", "Lisbon Treaty", "Geneva Conventions", "Brussels sprouts", "Dijon mustard",
               "Panama hat", "Oxford comma", "Bologna Process", "Helsinki Accords", "Copenhagen interpretation",
               "Tasmanian devil", "Havana Club", "Sevilla FC", "Santos FC", "Istanbul Convention",
               "Manila envelope", "Yorkshire pudding", "Zika virus", "Marburg virus", "Peking duck")  # fmt: skip
EXTRA_KINDS = ("other_date", "person_named", "place_named", "other_id", "tech_ref")


def _letters(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_uppercase) for _ in range(n))


def _lei(rng: random.Random) -> str:
    base = f"{rng.randrange(10**4):04d}00" + "".join(rng.choice(string.ascii_uppercase + string.digits)
                                                     for _ in range(12))  # fmt: skip
    return base + mod_97_10.calc_check_digits(base)


def _other_id(rng: random.Random) -> str:
    return rng.choice([
        f"{_letters(rng, 4)}{rng.choice(['DE', 'BR', 'MX', 'IS', 'GR', 'BG'])}{_letters(rng, 2)}",  # a BIC
        _lei(rng),
        f"{rng.choice(['US', 'BR', 'MX', 'GR'])}{rng.randrange(10**9):09d}{rng.randint(0, 9)}",  # ISIN-shaped
        f"doi:10.{rng.randint(1000, 9999)}/{rng.choice(['jama', 'nature', 'acm'])}.{rng.randint(2015, 2025)}."
        f"{rng.randint(100, 99999)}",
        f"{rng.choice(['BR', 'MX', 'IS', 'GR', 'BG', 'PE'])} {_letters(rng, 3)}",  # a UN/LOCODE
    ])  # fmt: skip


def _tech_ref(rng: random.Random) -> str:
    return rng.choice([
        f"{rng.getrandbits(160):040x}",
        f"{rng.randint(0, 5)}.{rng.randint(0, 40)}.{rng.randint(0, 30)}",
        f"ghcr.io/acme/{rng.choice(['ledger', 'edge', 'kyc'])}:{rng.randint(1, 9)}.{rng.randint(0, 20)}-alpine",
        f"{rng.randint(1_500_000_000, 1_800_000_000)}",
    ])  # fmt: skip


def _other_date(rng: random.Random, context: Context) -> str:
    date = dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(365 * 11))
    return written_dates.written(date, _style(context, rng), rng)[0]


def extra_decoy(rng: random.Random, context: Context) -> Decoy:
    return named_thing_or_id_decoy(
        rng, context, EXTRA_KINDS, _other_date, PERSON_NAMED, PLACE_NAMED, _other_id, _tech_ref
    )


# --- contexts -------------------------------------------------------------------------------------------------------


def _upper(item: Item) -> Item:
    """`item` in capitals, as SWIFT messages write them: words only; numbers, keys and tokens keep their case. A
    value whose capitals case-fold to another value keeps its case."""
    if (
        isinstance(item, Pii)
        and item.type in ("PERSON", "LOCATION", "STREET_ADDRESS")
        and item.value.upper() != item.value
        and normalise(item.value.upper()) == normalise(item.value)
    ):
        return Pii(item.type, item.value.upper(), item.subtype + ":upper")  # fmt: skip
    return item


def swift_mt103(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A customer credit transfer: the ordering customer in field 50F's numbered lines (name, address, town, date of
    birth, national id), the beneficiary in field 59, the rest in remittance (70) and bank-to-bank (72) lines."""
    rest = list(items)
    sender, receiver = f"{_letters(rng, 4)}BRSP", f"{_letters(rng, 4)}MXMM"
    builder.text(f"{{1:F01{sender}AXXX{rng.randrange(10**10):010d}}}{{2:I103{receiver}XXXXN}}"
                 f"{{3:{{108:{_letters(rng, 3)}{rng.randrange(10**6):06d}}}}}{{4:\n")  # fmt: skip
    builder.text(f":20:{_letters(rng, 2)}{rng.randrange(10**8):08d}\n:23B:CRED\n")
    amount = f"{rng.choice(['EUR', 'USD', 'BRL'])}{rng.randint(100, 99999)},{rng.randint(0, 99):02d}"
    builder.text(f":32A:{rng.randint(24, 26)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{amount}\n")
    account = take(rest, "IBAN_CODE")
    builder.text(":50F:/")
    if account:
        builder.value(account)
    else:
        builder.text(f"{rng.randrange(10**10):010d}")
    name = take(rest, "PERSON")
    builder.text("\n1/")
    if name:
        builder.value(_upper(name))
    else:
        builder.text("ACME COMERCIO LTDA")
    for line, entity_type in (("2/", "STREET_ADDRESS"), ("3/BR/", "LOCATION"), ("4/", "DATE_OF_BIRTH"),
                              ("7/BR/", "NATIONAL_ID")):  # fmt: skip
        item = take(rest, entity_type)
        if item:
            builder.text(f"\n{line}").value(_upper(item))
    builder.text(f"\n:57A:{receiver}\n:59:/")
    account = take(rest, "IBAN_CODE")
    if account:
        builder.value(account)
    else:
        builder.text(f"{rng.randrange(10**12):012d}")
    name = take(rest, "PERSON")
    builder.text("\n")
    if name:
        builder.value(_upper(name))
    else:
        builder.text("COMERCIALIZADORA DEL NORTE SA")
    for index, item in enumerate(rest):
        field = ":70:/RFB/" if index == 0 else (":72:/INS/" if index == 1 else "//")
        builder.text(f"\n{field}").template(clause(item, rng, phrasing.CLAUSES["en"]).upper(), _upper(item))
    builder.text(f"\n:71A:{rng.choice(['SHA', 'OUR', 'BEN'])}\n-}}")


# ISO 20022 elements of a creditor: (the element wrapping a group, [(type, opening before the value, closing after
# it)]), in the schema's order.
_CREDITOR_ELEMENTS: tuple[tuple[str, tuple[tuple[str, str, str], ...]], ...] = (
    ("", (("PERSON", "<Nm>", "</Nm>"),)),
    ("PstlAdr", (("STREET_ADDRESS", "<StrtNm>", "</StrtNm>"), ("LOCATION", "<TwnNm>", "</TwnNm>"))),
    ("Id><PrvtId", (
        ("DATE_OF_BIRTH", "<DtAndPlcOfBirth><BirthDt>",
         "</BirthDt><CityOfBirth>NA</CityOfBirth><CtryOfBirth>BR</CtryOfBirth></DtAndPlcOfBirth>"),
        ("NATIONAL_ID", "<Othr><Id>", "</Id><SchmeNm><Cd>NIDN</Cd></SchmeNm></Othr>"),
        ("US_SSN", "<Othr><Id>", "</Id><SchmeNm><Cd>SOSE</Cd></SchmeNm></Othr>"),
    )),
    ("CtctDtls", (("PHONE_NUMBER", "<PhneNb>", "</PhneNb>"), ("EMAIL_ADDRESS", "<EmailAdr>", "</EmailAdr>"))),
)  # fmt: skip


def _closing(wrapper: str) -> str:
    """The closing tags of a wrapper written ``Outer><Inner``."""
    return "".join(f"</{tag}>" for tag in reversed(wrapper.split("><")))


def iso20022_xml(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A pain.001 credit transfer transaction: the creditor's name, address, birth and ids in their elements, the
    account in ``CdtrAcct``, the rest in unstructured remittance lines."""
    rest = list(items)
    builder.text("<CdtTrfTxInf>\n  <PmtId><EndToEndId>")
    builder.text(f"E2E-{rng.randrange(16**12):012X}</EndToEndId></PmtId>\n")
    builder.text(
        f'  <Amt><InstdAmt Ccy="{rng.choice(["EUR", "ISK", "BGN"])}">{rng.randint(10, 9999)}.'
        f"{rng.randint(0, 99):02d}</InstdAmt></Amt>\n  <Cdtr>\n"
    )
    for wrapper, elements in _CREDITOR_ELEMENTS:
        taken = [(item, opening, closing) for entity_type, opening, closing in elements
                 if (item := take(rest, entity_type))]  # fmt: skip
        if not taken:
            continue
        builder.text(f"    <{wrapper}>" if wrapper else "    ")
        for item, opening, closing in taken:
            builder.text(opening).value(item).text(closing)
        builder.text((_closing(wrapper) if wrapper else "") + "\n")
    builder.text("  </Cdtr>\n")
    account = take(rest, "IBAN_CODE")
    if account:
        builder.text("  <CdtrAcct><Id><IBAN>").value(account).text("</IBAN></Id></CdtrAcct>\n")
    if rest:
        builder.text("  <RmtInf>\n")
        for item in rest:
            builder.text("    <Ustrd>").template(clause(item, rng, phrasing.CLAUSES["en"]), item).text("</Ustrd>\n")
        builder.text("  </RmtInf>\n")
    builder.text("</CdtTrfTxInf>")


def edi_x12(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An X12 834 benefit enrolment: a member's name as ``LAST*FIRST`` in NM1, the address in N3/N4, the birth date
    in DMG, ids in REF, contacts in PER, the rest in MSG segments."""
    rest = list(items)
    stamp = f"{rng.randint(2024, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"
    builder.text(f"ISA*00*          *00*          *ZZ*ACMEHEALTH     *ZZ*{_letters(rng, 8)}       *{stamp[2:]}*"
                 f"{rng.randint(0, 23):02d}{rng.randint(0, 59):02d}*^*00501*{rng.randrange(10**9):09d}*0*P*:~\n"
                 f"ST*834*{rng.randint(1, 9999):04d}*005010X220A1~\nBGN*00*{rng.randrange(10**6)}*{stamp}~\n"
                 "INS*Y*18*021*28*A***FT~\n")  # fmt: skip
    for entity_type, qualifier in (("US_SSN", "0F"), ("NATIONAL_ID", "23")):
        item = take(rest, entity_type)
        if item:
            builder.text(f"REF*{qualifier}*").value(item).text("~\n")
    name = take(rest, "PERSON")
    if name:
        assert isinstance(name, Pii)
        words = name.value.split()
        written = f"{' '.join(words[1:])}*{words[0]}"
        # in capitals, as X12 writes names, unless the capitals would be another value ("ı" is no "i")
        written = written.upper() if normalise(written.upper()) == normalise(written) else written
        builder.text("NM1*IL*1*").value(Pii("PERSON", written, name.subtype + ":x12")).text("~\n")
    else:
        builder.text("NM1*IL*1~\n")
    contacts = [c for c in (take(rest, "PHONE_NUMBER"), take(rest, "EMAIL_ADDRESS")) if c]
    if contacts:
        builder.text("PER*IP*")
        for contact in contacts:
            builder.text("*TE*" if is_type(contact, "PHONE_NUMBER") else "*EM*").value(contact)
        builder.text("~\n")
    street = take(rest, "STREET_ADDRESS")
    if street:
        builder.text("N3*").value(street).text("~\n")
    town = take(rest, "LOCATION")
    if town:
        builder.text("N4*").value(town).text(f"*{rng.randrange(10**5):05d}~\n")
    birth = take(rest, "DATE_OF_BIRTH")
    if birth:
        builder.text("DMG*D8*").value(birth).text(f"*{rng.choice('FMU')}~\n")
    for item in rest:
        builder.text("MSG*").template(clause(item, rng, phrasing.CLAUSES["en"]), item).text("~\n")
    builder.text(f"SE*{rng.randint(8, 30)}*0001~")


def _srt_stamp(seconds: float) -> str:
    hours, minutes = int(seconds // 3600), int(seconds % 3600 // 60)
    return f"{hours:02d}:{minutes:02d}:{int(seconds % 60):02d},{int(seconds * 1000) % 1000:03d}"


def srt_subtitles(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Subtitles of an interview: a person is a cue's speaker (``NAME:``) or named in a line; a line longer than a
    subtitle's width breaks in two before the value."""
    clock = rng.uniform(5, 3000)
    for index, item in enumerate(items, 1):
        start, clock = clock, clock + rng.uniform(1.2, 6)
        builder.text(("\n\n" if index > 1 else "") + f"{index}\n{_srt_stamp(start)} --> {_srt_stamp(clock)}\n")
        if is_type(item, "PERSON") and rng.random() < 0.5:
            builder.value(item).text(": " + rng.choice(phrasing.SUBTITLE_LINES))
            continue
        before, _, after = clause(item, rng, phrasing.CLAUSES["en"]).partition("{}")
        if len(before) > 24 and " " in before.strip():
            cut = before.rstrip().rfind(" ")
            before = before[:cut] + "\n" + before[cut + 1 :]
        builder.text(("- " if rng.random() < 0.3 else "") + before[:1].upper() + before[1:]).value(item).text(after)
    builder.text("\n")


def _toml_key(key: str) -> str:
    return key.replace(" ", "_")


def toml_config(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A service's TOML configuration: values in basic strings under tables; a date of birth as TOML's own local
    date (unquoted)."""
    builder.text(f'# {rng.choice(["ledger", "notifier", "kyc"])}.toml\ntitle = "{rng.choice(["prod", "staging"])}"\n')
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    tables = rng.sample(["owner", "contact", "billing", "fixtures.customer", "smtp"], 2)
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        if index % 2 == 0:
            builder.text(f"\n[{tables[(index // 2) % 2]}{'' if index < 4 else index}]\n")
        if is_type(item, "DATE_OF_BIRTH") and item.value[:4].isdigit() and "-" in item.value:
            builder.text(f"{_toml_key(key)} = ").value(item).text("\n")
        else:
            builder.text(f'{_toml_key(key)} = "').value(item).text('"\n')


def ini_config(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """An INI file: ``key = value`` without quotes, ``;`` comments, a section per pair of values."""
    builder.text(f"; generated by {rng.choice(['setup.exe', 'ansible', 'installer 2.3'])}\n")
    keys = field_names(items, rng, phrasing.KEYS, suffix="2")
    for index, (key, item) in enumerate(zip(keys, items, strict=True)):
        if index % 2 == 0:
            builder.text(("\n" if index else "") + f"[{rng.choice(['Profile', 'Account', 'Mail', 'Remote'])}{index}]\n")
        separator = rng.choice(["=", " = ", "="])
        builder.text(f"{key.title().replace('_', '')}{separator}").value(item).text("\n")


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part.title() for part in rest)


def graphql_mutation(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    operation = rng.choice(["UpdateProfile", "CreateCustomer", "SubmitClaim"])
    builder.text(f"mutation {operation} {{\n  {operation[0].lower() + operation[1:]}(")
    builder.text(f'id: "{rng.choice(["cus", "usr", "clm"])}_{rng.getrandbits(40):010x}", input: {{\n')
    for key, item in zip(field_names(items, rng, phrasing.KEYS, suffix="2"), items, strict=True):
        builder.text(f'    {_camel(key)}: "').value(item).text('"\n')
    builder.text("  }) {\n    id\n    updatedAt\n  }\n}")


def protobuf_text(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """A Protobuf text-format message: scalar fields in nested messages."""
    message = rng.choice(["acme.crm.v1.Customer", "acme.kyc.v2.Applicant", "acme.hr.v1.Employee"])
    builder.text(f"# proto-file: {message.split('.')[1]}.proto\n# proto-message: {message}\n\n")
    nested = rng.choice(["profile", "contact", "identity"])
    keys = field_names(items, rng, phrasing.KEYS, suffix="_2")
    half = (len(items) + 1) // 2
    builder.text(f"id: {rng.randrange(10**6)}\n")
    for key, item in zip(keys[:half], items[:half], strict=True):
        builder.text(f'{key}: "').value(item).text('"\n')
    if items[half:]:
        builder.text(f"{nested} {{\n")
        for key, item in zip(keys[half:], items[half:], strict=True):
            builder.text(f'  {key}: "').value(item).text('"\n')
        builder.text("}\n")
    builder.text(f"state: {rng.choice(['ACTIVE', 'PENDING_REVIEW', 'SUSPENDED'])}")


def syslog_5424(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """RFC 5424 lines: half of the values as structured-data parameters, the rest in the free-text message."""
    for index, item in enumerate(items):
        day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        clock = (
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}.{rng.randint(0, 999999):06d}"
        )
        stamp = f"{day}T{clock}+0{rng.randint(0, 3)}:00"
        app = rng.choice(["kycd", "payd", "sshd", "mailer"])
        builder.text(("\n" if index else "") + f"<{rng.choice([134, 86, 38, 13])}>1 {stamp} "
                     f"{rng.choice(['edge-01', 'app-7', 'db-2'])}.acme.example {app} {rng.randint(100, 65000)} "
                     f"{rng.choice(['ID47', 'AUDIT', '-'])} ")  # fmt: skip
        if rng.random() < 0.5 and "]" not in item.value:
            key = field_names([item], rng, phrasing.KEYS)[0]
            builder.text(f'[meta@32473 {key}="').value(item).text(f'" seq="{rng.randint(1, 999)}"] ')
            builder.text(rng.choice(["record updated", "export finished", "policy hit"]))
        else:
            builder.text("- ").template(clause(item, rng, phrasing.CLAUSES["en"]), item)


def chat(builder: TextBuilder, items: list[Item], rng: random.Random, lang: str, book: Phrasebook) -> None:
    """Group chat in `lang`, one message per line."""
    minute = rng.randrange(6 * 60, 23 * 60)
    handles = {"vi": ["tuan.ng", "chi_mai", "an"], "el": ["nikos", "eleni_k", "gp"], "he": ["yoni", "dana.l", "avi"],
               "bg": ["ivo", "mimi", "petar_g"]}[lang]  # fmt: skip
    for index, item in enumerate(items):
        minute = (minute + rng.randint(1, 20)) % (24 * 60)
        builder.text(("\n" if index else "") + f"[{minute // 60:02d}:{minute % 60:02d}] {rng.choice(handles)}: ")
        builder.template(clause(item, rng, phrasing.CLAUSES[lang]), item)


_CONTEXTS: tuple[Context, ...] = (
    Context("swift-mt103", swift_mt103, "en", 1.0),
    Context("iso20022-xml", iso20022_xml, "en", 1.0),
    Context("edi-x12", edi_x12, "en", 0.9),
    Context("srt-subtitles", srt_subtitles, "en", 0.9),
    Context("toml-config", toml_config, "en", 0.8),
    Context("ini-config", ini_config, "en", 0.8),
    Context("graphql-mutation", graphql_mutation, "en", 0.8),
    Context("protobuf-text", protobuf_text, "en", 0.8),
    Context("syslog-5424", syslog_5424, "en", 0.8),
    Context("chat-vi", chat, "vi", 0.5),
    Context("chat-el", chat, "el", 0.5),
    Context("chat-he", chat, "he", 0.5),
    Context("chat-bg", chat, "bg", 0.5),
)
CONTEXTS_NINTH = with_extra_decoys(_CONTEXTS, extra_decoy)


MAKERS: dict[str, Maker] = {"PERSON": person, "LOCATION": location, "DATE_OF_BIRTH": date_of_birth,
                           "STREET_ADDRESS": street_address}  # fmt: skip


def generate_ninth_dev(entities_per_type: int = ENTITIES_PER_TYPE, seed: int = SEED) -> list[Case]:
    """The ninth dev-side corpus (always the same for the same arguments)."""
    return generate_dev_split(NAME, seed, entities_per_type, CONTEXTS_NINTH, MAKERS, _faker.restart)
