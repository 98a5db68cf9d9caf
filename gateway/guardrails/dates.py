"""DATE_OF_BIRTH: a calendar date, numeric or with its month named, that counts as personal data next to birth
context.

Month names are read from libraries, not typed in: English from the standard library's ``calendar`` (the C locale's
names; the gateway never changes LC_TIME), and the other languages the gateway reads from Faker's per-locale
date-time providers (``MONTH_NAMES``). Each name also matches spelled without its diacritics ("fevrier", "Marz")
and with German umlauts written out ("Maerz"), and abbreviated to any prefix of three letters or more ("Sep",
"Sept.", "janv.", "Okt").
"""

from __future__ import annotations

import calendar
import datetime
import functools
import importlib
import json
import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path

from faker import Generator
from presidio_analyzer import Pattern, PatternRecognizer, RecognizerResult

from gateway.guardrails.name_cues import phrase_pattern

# Faker locales whose month names are read: French, Spanish, German, Italian, Portuguese and Dutch.
MONTH_LOCALES = ("fr_FR", "es_ES", "de_DE", "it_IT", "pt_BR", "nl_NL")
# A date of birth is also written with its month named in Turkish ("6 Nisan 1950", "25 ŞUBAT 1994"). Each locale
# widens the month-name trie and slows every scan for a month name: Turkish costs about a sixth more there, while
# Faker's Polish, Czech, Romanian, Danish, Norwegian and Filipino names would double it, and Polish and Czech dates
# write the month in another grammatical case than Faker's ("lipca", not "lipiec"). Only the date shapes read these:
# as words of running text (``is_month_word``, ``calendar_words``) "Nisan" and "Ekim" are people's names, so the
# place and name rules keep ``MONTH_LOCALES``.
DATE_MONTH_LOCALES = (*MONTH_LOCALES, "tr_TR")
# The locales whose dates of birth stand in forms beside their own birth labels (``BIRTH_LABELS``): Danish and
# Norwegian ("18. oktober 1956"), Indonesian ("15 Agustus 1961") and Hungarian ("1952. szeptember 23."). Most of
# their names share their first letters with names read already ("oktober", "november"), so the trie grows little.
BIRTH_LABEL_MONTH_LOCALES = ("da_DK", "no_NO", "id_ID", "hu_HU")
SHORTEST_ABBREVIATION = 3
_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"})


def _without_diacritics(word: str) -> str:
    return "".join(char for char in unicodedata.normalize("NFKD", word) if not unicodedata.combining(char))


def locale_month_names(locale: str) -> list[str]:
    """The twelve month names of a Faker locale's date-time provider, January first. Most providers keep them in a
    ``MONTH_NAMES`` table; some (Hungarian, Indonesian) only inside ``month_name``, which names the month its
    ``month`` method draws: asked once per month with that method fixed."""
    provider_class = importlib.import_module(f"faker.providers.date_time.{locale}").Provider
    table = getattr(provider_class, "MONTH_NAMES", None)
    if table is not None:
        return list(table.values())
    provider = provider_class(Generator())
    names = []
    for month in range(1, 13):
        provider.month = functools.partial(format, month, "02")
        names.append(provider.month_name())
    return names


def month_names(locales: Iterable[str] = MONTH_LOCALES) -> tuple[str, ...]:
    """Every month name (English and `locales`'), lower case, with its diacritic-free and umlaut-spelled forms."""
    names = [name for name in calendar.month_name if name]
    for locale in locales:
        names.extend(locale_month_names(locale))
    forms = {form.casefold() for name in names for form in (name, _without_diacritics(name), name.translate(_UMLAUTS))}
    return tuple(sorted(forms))


@functools.lru_cache(maxsize=4096)
def is_month_word(word: str) -> bool:
    """A month's name or its abbreviation ("Nov", "sept", "März"), as ``month_names`` reads them."""
    folded = word.casefold()
    return len(folded) >= SHORTEST_ABBREVIATION and any(name.startswith(folded) for name in _default_month_names())


@functools.cache
def _default_month_names() -> tuple[str, ...]:
    return month_names()  # read from Faker's locale providers: once, not per word


def weekday_names(locales: Iterable[str] = MONTH_LOCALES) -> list[str]:
    """Every weekday name of English and `locales` (Faker's date_time providers), as written ("Monday", "Środa")."""
    names = list(calendar.day_name)
    for locale in locales:
        names.extend(importlib.import_module(f"faker.providers.date_time.{locale}").Provider.DAY_NAMES.values())
    return names


def calendar_words(locales: Iterable[str] = MONTH_LOCALES) -> frozenset[str]:
    """Month and weekday names (English and `locales`'), lower case, with their diacritic-free forms: capitalised
    words that name no person ("Janvier", "Vendredi", "August" alone)."""
    names = [*month_names(locales), *weekday_names(locales)]
    return frozenset(form.casefold() for name in names for form in (name, _without_diacritics(name)))


def month_pattern(names: Iterable[str], *, first_behind: bool = False) -> str:
    """A regex for each name or its abbreviation (any prefix of SHORTEST_ABBREVIATION letters or more), shaped as a
    trie: the engine tries one branch per letter instead of every name at every position ("sep", "sept",
    "septiembre" and "settembre" share their first letters).

    With ``first_behind``, the regex starts after a name's first letter, which each branch reads behind it: after a
    class of those letters that the engine skips to (``recognizers._MONTH_YEAR_ANCHOR``), the same matches."""
    trie: dict = {}
    for name in names:
        node = trie
        for char in name:
            node = node.setdefault(char, {})

    def emit(node: dict, depth: int) -> str:
        branches = [(f"(?<={re.escape(char)})" if first_behind and depth == 0 else re.escape(char))
                    + emit(child, depth + 1) for char, child in sorted(node.items())]
        if not branches:
            return ""
        group = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{group})?" if depth >= SHORTEST_ABBREVIATION else group

    return emit(trie, 0)


_DATE_MONTHS = month_names((*DATE_MONTH_LOCALES, *BIRTH_LABEL_MONTH_LOCALES))
_DATE_MONTHS_FOLDED = frozenset(_without_diacritics(name) for name in _DATE_MONTHS)
# The Hungarian shape as a whole ("1952. szeptember 23."): a Latvian date also opens with its year and a word ("1987.
# gada 3. maijs"), whose word is no month's.
_YEAR_FIRST_WORD = re.compile(r"\d{4}\.\s+([^\W\d_]+)\.?\s+\d{1,2}\.?")


# Languages that write a date's month in another case than its name (Faker's names are the nominative): Slovenian
# "3. maja 1987", "14. avgusta 1997", Polish "3 maja 1987", "12 lipca 1990", Czech "3. května 1987", Slovak, Croatian,
# and Romanian, whose names stand as they are ("3 mai 1987"). Read only by the day-first shape below, with an ending of
# up to four letters after a name or its first letters ("maj" + "a", "lip" + "ca", "avgust" + "a"), so the other
# shapes, the anchors and the name rules keep ``_DATE_MONTHS``.
INFLECTED_MONTH_LOCALES = ("ro_RO", "sl_SI", "pl_PL", "cs_CZ", "sk_SK", "hr_HR")
_INFLECTED_MONTHS = month_pattern(month_names((*DATE_MONTH_LOCALES, *BIRTH_LABEL_MONTH_LOCALES,
                                               *INFLECTED_MONTH_LOCALES)))  # fmt: skip
