"""Street addresses written in their own scripts, read from Faker's address providers of those locales:

- Chinese: a road suffix (zh_TW's and zh_CN's "路", "街", "巷"), an optional section ("段"), the house number and its
  mark ("號", simplified "号"): "永安路1號", "勝利街1段275號", no spaces;
- Thai: a house number (with its "หมู่" village number) before a road or lane word (th_TH's "ถนน", "ถ.", "ซอย",
  "ซ."): "77/26 ถนนขันธุลา", "76 หมู่ 7 ถ.ธนูปกรณ์";
- Cyrillic: a type before the name (uk_UA's "вулиця", "провулок", ru_RU's "ул.", "пр.", and the postal abbreviations
  of both and of Bulgarian), the name, then the house number with the label the locale's formats put before it
  ("буд.", "д.") or none: "проспект Макова, буд. 943 кв. 735", "ул. Ленина, д. 5";
- scripts whose street names carry no type (Hebrew, Greek, Armenian, Georgian): a street name of the locale's table
  (he_IL's street titles, el_GR's localities, hy_AM's streets, ka_GE's street titles with "ქ.") then a house number:
  "Αγγίστης 96", "Տիգրան Մեծի 7"; and a Hebrew street type before any name ("רחוב הרצל 12"). Greek streets named after
  a person are in the genitive, after an optional "Πλ."/"Λεωφόρος": a family name of names-dataset's (person_names'
  snapshot) in that case, or a capitalised word ending in the genitive of a common family-name suffix ("Οδός
  Μωραΐτη", "Αβραμίδου 3", "Παπαδάκη 12"). No person table of Faker's is read: the PII corpus draws its people
  from those.

Each is looked for only in text that holds a character of its script."""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from typing import Any

from gateway.guardrails.person_names import known_names
from gateway.guardrails.street_after_scripts import after_name_spans
from gateway.guardrails.word_trie import alternation

_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
_THAI = "\u0e01-\u0e4e"
_SP = r"[^\S\r\n]"
# A house number that no further digit, dot or slash runs on from, and no year ("Αθήνα 2004" is the Olympics).
_NUMBER = r"(?P<number>\d{1,5}(?:[-/]\d{1,4})?)(?![\w.,/:-]*\d)"
_YEAR = re.compile(r"(?:19|20)\d\d")
# Ukrainian, Russian and Bulgarian postal abbreviations of the types written before a street's name (вулиця,
# проспект, провулок, бульвар, площа, набережна; Bulgarian улица, булевард): Faker's uk_UA writes only the whole words.
_CYRILLIC_ABBREVIATIONS = ("вул.", "просп.", "пров.", "бул.", "пл.", "наб.", "ул.", "бульв.")
# Hebrew street types written before the name, whole and abbreviated with a geresh (street, boulevard, alley);
# Faker's he_IL titles carry the abbreviations without it ("סמ הרכבת", "שד העצמאות").
_HEBREW_TYPES = ("רחוב", "רח'", "רח׳", "שדרות", "שד'", "שד׳", "סמטת", "סמ'", "סמ׳")
# The genitive (a man's family name after "οδός", and a woman's family name as it is) of the common Greek family-name
# suffixes: -όπουλος, -άκης, -ίδης, -ιάδης, -άτος, -όγλου, -έλλης, and women's -ίδου, -ιάδου.
_GREEK_GENITIVE_SUFFIXES = ("οπούλου", "άκη", "ίδη", "ιάδη", "ίδου", "ιάδου", "άτου", "όγλου", "έλλη")
_GREEK_CAPITALS = "\u0386\u0388-\u038f\u0391-\u03a9"


def _provider(locale: str) -> Any:  # a Faker provider class: its tables are class attributes
    return importlib.import_module(f"faker.providers.address.{locale}").Provider


def _marks(formats: object) -> list[str]:
    """The letters a number format writes around its digits ("%#號" -> "號", "#樓" -> "樓", "之#" -> "之")."""
    return [m for f in formats if isinstance(f, str) for m in re.split(r"[%#?\s]+", f) if m]  # type: ignore[attr-defined]


@cache
def _han() -> re.Pattern[str]:
    tw, cn = _provider("zh_TW"), _provider("zh_CN")
    suffixes = alternation(frozenset([*tw.street_suffixes, *cn.street_suffixes]), fold=False)
    section = alternation(frozenset(_marks(tw.section_formats)), fold=False)
    # The number's mark, traditional and the simplified form of each ("號" and "号").
    marks = set(_marks(tw.building_number_formats))
    marks |= {m.replace("號", "号") for m in marks}
    after = "|".join(re.escape(m) for m in _marks(tw.secondary_address_formats))
    # The road's name: one of the provider's, or two characters (most are), so that the words before it in a run
    # written without spaces ("请寄到中山路") are left out.
    names = alternation(frozenset(tw.street_names), fold=False)
    return re.compile(
        rf"(?:{names}|[{_HAN}]{{2}}){suffixes}(?:\d{{1,3}}{section})?(?:\d{{1,4}}{suffixes})?\d{{1,5}}(?:-\d{{1,4}})?"
        rf"{alternation(frozenset(marks), fold=False)}(?:(?:{after})\d{{1,3}}|\d{{1,3}}(?:{after}))*"
    )


@cache
def _thai() -> re.Pattern[str]:
    provider = _provider("th_TH")
    prefixes = alternation(frozenset(provider.street_prefixes), fold=False)
    village = "|".join(m for m in _marks(provider.building_number_formats) if "/" not in m)
    return re.compile(
        rf"(?<![\d/])\d{{1,4}}(?:/\d{{1,4}})?(?:{_SP}+(?:{village}){_SP}*\d{{1,3}})?{_SP}+{prefixes}{_SP}*[{_THAI}]+"
    )


def _labels_before_number(formats: object) -> set[str]:
    """The words right before ``{{building_number}}`` in street-address formats ("буд.", "кв.", "д.", "к.")."""
    labels = set()
    for format_ in formats:  # type: ignore[attr-defined]
        for match in re.finditer(r"(\S+)\s*\{\{building_number\}\}", format_):
            labels.add(match.group(1).strip(","))
    return {label for label in labels if not label.startswith("{")}


@cache
def _cyrillic() -> re.Pattern[str]:
    uk, ru = _provider("uk_UA"), _provider("ru_RU")
    types = alternation(frozenset([*uk.street_prefixes, *ru.street_suffixes, *_CYRILLIC_ABBREVIATIONS]))
    labels = alternation(frozenset(_labels_before_number([*uk.street_address_formats, *ru.street_address_formats])))
    word = r"[^\W\d_][\w'’.-]*|\d{1,2}-[^\W\d_]{1,3}"  # "Деревообробний", "3-й"
    number = r"\d{1,5}(?:[-/]\d{1,4})?[^\W\d_]?"
    return re.compile(
        rf"(?<![\w.-])(?P<type>(?i:{types}))\.?{_SP}+(?P<name>(?:{word})(?:{_SP}+(?:{word})){{0,4}}?),?{_SP}+"
        rf"(?:(?P<label>(?i:{labels}))\.?{_SP}*)?{number}(?:,?{_SP}+(?i:{labels})\.?{_SP}*{number})*(?![\w.,/-]*\d)"
    )


def _greek_genitive_family_names() -> set[str]:
    """names-dataset's Greek family names (person_names' snapshot, case-folded) in the genitive: those written so
    already (women's, and -ου names), and -ης, -ας names without their final sigma; -ος names are left out (their
    genitive moves the accent)."""
    names = set()
    for name in known_names().last:
        if not "\u0370" <= name[0] <= "\u03ff" and not "\u1f00" <= name[0] <= "\u1fff":
            continue
        if name[-2:] in ("ησ", "ήσ", "ασ", "άσ"):
            names.add(name[:-1])
        elif not name.endswith("σ"):
            names.add(name)
    return names


def _greek_surname_shape() -> str:
    """A capitalised Greek word ending in one of ``_GREEK_GENITIVE_SUFFIXES``, accented or not (capitals are often
    written without accents: "ΠΑΠΑΔΑΚΗ"), matched ignoring case."""
    plain = {"".join(c for c in unicodedata.normalize("NFD", suffix) if not unicodedata.combining(c))
             for suffix in _GREEK_GENITIVE_SUFFIXES}  # fmt: skip
    suffixes = alternation(frozenset([*_GREEK_GENITIVE_SUFFIXES, *plain]))
    return f"(?-i:[{_GREEK_CAPITALS}])[\u0370-\u03ff\u1f00-\u1fff]+?(?:{suffixes})"