INFLECTED_MONTH = rf"(?:{_INFLECTED_MONTHS})[^\W\d_]{{0,4}}"


def is_date_month_word(word: str) -> bool:
    """Whether a word is a month's name the date shapes read, or its abbreviation, both read without diacritics."""
    folded = _without_diacritics(word.casefold())
    return len(folded) >= SHORTEST_ABBREVIATION and any(name.startswith(folded) for name in _DATE_MONTHS_FOLDED)

MONTH_NAMES = month_pattern(_DATE_MONTHS)
# The same names read from their second letter, each behind its first (``month_pattern``), and the letters they open
# with.
MONTH_NAMES_AFTER_FIRST = month_pattern(_DATE_MONTHS, first_behind=True)
MONTH_FIRST_LETTERS = "".join(sorted({name[0] for name in _DATE_MONTHS}))
# With its ordinal suffix as English, French, Spanish and Portuguese write it: "3rd", "1er", "1º", "1.º", "1°" (the
# reader view folds the ordinal indicators to the letters "o" and "a").
_DAY = r"(?:0?[1-9]|[12]\d|3[01])(?:st|nd|rd|th|er|\.?[º°ªoa](?=\s+de\s))?"
YEAR = r"(?:19|20)\d{2}"
# The years of birth of people alive and of age: the shapes a log or a build writes its own dates in (a timestamp,
# "20260127") are read as dates of birth only with a year before 2010.
BIRTH_YEAR = r"(?:19\d{2}|200\d)"
_MM = r"(?:0[1-9]|1[0-2])"
_DD = r"(?:0[1-9]|[12]\d|3[01])"
_DM = r"(?:0?[1-9]|[12]\d|3[01])"  # a day or a month, either order: "04/03/85" is 4 March or April 3
_NOT_AFTER_NUMBER = r"(?<![\w./:-])"
SHORT_YEAR = r"['’]\d{2}(?![\w'’])"  # "'99": a year without its century
_NOT_BEFORE_NUMBER = r"(?![\w/:-]|\.\d)"
# Less the dates whose month is a name "date d month y" reads as it stands (found there already).
INFLECTED_DATE = (rf"(?<![\w.]){_DAY}\.?\s+(?!(?:{MONTH_NAMES})\.?,?\s+{YEAR}\b)"
                  rf"{INFLECTED_MONTH}\.?,?\s+{YEAR}(?!\d)")
# A day, a word and a year (``INFLECTED_DATE``'s shape, "3. maja 1987"), searched in the text before the month
# names are: the trie of every locale's names costs several times a plain word's test.
DAY_WORD_YEAR = r"\d(?<![\w.]\d)\d?\.?\s+[^\W\d_]{3,16}\.?,?\s+(?:19|20)\d\d(?!\d)"
DATE_ALONE = 0.3  # a date's score without a birth word or an age beside it: below the default threshold
AGE_BOOST = 0.35  # as much as a birth word beside the date adds (``recognizers.CONTEXT_BOOST``)


# How English, French, Spanish, German, Italian, Portuguese and Dutch state a person's age: "42 years old", "a
# 42-year-old", "42 y/o", "âgé de 42 ans", "42 años de edad", "42 Jahre alt", "42-jährig", "età: 42", "idade: 42",
# "42 jaar oud", "leeftijd". Each is also a stem of the birth-word test, so none may sit inside common words: a bare
# "age", "aged", "ans" or "anni" does ("message:", "managed", "answer", "anniversary").
AGE_WORDS = ("years old", "year old", "years-old", "year-old", "yrs old", "yr old", "y/o", "y.o.", "âgé", "âgée",
             "agé", "agée", "edad", "jahre alt", "jährig", "età", "idade", "jaar oud", "leeftijd")  # fmt: skip


# A person's age stated right beside a date: the date is the one the age counts from. Before the date, a label and
# the age ("Age 62, 27. 4. 1957", "aged 41: 03/05/1983", "Alter 42 -"); after it, in the same clause, the age the
# person is or turned ("(1995-07-12) is now 58.", "03/05/1983, aged 41"). Only a number of one to three digits that
# ends its clause or is counted in years: "2019-01-01 is 30 days overdue" states no age.
AGE_LABELS = ("age", "aged", "âge", "âgé", "âgée", "alter", "edad", "età", "idade", "leeftijd")
_AGE = r"\d{1,3}(?![\d.,:/-]\d)"
# A weekday may open the date ("Age: 62 (Sunday, 11 November 1962)").
_WEEKDAY_BEFORE = r"(?:[^\W\d_]{5,13},?[ \t]+)?"
_AGE_BEFORE = re.compile(rf"(?<![^\W\d_])(?:{'|'.join(AGE_LABELS)})[ \t]*(?::[ \t]*)?{_AGE}[ \t]*(?:[,;:(/-][ \t]*)?"
                         rf"{_WEEKDAY_BEFORE}\Z", re.IGNORECASE)  # fmt: skip
_AGE_AFTER = re.compile(rf"\)?[ \t]*(?:,[ \t]*)?"
                        rf"(?:(?:is|was)[ \t]+(?:now[ \t]+)?(?:aged[ \t]+)?|turned[ \t]+|aged[ \t]+)"
                        rf"{_AGE}(?:[ \t]+(?:years?|yrs?)(?:[ \t]+old)?)?(?=[ \t]*(?:[.,;)\n]|\Z))", re.IGNORECASE)
AGE_REACH = 24  # characters before the date an age label and its number may take
# Whether an age label and its number stand in a text: the weak shapes ("4/3/78") are looked for where one does, as
# where a birth word does. The labels that are no birth stem already (``AGE_WORDS``), each its own regex led by its
# letters, read first and only then checked to open a word ("page 3" holds none): the regex engine skips through
# text to a literal, where an alternation or a look-behind written first is tried at every position.
_AGE_STATEMENTS = tuple((label, re.compile(rf"{label}(?<![^\W\d_]{label})d?[ \t]*(?::[ \t]*)?\d"))
                        for label in ("age", "âge", "alter"))  # fmt: skip


_FULL_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_LAST_TWO_DIGITS = re.compile(r"(?<![\d'’])['’]?(\d\d)\Z")


def _year_unit_words(languages: Iterable[str] = ("en", "fr", "es", "de", "it", "pt", "nl")) -> tuple[str, ...]:
    """How each language writes a number of years after it, as CLDR's duration-year unit has it (babel), in its long
    and short forms and each plural: "years", "yrs", "ans", "años", "Jahre", "anni", "anos", "jaar", "jr" (the
    one-letter narrow forms, "a", "J", "y", left out: they end too many other words)."""
    from babel.units import format_unit

    words = {format_unit(count, "duration-year", length=length, locale=language).replace(str(count), "").strip()
             for language in languages for length in ("long", "short") for count in (1, 2, 5, 21)}  # fmt: skip
    return tuple(sorted(word.casefold() for word in words if len(word) >= 2))


# A number of years right before the date ("Laporte, 85 ans (14-03-1940)", "de 51 años (23 de enero de 1974)",
# "75 Jahre (26.XII.1949)", "34 years old, 03/04/1990"), or a bare number closing a name's apposition before it
# ("Hein (87), 07.01.38", "Ward, 34 (03/04/1990)"): the person's age only where it is the years from the date's year
# to this one (or one or two fewer, the text being older), which a term of years ("30 years (01/03/2024)") or a room
# number seldom is.
_AGE_UNITS = _year_unit_words()
_YEARS_BEFORE = re.compile(rf"(?<![\w.,/-])(\d{{1,3}})[ \t]*(?:{'|'.join(_AGE_UNITS)})\.?(?:[ \t]+(?:old|alt|oud))?"
                           rf"[ \t]*(?:[,;:(/-][ \t]*)?{_WEEKDAY_BEFORE}\Z", re.IGNORECASE)  # fmt: skip
_BARE_AGE_BEFORE = re.compile(rf"(?:,[ \t]*(\d{{1,3}})[ \t]*\(|\([ \t]*(\d{{1,3}})[ \t]*\),[ \t]*)"
                              rf"{_WEEKDAY_BEFORE}\Z")  # fmt: skip


def _year_of(date_text: str) -> int | None:
    """The year a date ends with or holds: its four digits, or its last two read as the latest such year not after
    this one ("07.01.38": 1938, "13/05/01": 2001)."""
    full = _FULL_YEAR.search(date_text)
    if full is not None:
        return int(full.group())
    short = _LAST_TWO_DIGITS.search(date_text)
    if short is None:
        return None
    this_year = datetime.date.today().year
    year = this_year - this_year % 100 + int(short.group(1))
    return year if year <= this_year else year - 100


def _age_fits(age: str, date_text: str) -> bool:
    year = _year_of(date_text)
    return year is not None and 0 <= datetime.date.today().year - year - int(age) <= 2


def states_an_age(text: str, start: int, end: int) -> bool:
    """Whether a person's age is stated right before [start, end) or right after it in its clause. (After the day
    of a death it is the age at death: ``follows_death_cue`` takes the date's boost back.)"""
    if (_AGE_BEFORE.search(text, max(0, start - AGE_REACH), start) is not None
            or _AGE_AFTER.match(text, end) is not None):  # fmt: skip
        return True
    if not any(char.isdigit() for char in text[max(0, start - AGE_REACH) : start]):  # most dates: no number before
        return False
    reach = max(0, start - AGE_REACH)
    years = _YEARS_BEFORE.search(text, reach, start) or _BARE_AGE_BEFORE.search(text, reach, start)
    return years is not None and _age_fits(years.group(1) or years.group(2) or "", text[start:end])


# A life's span after a name, as reference works and family trees write it: the birth date right after the opening
# bracket, a dash, and the bracket closed at once (the person is alive: "Chen (04-Oct-1952 – ) is a poet") or after
# the day of the death ("Sureda (11 de julio de 1982 – 15/03/06)"). A span of a life, not of a billing period or a
# contract: the death's year ten or more after the birth's, or the living person born ten or more years ago.
_SPAN_OPENS = re.compile(r"[^\W\d_][ \t]*\([ \t]*\Z")
_SPAN_CLOSES = re.compile(r"[ \t]*[–—-][ \t]*(?:\)|([^()\n]{4,32}?)[ \t]*\))")
LIFE_SPAN_YEARS = 10


def opens_a_life_span(text: str, start: int, end: int) -> bool:
    """Whether the date at [start, end) opens a person's life span in brackets after the name."""
    if _SPAN_OPENS.search(text, max(0, start - 4), start) is None:
        return False
    closes = _SPAN_CLOSES.match(text, end)
    born = _year_of(text[start:end])
    if closes is None or born is None:
        return False
    if closes.group(1) is None:
        return datetime.date.today().year - born >= LIFE_SPAN_YEARS
    died = _year_of(closes.group(1).rstrip(". "))
    return died is not None and died - born >= LIFE_SPAN_YEARS


# The words and signs that state a death, in the languages the birth words above are read in (data/death_cues.json,
# from each language's dictionary): "died", "passed away", "verstorben", "décédée", "falleció", "†".
DEATH_CUES = Path(__file__).parent / "data" / "death_cues.json"
DEATH_REACH = 48  # characters before a date its death cue may stand, as a birth word's (``recognizers``)
# A sentence's end (a full stop after a word of four letters or a number, not an abbreviation's: "d.", "gest."), a
# line break, or another date: a cue before one of them is another date's.
_CLAUSE_BREAK = re.compile(r"(?:(?<=[^\W\d_]{4})\.|(?<=\d)\.|[!?])[ \t]+(?=\S|\Z)|\n"
                           r"|(?<!\d)(?:19|20)\d\d(?!\d)|(?<![\d.])\d{1,2}[/.-]\d{1,2}[/.-]\d\d(?![\d.])")  # fmt: skip
# A plus sign right before a date, as plain text writes the death sign ("* 4.3.1941 + 2.5.2020"), not a sum's or a
# phone number's.
_PLUS_BEFORE = re.compile(r"(?<![^\s(;,])\+[ \t]?\Z")


@functools.cache
def _death_cue() -> re.Pattern[str]:
    """A regex of the death words (whole words, lower case) and signs."""
    table = json.loads(DEATH_CUES.read_text(encoding="utf-8"))
    words = {word for key in ("languages", "events") for words in table[key].values() for word in words}
    return re.compile(rf"(?<![\w.'’-])(?:{phrase_pattern(sorted(words))})(?![^\W\d_])|[{''.join(table['signs'])}]")


def follows_death_cue(text: str, start: int) -> bool:
    """Whether the nearest cue before the date at `start`, in its clause, states a death: the date is the day of it
    ("passed away peacefully on June 24, 2024", "† 25. Mai 2026", "born in Lyon, décédée le 3 mai 2020"), not of a
    birth; or names another day after a birth word (a certificate's issue, a birthday's party: "Birth certificate
    issued 20/03/2014", "birthday party is on 27 Mar. 2025"). A birth word, another date or a sentence end between
    the cue and the date parts them ("d. 2020, born 3 May 1941")."""
    if _PLUS_BEFORE.search(text, max(0, start - 3), start) is not None:
        return True
    before = text[max(0, start - DEATH_REACH) : start].lower()
    cues = list(_death_cue().finditer(before))
    if not cues:
        return False
    between = before[cues[-1].end() :]  # after the nearest
    return _CLAUSE_BREAK.search(between) is None and _BIRTH_STEM.search(between) is None