@cache
def _named() -> tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]:
    """(the script's letters, the pattern) for the Hebrew street types and each script's table of street names."""
    he, el, hy, ka = (_provider(locale) for locale in ("he_IL", "el_GR", "hy_AM", "ka_GE"))
    # Armenian "և" is written "ԵՒ" in capitals, which no case-insensitive match pairs with it.
    armenian = {*hy.streets, *(street.replace("և", "եւ") for street in hy.streets)}
    greek_types = alternation(frozenset([*el.street_prefixes_short, *el.street_prefixes_long]))
    # Streets are named after localities and, in the genitive, after people ("Οδός Μωραΐτη").
    greek = {*el.localities, *_greek_genitive_family_names()}
    # (letters, words before the name, the names' regex, words after it, the script's lower-case letters): a number
    # that a lower-case word of the script follows counts something ("κυρία Αβραμίδου 3 φορές": Mrs Avramidou, 3 times).
    tables = (
        ("\u0590-\u05ff", "", alternation(frozenset(he.street_titles)), "", ""),
        (
            "\u0370-\u03ff\u1f00-\u1fff",
            rf"(?:(?i:{greek_types})\.?{_SP}+)?",
            f"{alternation(frozenset(greek))}|{_greek_surname_shape()}",
            "",
            "\u03ac-\u03ce",
        ),
        ("\u0531-\u058f", "", alternation(frozenset(armenian)), "", "\u0561-\u0587"),
        (
            "\u10a0-\u10ff",
            "",
            alternation(frozenset(ka.street_titles)),
            rf"(?:{_SP}+{alternation(frozenset(ka.street_suffixes))}\.?)?",
            "",
        ),
    )
    hebrew_types = alternation(frozenset(_HEBREW_TYPES), fold=False)
    hebrew_word = "[\u05d0-\u05ea][\u05d0-\u05ea\"'\u05f3\u05f4-]*"
    # A Hebrew street type, then any name of up to three words ("רחוב הרצל 12", "שד' בן גוריון 4"); a preposition
    # may be written onto the type ("ברחוב": in street).
    typed = re.compile(
        rf"(?<![\w.-])[בהולמש]?{hebrew_types}{_SP}+(?P<name>{hebrew_word}(?:{_SP}+{hebrew_word}){{0,2}}),?{_SP}+{_NUMBER}"
    )
    return ((re.compile("[\u0590-\u05ff]"), typed), *(
        (re.compile(f"[{letters}]"),
         re.compile(rf"(?<![\w.-]){before}(?P<name>(?i:{names}))(?![\w'’-]){after},?{_SP}+{_NUMBER}"
                    + (rf"(?!{_SP}+[{lower}])" if lower else "")))
        for letters, before, names, after, lower in tables
    ))  # fmt: skip


_CYRILLIC_LETTER = re.compile("[\u0400-\u04ff]")


def script_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each street address written in its own script."""
    if text.isascii():  # most text: none of the scripts' letters, and no look for each of them
        return
    if "號" in text or "号" in text:
        yield from (match.span() for match in _han().finditer(text))
    if "\u0e16" in text or "\u0e0b" in text:  # the first letter of every Thai road or lane word ("ถ", "ซ")
        yield from (match.span() for match in _thai().finditer(text))
    if _CYRILLIC_LETTER.search(text):
        for match in _cyrillic().finditer(text):
            name = match.group("name")
            # A name is capitalised, or the whole address is in capitals (a payment message); with no label, the
            # type is a whole word or an abbreviation and the name is no lower-case word ("парк 3 дні").
            if name[:1].isupper() or (match.group("label") and match.group().isupper()):
                yield match.span()
    for letters, pattern in _named():
        if letters.search(text):
            for match in pattern.finditer(text):
                if not _YEAR.fullmatch(match.group("number")):
                    yield match.span()
    yield from after_name_spans(text)