# The genealogical birth sign, a star right before a date, as DIN 5008, German and Nordic death notices and family
# trees write it ("* 4. März 1941   † 2. Mai 2020", "Hans Weber (* 4. März 1941 in Berlin)"): a star that stands
# alone, not a footnote's after a word ("Price*") nor bold's ("**"). After an opening bracket, a comma or a semicolon
# it is the sign whatever follows; elsewhere the star may be a Markdown bullet ("* 2024-01-05 release"), and the date
# must end its line or its sentence, or stand before the death sign, and no bullet open the line above or below.
_BIRTH_SIGN = re.compile(r"(?<![^\s(;,])\*[ \t\u00a0]?\Z")
_AFTER_BIRTH_SIGN = re.compile(r"\.?(?:[ \t]*(?:\r?\n|\Z)|[ \t]*[,;]?[ \t]*[†✝+]|[ \t]*[;)])|\.[ \t]")
_BULLET = re.compile(r"[ \t]*[*+-][ \t]")
_OPENS_A_CLAUSE = re.compile(r"[(,;][ \t]*\Z")


def after_birth_sign(text: str, start: int, end: int) -> bool:
    """Whether the date at [start, end) stands after the birth sign "*" (and is no later than this year)."""
    sign = _BIRTH_SIGN.search(text, max(0, start - 2), start)
    if sign is None:
        return False
    year = _FULL_YEAR.search(text, start, end)
    if year is not None and int(year.group()) > datetime.date.today().year:
        return False
    if _OPENS_A_CLAUSE.search(text, max(0, sign.start() - 8), sign.start()) is not None:
        return True
    if _AFTER_BIRTH_SIGN.match(text, end) is None:
        return False
    line_start = text.rfind("\n", 0, sign.start()) + 1
    if text[line_start : sign.start()].strip():
        return True
    # The star opens its line: a list's bullet where the line above or below opens with one too.
    around = [text.rfind("\n", 0, line_start - 1) + 1] if line_start else []
    below = text.find("\n", end)
    if below != -1:
        around.append(below + 1)
    return not any(_BULLET.match(text, at) for at in around)


# Swahili "was born" as its verb is conjugated: a subject prefix for each person ("ni-" I, "u-" you, "a-" he or she,
# "tu-" we, "m-" you all, "wa-" they), the past "-li-" or the perfect "-me-", and the passive stem "zaliwa" of "zaa"
# (to bear): "nilizaliwa 13 Machi 1949", "amezaliwa"; and the infinitive "kuzaliwa" of "tarehe ya kuzaliwa".
SWAHILI_BORN = (*(f"{subject}{tense}zaliwa" for subject in ("ni", "u", "a", "tu", "m", "wa") for tense in ("li", "me")),
                "kuzaliwa")  # fmt: skip


# The "date of birth" and "born" of the languages the corpus' other locales write, as the data page of each country's
# passport and identity card labels the field (ICAO Doc 9303 has it printed in the national language beside the
# English) and as a sentence says it: Danish and Norwegian "Fødselsdato", "født", Swedish "Födelsedatum", "född",
# Finnish "Syntymäaika", "syntynyt", Hungarian "Születési idő", "szül.", Polish "Data urodzenia", Czech "Datum
# narození", Slovak "Dátum narodenia", Croatian "Datum rođenja", Romanian "Data nașterii", Turkish "Doğum tarihi",
# Indonesian and Malay "Tanggal lahir", "Tarikh lahir", "lahir", Tagalog "Petsa ng kapanganakan", Greek "Ημερομηνία
# γέννησης", Russian "Дата рождения", Japanese "生年月日", Chinese "出生日期", Korean "생년월일". Each is a stem matched
# at a word's start, so the inflected forms count too ("fødselsdag", "született", "urodzony", "rođena").
BIRTH_LABELS = ("fødsel", "født", "fodsel", "fodt", "födelse", "född", "syntymä", "syntyny", "szület", "szül.",
                "urodz", "narozen", "narodenia", "rođen", "rodjen", "naşter", "nașter", "naster",
                "doğum", "dogum", "lahir", "kapanganakan", "γέννη", "γεννήθ", "рожден", "родил", "生年月日",
                "出生", "誕生日", "생년월일",
                # Lithuanian "Gimimo data", "gimė", "gimęs"; Latvian "Dzimšanas datums", "dzimis", "dzimusi";
                # Estonian "Sünniaeg", "sündinud"; Slovenian "Datum rojstva", "rojen"; Irish "Dáta breithe",
                # "rugadh"; Romanian "născut", "născută"; Tagalog "ipinanganak", "pinanganak"; Swahili
                # (``SWAHILI_BORN``); Korean "생일", "태어난"; Thai "วันเกิด"; Persian "تاریخ تولد".
                "gimimo", "gimė", "gimęs", "gimusi", "dzimšanas", "dzimsanas", "dzimis", "dzimusi", "sünni",
                "sündinud", "sundinud", "rojen", "rojstva", "breithe", "rugadh", "născut", "nascut", "ipinanganak",
                "pinanganak", "생일", "태어", "วันเกิด", "تولد",
                # Bulgarian and Macedonian "Дата на раждане", "роден", "родена"; Serbian "Датум рођења", "рођен";
                # Ukrainian "Дата народження", "народився", "народилася"; Hebrew "תאריך לידה", "נולד", "נולדתי",
                # "יום הולדת"; Vietnamese "Ngày sinh", "sinh ngày", "sinh năm", "sinh nhật" (also typed without
                # diacritics); Basque "Jaiotze data", "jaio"; Catalan "Data de naixement"; Maltese "Data tat-twelid",
                # "twieled"; Icelandic "Fæðingardagur", "fæddur", "fædd"; Afrikaans "Geboortedatum", "gebore".
                "раждане", "роден", "рођен", "рођењ", "народж", "народив", "народил", "תאריך לידה", "נולד",
                "הולדת", "ngày sinh", "sinh ngày", "sinh năm", "sinh nhật", "ngay sinh", "sinh ngay", "jaio",
                "naixement", "twelid", "twieled", "fæðing", "fædd", "gebore",
                # Armenian "Ծննդյան ամսաթիվ", "ծնունդ", Georgian "დაბადების თარიღი", Hindi "जन्म तिथि".
                "ծննդ", "ծնունդ", "დაბადებ", "जन्म",
                # Arabic "تاريخ الميلاد" (not "ميلاد" alone: a man's name, Milad), "مواليد", "مولود", "وُلدت";
                # Persian "متولد" (born: "متولد ۲۹ ژوئیه ۱۹۵۴"), "زادروز"; Urdu "تاریخ پیدائش"; Kyrgyz
                # "Туулган күнү", Kazakh "Туған күні"; Uzbek "Tug'ilgan sana"; Mongolian "Төрсөн огноо";
                # Belarusian "Дата нараджэння"; Albanian "Datëlindja", "i lindur"; Hausa "Ranar haihuwa"; Amharic
                # "የትውልድ ቀን", "ልደት"; Burmese "မွေးသက္ကရာဇ်"; Lao "ວັນເດືອນປີເກີດ", "ວັນເກີດ" (not "ເກີດ"
                # alone, which opens "ເກີດຂຶ້ນ", to happen); Khmer "ថ្ងៃខែឆ្នាំកំណើត"; Bengali, Gujarati and
                # Punjabi "জন্ম", "જન્મ", "ਜਨਮ"; Tamil "பிறந்த"; Telugu "పుట్టిన"; Sinhala "උපන්".
                "تاريخ الميلاد", "مواليد", "مولود", "ولدت", "متولد", "زادروز", "پیدائش", "туулган", "туған күн",
                "tug'ilgan", "tugʻilgan", "tugilgan", "төрсөн", "нарадж", "нарадзі", "datëlindj", "datelindj",
                "lindur", "haihuwa", "የትውልድ", "ልደት", "မွေး", "ວັນເດືອນປີເກີດ", "ວັນເກີດ", "កំណើត", "জন্ম",
                "જન્મ", "ਜਨਮ", "பிறந்த", "పుట్టిన", "උපන්",
                *SWAHILI_BORN)  # fmt: skip


BIRTH_IDIOMS = ("into the world", "zur welt", "al mundo", "vu le jour", "au monde", "al mondo", "ao mundo",
                "ter wereld")
# Italian "born" ("nato il 3 marzo 1985", "nata a Roma il", "nata nel 1985") with the word after it: a context word
# is matched as a prefix, and "nata" or "nato" alone opens names and words that are no birth ("Natalie", "Natarajan",
# "NATO").
_ITALIAN_BORN = ("nato il", "nata il", "nato nel", "nata nel", "nato a ", "nata a ")


class DateOfBirthRecognizer(PatternRecognizer):
    """A calendar date is only personal data next to birth context; alone it scores below the default threshold.
    Presidio compiles the patterns case-insensitively ("march", "MÄRZ")."""

    PATTERNS = [  # noqa: RUF012
        Pattern("date m/d/y", r"\b(?:0?[1-9]|1[0-2])[/.-](?:0?[1-9]|[12]\d|3[01])[/.-](?:19|20)\d{2}\b", 0.3),
        Pattern("date d/m/y", r"\b(?:0?[1-9]|[12]\d|3[01])[/.-](?:0?[1-9]|1[0-2])[/.-](?:19|20)\d{2}\b", 0.3),
        Pattern("date iso", r"\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b", 0.3),
        # Day and month each with its period and a space after, as Czech, Slovak, German and Hungarian style guides
        # set a date in running text: "27. 4. 1957", "4. 3. 1985" (or a line break, where the text wraps).
        Pattern("date d. m. y",
                r"\b(?:0?[1-9]|[12]\d|3[01])\.[ \u00a0\n](?:0?[1-9]|1[0-2])\.[ \u00a0\n](?:19|20)\d{2}\b", 0.3),
        # The month in Roman numerals (upper case), as Polish, Italian, Romanian, Hungarian, Portuguese and Russian
        # hands and forms write a date: "18.VII.1987", "4. III. 1990", "05-X-1946", "21 IV 1984".
        Pattern("date d roman-month y",
                rf"\b{_DM}(?:\.[ \t]?|[ \t]|-|/)(?-i:I{{1,3}}|IV|VI{{0,3}}|IX|XI{{0,2}})(?:\.[ \t]?|[ \t]|-|/){YEAR}\b",
                0.3),
        # Year first with slashes or dots, as East Asian and some Nordic forms write it: "1985/03/04", "1985.3.4".
        Pattern("date y/m/d", r"\b(?:19|20)\d{2}([/.])(?:0?[1-9]|1[0-2])\1(?:0?[1-9]|[12]\d|3[01])\b", 0.3),
        # "March 4, 1985", and as English also says it, "March the 4th, 1985".
        Pattern("date month d, y", rf"\b(?:{MONTH_NAMES})\.?\s+(?:the\s+)?{_DAY},?\s+{YEAR}\b", 0.3),
        # "4 March 1985", "4. März 1985", "4 de marzo de 1985" (or "del 1985", as Latin America writes it), "4th of
        # March 1985", and with dashes or slashes between the parts as forms and databases write it: "04-Mar-1985",
        # "4/Mar/1985".
        Pattern("date d month y",
                rf"\b{_DAY}\.?(?:\s+(?:de\s+|of\s+)?|[-/])(?:{MONTH_NAMES})\.?,?(?:\s+(?:del?\s+)?|[-/]){YEAR}\b",
                0.3),
        # Year first, each part closed by a full stop, as Hungarian writes a date (CLDR's long date pattern for "hu",
        # "y. MMMM d."): "1952. szeptember 23.", "1984. jún. 3.". Its word is a month's name once both are read
        # without diacritics (``invalidate_result``): Faker spells "junius" and "julius", Hungarian "június" and
        # "július".
        Pattern("date y. month d.", rf"\b{YEAR}\.\s+[^\W\d_]{{3,12}}\.?\s+{_DM}\.?(?!\d)", 0.3),
        # Year, month and day each closed by its kanji, as Japanese and Chinese write a date (CLDR's "y年M月d日"):
        # "1980年8月25日", "1980 年 8 月 25 日".
        Pattern("date y年m月d日", rf"(?<!\d){YEAR}\s?年\s?(?:0?[1-9]|1[0-2])\s?月\s?{_DM}\s?日", 0.3),
        # Vietnamese names the month by its number, each part after its word, as CLDR's long date pattern for "vi"
        # writes it ("'ngày' d 'tháng' M 'năm' y"): "ngày 5 tháng 2 năm 1982", also typed without diacritics. After
        # "sinh" the "ngày" is the birth word's ("sinh ngày 5 tháng 2 ...": born on the day), and the date starts at
        # its day (Presidio's regex engine reads a look-behind of any length).
        Pattern("date ngay thang nam",
                rf"(?:(?<!\bsinh\s{{1,3}})\bng[aà]y\s+|(?<=\bsinh\s{{1,3}}ng[aà]y\s{{1,3}}))"
                rf"{_DM}\s+th[aá]ng\s+(?:0?[1-9]|1[0-2])\s+n[aă]m\s+{YEAR}\b", 0.3),
    ]
    # With the keys and column names that abbreviate them: "d_o_b", "fecha_nac".
    CONTEXT = ["born", "birth", "dob", "d.o.b", "d_o_b", "d-o-b", "bday", "b-day", "b'day", "b.", "né le",  # noqa: RUF012
               "née le", "né en", "née en", "naissance", "naiss", "anniversaire", "geboren", "geb.", "geburt",
               "jahrgang", "nacimiento", "nac.", "fecha_nac", "f_nac", "fec_nac", "nació", "nacido", "nacida",
               "cumpleaños", "cumpleanos", "nascita",
               # The verb "to be born" in the first person and in the narrative past, as bios and chat write it:
               # Spanish "nací el", Portuguese "nasci em", Italian "nacque il", "nacqui", French "naquit le", "naquis"
               # ("naci" alone opens "nacional": only with its preposition when typed without the accent).
               "nací", "naci el", "naci en", "nasci", "nacque", "nacqui", "naquit", "naquis", "naquirent",
               *_ITALIAN_BORN, "nascimento", "nascido", "nascida",
               "nasceu",
               # Field names written as one word, camelCase or run together, in the four languages: "dateOfBirth",
               # "fechaNacimiento", "dataNascimento", "dateNaissance" (a prefix of the key is matched).
               "dateofbirth", "fechanac", "fechadenac", "fecnac", "datanasc", "datadinasc", "datadenasc",
               "datenaiss", "datedenaiss",
               # Abbreviations forms print: French "DDN" (date de naissance), "F. nac.", "nasc.", and "né(e)".
               "ddn", "f. nac", "f.nac", "fec. nac", "nasc.", "né(e)", "nee le",
               # German and Dutch "Geb.-Datum" as keys write it: "geb_datum", "GebDat", "geb-datum".
               "geb_", "gebdat", "geb-dat",
               # Dutch ("geboortedatum", "verjaardag"), Italian and Portuguese birthdays, the Spanish colloquial
               # "mi cumple".
               "geboorte", "verjaardag", "compleanno", "aniversário", "mi cumple", "su cumple", "tu cumple",
               "cumple años",
               # Being born said as coming into the world: "came into the world on", "kam am ... zur Welt", "vino
               # al mundo el", "a vu le jour le", "venu au monde", "venuto al mondo", "veio ao mundo", "ter wereld".
               *BIRTH_IDIOMS,
               # Polish "ur." (urodzony, urodzona: born), as records abbreviate it ("pacjent ur. 22/09/1995"); only
               # a context word: as a substring ("your.", "tour.") it is no stem of ``has_birth_word``.
               "ur.",
               # An age beside a date: a record that states a person's age states the date it counts from ("42
               # years old, 03/05/1981", "âgée de 42 ans", "42-jährig", "Alter: 42").
               *AGE_WORDS, *BIRTH_LABELS]  # fmt: skip

    def __init__(self, patterns: list[Pattern] | None = None, name: str | None = None) -> None:
        super().__init__(supported_entity="DATE_OF_BIRTH", patterns=self.PATTERNS if patterns is None else patterns,
                         context=self.CONTEXT, name=name)  # fmt: skip

    def invalidate_result(self, pattern_text: str) -> bool | None:
        """A year-first date whose word is no month's name ("1984. Team 3.") is none."""
        year_first = _YEAR_FIRST_WORD.fullmatch(pattern_text)
        return None if year_first is None or is_date_month_word(year_first.group(1)) else True

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None,
                regex_flags: int | None = None) -> list[RecognizerResult]:  # fmt: skip
        """The pattern matches, each raised as a birth word raises it where the person's age is stated beside it,
        the birth sign stands before it or it opens a life span."""
        results = super().analyze(text, entities, nlp_artifacts, regex_flags)
        for result in results:
            if (states_an_age(text, result.start, result.end) or after_birth_sign(text, result.start, result.end)
                    or opens_a_life_span(text, result.start, result.end)):  # fmt: skip
                result.score = min(1.0, result.score + AGE_BOOST)
        return results


# Shapes of a date that are a date of birth only next to birth words (none reaches the default threshold alone), so
# they are looked for only in a text that holds one (``has_birth_word``): most text never pays for them.
WEAK_PATTERNS = [
    # An ISO date with its time, as an export or an API writes a date of birth: "1985-03-04T00:00:00Z". Only years
    # a living adult is born in, so a log's own timestamps ("2026-01-27T19:49:04Z") never match.
    Pattern("date iso time", rf"\b{BIRTH_YEAR}-{_MM}-{_DD}[T ]\d{{2}}:\d{{2}}(?::\d{{2}}(?:\.\d+)?)?"
                             r"(?:Z|[+-]\d{2}:?\d{2})?(?![\w:])", 0.3),
    # Weaker shapes, 0.2 alone: with birth context (+0.35) they pass the default threshold, and an order number
    # or a short date without it stays far below. The eight digits of a compact ISO date ("19850304"), and a
    # day, a month and a two-digit year ("04/03/85", "04.03.85", "3/4/85") standing alone, not inside a longer
    # dotted or dashed number.
    Pattern("date yyyymmdd", rf"(?<![\w.+-]){BIRTH_YEAR}{_MM}{_DD}(?![\w-]|\.\d)", 0.2),
    Pattern("date d/m/yy", rf"{_NOT_AFTER_NUMBER}{_DM}([/.-]){_DM}\1\d{{2}}{_NOT_BEFORE_NUMBER}", 0.2),
    # A named month with an apostrophe's two-digit year, as English writes a date in short: "Mar 6, '99",
    # "6 March '99". Without the century it is any year's date, so it needs a birth word like the shapes above.
    Pattern("date month d, 'yy", rf"\b(?:{MONTH_NAMES})\.?\s+{_DAY},?\s+{SHORT_YEAR}", 0.2),
    Pattern("date d month 'yy", rf"\b{_DAY}\.?\s+(?:{MONTH_NAMES})\.?,?\s+{SHORT_YEAR}", 0.2),
]
# Lower-case stems of the birth words (``DateOfBirthRecognizer.CONTEXT`` but "b."), as plain substrings: "geb" covers
# "geb.", "geboren", "geburt", "geboorte"; "nac" covers "nacimiento", "nació", "nacido", "fechaNac"; "né" covers
# "né le", "née en".
_BIRTH_STEMS = ("birth", "born", "dob", "d.o.b", "d_o_b", "d-o-b", "bday", "b-day", "b'day", "né", "nee le", "naiss",
                "anniversaire", "geb", "jahrgang", "nac", "cumple", "nasc", *_ITALIAN_BORN, "ddn", "verjaardag",
                "compleanno", "aniversário", "nacqu", "naqu", *BIRTH_IDIOMS,
                *AGE_WORDS, *(label.casefold() for label in BIRTH_LABELS))  # fmt: skip
_BIRTH_STEM = re.compile(phrase_pattern(_BIRTH_STEMS))  # a trie: one pass over the text, not one per stem
# The stems an ASCII text can hold, for the texts that are (most prompts, code and logs): the stems of other scripts
# and accented letters widen the set of characters the regex engine stops at, and slow its scan by half.
_ASCII_BIRTH_STEM = re.compile(phrase_pattern(stem for stem in _BIRTH_STEMS if stem.isascii()))
# Letters seldom written in English, rarest first: a stem that holds one in its first word is looked for from it.
_RARE_LETTERS = "qxzjkvbpygfw"


def _rare_letter_scans(stems: Iterable[str]) -> tuple[re.Pattern[str], tuple[re.Pattern[str], ...]]:
    """``_ASCII_BIRTH_STEM``'s stems as scans the regex engine runs fast: the trie stops at nearly every letter of a
    text (its stems open with 23 letters), ~25 ns a character. A stem with a rare letter in its first word is matched
    from that letter (what comes before it in a look-behind, the rest after it), in one regex whose branches each
    open with a rare letter, where the engine stops a few times a line; the others, by the two characters they open
    with, in one regex each, which the engine finds by its literal prefix. Some scan matches where some stem stands,
    as the trie does (a space matches any run of whitespace in both)."""
    anchored: dict[str, list[str]] = {}
    prefixed: dict[str, list[str]] = {}
    for stem in stems:
        first = stem.split(" ")[0]
        rare = [index for index, char in enumerate(first) if char in _RARE_LETTERS]
        if not rare:
            prefixed.setdefault(stem[:2], []).append(stem[2:])
            continue
        at = min(rare, key=lambda index: _RARE_LETTERS.index(first[index]))
        behind = f"(?<={re.escape(first[: at + 1])})" if at else ""
        anchored.setdefault(first[at], []).append(behind + phrase_pattern([stem[at + 1 :]]))
    branches = (re.escape(char) + "(?:" + "|".join(sorted(rests)) + ")" for char, rests in sorted(anchored.items()))
    heads = sorted(prefixed.items())
    return re.compile("|".join(branches)), tuple(re.compile(phrase_pattern([h]) + phrase_pattern(r)) for h, r in heads)


_RARE_BIRTH_SCAN, _PREFIXED_BIRTH_SCANS = _rare_letter_scans(stem for stem in _BIRTH_STEMS if stem.isascii())


def _has_ascii_birth_stem(lowered: str) -> bool:
    """``_ASCII_BIRTH_STEM.search(lowered) is not None``, scanned as ``_rare_letter_scans`` says."""
    if _RARE_BIRTH_SCAN.search(lowered) is not None:
        return True
    return any(scan.search(lowered) is not None for scan in _PREFIXED_BIRTH_SCANS)


@functools.lru_cache(maxsize=2)  # the weak and the spoken date detectors ask it of the same text in turn
def has_birth_word(text: str) -> bool:
    """Whether a birth word, or an age label and its number, may stand in the text (substring tests: cheap, and
    sometimes true of other words)."""
    lowered = text.lower()
    if _has_ascii_birth_stem(lowered) if lowered.isascii() else _BIRTH_STEM.search(lowered) is not None:
        return True
    # "(b. 3/4/41)": born, abbreviated in brackets after a name as reference works write it ("b." alone ends too many
    # words to be a stem: "Club.", "web.").
    if "(b. " in lowered:
        return True
    # A substring test first: most text holds no label.
    return any(label in lowered and statement.search(lowered) is not None for label, statement in _AGE_STATEMENTS)



# A birth word far from the date it names, in the two shapes that keep the date its own. An aside between "born" and
# the date, which the preposition the date takes closes ("Chen was born, after a night at the county hospital, on
# 8/23/1974", "Riou est né, d'après l'acte dressé par la mairie, le 17/11/89", "Tovar nació, según consta en el
# registro civil, el 03/12/61"): the verb and its comma, then up to ``ASIDE_REACH`` characters of one sentence with no
# other date, a comma and the preposition. And a question that asks for a birth date, answered right after it or on
# the next line ("agent: can you confirm when you were born please?\nuser: sure, it's 05/21/1932", "What's the
# patient's birthday?\n> 6 february 1940"): the answer's first date, within ``ANSWER_REACH`` characters of its start,
# ending its line or its sentence (an answer that goes on past a date tells of something else).
# Either date is a birth only if a person born then is of age (``OF_AGE`` years): an aside or an answer may hold a
# day of another event, and most of those are recent.
_BORN_COMMA = re.compile(r"[bnBNgG](?<![^\W\d_][bnBNgG])(?i:(?<=b)orn|(?<=n)ée?|(?<=n)ee|(?<=n)aci(?:ó|o|do|da)"
                         r"|(?<=n)at[oa]|(?<=n)asc(?:eu|ido|ida)|(?<=g)eboren)[ \t]*,")  # fmt: skip
_DATE_PREPOSITION = re.compile(r",[ \t]+(?:on|le|el|am|il|em|op|in)[ \t]+(?:the[ \t]+)?", re.IGNORECASE)
WEEKDAY_REACH = 14  # a weekday may stand between the preposition and the date ("le jeudi 15 juin 1989")
_ASIDE_BREAK = re.compile(r"(?:(?<=[^\W\d_]{4})\.|[!?;])[ \t]|\n|(?<!\d)(?:19|20)\d\d(?!\d)|\d[/.-]\d")
_ANSWER_CLOSED = re.compile(r"[ \t]*[.!)]?[ \t]*(?:\r?\n|\Z)|[.!][ \t]")  # the date ends the answer or its sentence
ASIDE_REACH = 160
ANSWER_REACH = 40
QUESTION_REACH = 120
OF_AGE = 16
FAR_CUE_SCORE = DATE_ALONE + AGE_BOOST

# The same question asked without its question mark, as call transcripts and chat write it: the birth label alone
# at the end of a turn, or the question's last words ("agent: date of birth", "medewerker: en uw geboortedatum",
# "und ihr geburtsdatum bitte", "can you confirm the date of birth"), answered by the next line. The next line is the
# answer when a date opens it: after its speaker's label ("customer:", "kunde :", "> "), and at most three short
# words of five letters or fewer, the hesitation markers of speech transcribed ("uh", "äh", "euh", "eee", "ehm",
# "hum") and the words an answer opens with ("yes", "it's", "el", "le"): a date there that ends its line or its
# sentence (``_ANSWER_CLOSED``), of a person of age, as for a question. The label ends its line: after the birth
# word's own word at most one more word ("bitte", "please", "svp") and a question mark, colon or full stop.
_ANSWER_LINE = re.compile(r"\n[ \t]*(?:[^\W\d_][^\W\d_'’.-]{0,19}(?:[ \t][^\W\d_]{1,20})?[ \t]*:[ \t]*|>[ \t]*)?"
                          r"(?:[^\W\d_]{1,5}(?:['’][^\W\d_]{1,2})?,?[ \t]+){0,3}(?=\d)")
_WORD_AFTER_LABEL = 12  # letters of the one word after a birth word that ends its line ("bitte", "please")
LABEL_LINE_TAIL = 48  # characters of the line above the answer its birth word may stand in
# A day, a month and a year of birth written with spaces between, as speech to text and quick typing leave a date
# ("10 7 1964", "13 10 1952"): either order of the day and the month, one of them a month's number. Read only as an
# answer to a birth question (with the day-first dates whose month is inflected: Polish "30 stycznia 1999"), never in
# running text, where such a run is any three numbers.
_SPACED_DATE = (rf"(?<![\w.,:/+-])(?:{_DM}[ \t](?:0?[1-9]|1[0-2])|(?:0?[1-9]|1[0-2])[ \t]{_DM})[ \t]{BIRTH_YEAR}"
                r"(?![\w.,:/-]|[ \t]\d)")


def _ends_in_birth_label(line_tail: str) -> bool:
    """Whether a line (its last ``LABEL_LINE_TAIL`` characters) ends in a birth word, one more word at most after it
    and a question mark, colon or full stop: one of its last two words opens with a birth stem and goes on in letters
    only. "né", the one stem of two letters, opens too many words ("nécessaire") to be a label alone."""
    words = line_tail.rstrip(" \t\r?:.").rsplit(None, 2)[-2:]
    if not words or not words[-1][-1:].isalpha():  # most lines: a log's or a record's, a sentence's end
        return False
    for index, word in enumerate(words):
        lowered = word.lower()
        stem = _BIRTH_STEM.match(lowered)
        if stem is None or stem.end() < SHORTEST_ABBREVIATION or not (lowered[stem.end() :] or "a").isalpha():
            continue
        if index == len(words) - 1 or (words[-1].isalpha() and len(words[-1]) <= _WORD_AFTER_LABEL):
            return True
    return False


_SPACED_DATE_ALONE = re.compile(_SPACED_DATE)
# Where a spaced date may be: its year after a space, read from that space (a literal the regex engine skips to; a
# class of digits first stops it at every digit of a log or a record).
_SPACED_DATE_SCAN = re.compile(r" (?:19|20)\d\d(?:(?<=\d[ \t]\d \d{4})|(?<=\d[ \t]\d\d \d{4}))")
# A line break after a word, or after its question mark, colon or full stop and a space: where a label may end its
# line. Read from the line break, a literal the regex engine skips to (``_ANSWER_LINE`` tried at each line break of a
# log or a record costs three times as much).
_BREAK_AFTER_WORD = re.compile(r"\n(?:(?<=[^\W\d_]\n)|(?<=[^\W\d_][?:.]\n)|(?<=[^\W\d_][ \t]\n)"
                               r"|(?<=[^\W\d_][?:.][ \t]\n)|(?<=[^\W\d_]\r\n))")
# A spaced date right after a birth word and its label's colon or dash ("dob 5 6 1961", "geburtsdatum: 10 7 1964"):
# what stands between the birth stem and the date.
_LABEL_BEFORE = re.compile(r"[^\W\d_]*\.?[ \t]*[:=-]?[ \t]*\Z")
SPACED_LABEL_REACH = 32

ANSWER_PATTERNS = [Pattern("date d m y spaced", _SPACED_DATE, 0.2),
                   Pattern("date d month y inflected", INFLECTED_DATE, 0.3)]


class FarCueDateOfBirthRecognizer(DateOfBirthRecognizer):
    """Dates of birth whose birth word stands further than the context window reaches: after an aside, or in the
    question the date answers. Presidio's pattern machinery reads each candidate date (the written shapes, strong
    and weak)."""

    def __init__(self) -> None:
        super().__init__([*DateOfBirthRecognizer.PATTERNS, *WEAK_PATTERNS, *ANSWER_PATTERNS],
                         name="FarCueDateOfBirthRecognizer")

    def analyze(self, text: str, entities: list[str], nlp_artifacts: object = None,
                regex_flags: int | None = None) -> list[RecognizerResult]:  # fmt: skip
        found = [*self._after_asides(text), *self._answers(text), *self._label_answers(text),
                 *self._spaced_after_labels(text)]  # fmt: skip
        return [RecognizerResult("DATE_OF_BIRTH", start, end, FAR_CUE_SCORE) for start, end in dict.fromkeys(found)]

    def _date_at(self, text: str, start: int, reach: int, one_word: bool = False) -> tuple[int, int] | None:
        """The first date in text[start : start + reach + 40] that starts within `reach` (with `one_word`, after one
        word at most: a weekday), and is of a person of age."""
        window = text[start : start + reach + 40]
        results = sorted(PatternRecognizer.analyze(self, window, ["DATE_OF_BIRTH"]), key=lambda r: (r.start, -r.end))
        if not results or results[0].start > reach:
            return None
        first = results[0]
        if one_word and " " in window[: first.start].strip(" \t,"):
            return None
        year = _year_of(window[first.start : first.end])
        if year is None or year > datetime.date.today().year - OF_AGE:
            return None
        return start + first.start, start + first.end

    def _after_asides(self, text: str) -> list[tuple[int, int]]:
        if "," not in text:
            return []
        found = []
        for born in _BORN_COMMA.finditer(text):
            stop = _ASIDE_BREAK.search(text, born.end(), born.end() + ASIDE_REACH)
            end = stop.start() if stop is not None else min(len(text), born.end() + ASIDE_REACH)
            closings = list(_DATE_PREPOSITION.finditer(text, born.end(), end))
            if closings and (date := self._date_at(text, closings[-1].end(), WEEKDAY_REACH, True)) is not None:
                found.append(date)
        return found

    def _answers(self, text: str) -> list[tuple[int, int]]:
        found = []
        mark = text.find("?")
        while mark != -1:
            question_start = max(0, mark - QUESTION_REACH)
            for stop in ("\n", ". ", "! ", "? "):
                question_start = max(question_start, text.rfind(stop, question_start, mark) + 1)
            if _BIRTH_STEM.search(text[question_start:mark].lower()) is not None:
                answer = mark + 1
                while answer < len(text) and text[answer] in " \t\r\n":
                    answer += 1
                line_end = text.find("\n", answer)
                reach = min(ANSWER_REACH, (line_end if line_end != -1 else len(text)) - answer)
                date = self._date_at(text, answer, max(0, reach))
                if date is not None and _ANSWER_CLOSED.match(text, date[1]) is not None:
                    found.append(date)
            mark = text.find("?", mark + 1)
        return found

    def _label_answers(self, text: str) -> list[tuple[int, int]]:
        """The dates that answer a birth label ending the line above (``_ANSWER_LINE``)."""
        found = []
        for line_break_after_word in _BREAK_AFTER_WORD.finditer(text):
            line_break = line_break_after_word.start()
            answer = _ANSWER_LINE.match(text, line_break)
            if answer is None:
                continue
            line_start = text.rfind("\n", 0, line_break) + 1
            tail_start = max(line_start, line_break - LABEL_LINE_TAIL)
            if not _ends_in_birth_label(text[tail_start:line_break]):
                continue
            body = line_break + 1
            line_end = text.find("\n", body)
            reach = min(ANSWER_REACH, (line_end if line_end != -1 else len(text)) - body)
            date = self._date_at(text, body, reach)
            if date is None or date[0] > answer.end() or _ANSWER_CLOSED.match(text, date[1]) is None:
                continue
            # A date alone on its line is read with the line above as its context already (``recognizers``), but
            # for the spaced shape, which only answers read.
            if text[body : date[0]].strip() or _SPACED_DATE_ALONE.fullmatch(text, *date) is not None:
                found.append(date)
        return found

    @staticmethod
    def _spaced_after_labels(text: str) -> list[tuple[int, int]]:
        """The spaced dates (``_SPACED_DATE``) right after a birth word, of people of age."""
        found = []
        for scan in _SPACED_DATE_SCAN.finditer(text):  # most text holds none
            # The day and the month before the year's space take three to five characters ("5 6", "10 7", "13 10").
            shapes = (_SPACED_DATE_ALONE.match(text, scan.start() - width) for width in (5, 4, 3))
            date = next((shape for shape in shapes if shape is not None and shape.end() == scan.end()), None)
            if date is None or (year := _year_of(date.group())) is None or year > datetime.date.today().year - OF_AGE:
                continue
            start = date.start()
            before = text[max(0, start - SPACED_LABEL_REACH) : start].lower()
            if any(stem.end() - stem.start() >= SHORTEST_ABBREVIATION and not before[: stem.start()][-1:].isalpha()
                   and _LABEL_BEFORE.match(before, stem.end()) is not None for stem in _BIRTH_STEM.finditer(before)):
                found.append(date.span())
        return found
